//! shardlab: JAX's SPMD model — meshes, partition specs, shard_map, pmap, vmap,
//! named-axis collectives and gradients through all of them — on simulated
//! devices that really run in parallel (OS threads natively, Web Workers in the
//! browser).
//!
//! The layers, each depending only on those above it:
//! - [`array`]: n-d f32/i32/bool arrays and the jnp operations;
//! - [`mesh`], [`sharding`]: meshes, PartitionSpec, splitting and assembling shards;
//! - [`ir`]: the jaxpr-like program the front end traces and the devices run;
//! - [`fabric`]: N devices, exchange slots and a barrier;
//! - [`collectives`]: psum, all_gather, ... written once over the fabric.

pub mod array;
pub mod collectives;
pub mod error;
pub mod fabric;
pub mod mesh;
pub mod sharding;

pub use array::{Array, DType};
pub use error::{Error, ErrorKind, Result};
pub use mesh::Mesh;
