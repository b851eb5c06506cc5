//! The browser/Node fabric: devices as Web Workers (or Node worker_threads),
//! each running its own instance of this crate's wasm module, exchanging
//! through one `SharedArrayBuffer`.
//!
//! - [`fabric`]: [`SabFabric`], the [`crate::fabric::Fabric`] over shared
//!   memory with an `Atomics` barrier;
//! - [`device`]: what a device worker runs for each job (exported to JS);
//! - [`pool`]: [`WorkerPool`] and [`WorkerDevices`], the coordinator that
//!   ships a body jaxpr and the input shards to the workers, blocks until
//!   they are done and gathers the outputs from shared memory;
//! - [`wire`], [`job`], [`log`]: what travels between them;
//! - [`memory`]: the memory limit as a total over every worker;
//! - [`program`], [`check`]: what the page calls: run a program, grade a
//!   solution of an exercise.
//!
//! Collectives are the engine's own Rust code over the fabric, as with
//! threads; only the fabric and the way devices are started differ. See
//! `docs/web.md`.

#[cfg(feature = "check")]
pub mod check;
mod clock;
pub mod device;
pub mod fabric;
pub mod job;
pub mod log;
pub mod memory;
pub mod pool;
pub mod program;
pub mod wire;

pub use clock::now_ms;
pub use fabric::{SabFabric, Status};
pub use pool::{start_workers, Probe, ProbeStats, WorkerDevices, WorkerPool};
