//! shardlab: JAX's SPMD model — meshes, partition specs, shard_map, pmap, vmap,
//! named-axis collectives and gradients through all of them — on simulated
//! devices that really run in parallel (OS threads natively, Web Workers in the
//! browser).
//!
//! The layers, each depending only on those above it:
//! - [`mod@array`]: n-d f32/i32/bool arrays and the jnp operations;
//! - [`mesh`], [`sharding`]: meshes, PartitionSpec, splitting and assembling shards;
//! - [`ir`]: the jaxpr-like program the front end traces and the devices run;
//! - [`primitives`]: the primitive table — shape rule, implementation, jvp and
//!   vjp of each primitive, side by side;
//! - [`trace`]: building jaxprs from calls on values; [`ops`]: those calls (jnp, lax);
//! - [`transforms`]: jvp, vjp, grad;
//! - [`fabric`]: N devices, exchange slots and a barrier;
//! - [`collectives`]: psum, all_gather, ... written once over the fabric;
//! - [`exec`]: running jaxprs on devices, in lockstep or in parallel, within
//!   a run context (`exec::run`: settings, stop check, observer) that the
//!   run's starter makes and that ends with the run;
//! - [`report`]: what a run shows a person, built by an observer of the
//!   run (`report::Recorder`); the evaluator knows only the observer trait;
//! - [`python`]: the interpreter core, above the engine, which never names a
//!   module (`tests/layers.rs` checks this and that no engine layer names
//!   the front end);
//! - [`modules`]: `jax`, `numpy`, `flax`, `optax` and the standard modules,
//!   written on the core and reaching it only through its `Library` and
//!   `Object` traits; [`program`]: runs a program with them installed;
//! - [`check`]: grades a learner's function against an exercise (a
//!   problem's cases and checks on the run report), above [`program`].

pub mod array;
#[cfg(not(target_arch = "wasm32"))]
pub mod bench;
pub mod check;
pub mod collectives;
pub mod error;
pub mod exec;
pub mod fabric;
pub mod ir;
pub mod mesh;
// An engine built without some of the library's features (the playground's
// first engine) leaves the code only they reach unused.
#[cfg_attr(not(feature = "full"), allow(dead_code))]
pub mod modules;
pub mod ops;
pub mod partition;
pub mod primitives;
pub mod program;
pub mod python;
pub mod random;
pub mod report;
pub mod sharding;
pub mod trace;
pub mod transforms;
#[cfg(target_arch = "wasm32")]
pub mod web;

pub use array::{Array, DType};
pub use error::{Error, ErrorKind, Result};
pub use mesh::Mesh;
pub use sharding::PartitionSpec;
pub use trace::Value;
