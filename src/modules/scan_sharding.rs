//! The sharded types of a `scan`'s carry and slices.
//!
//! Over explicit mesh axes a value's sharding is part of its type, so JAX's
//! scan checks it like the shape and dtype: the scanned arrays must keep
//! their leading (scanned) dimension whole, the body sees each slice with
//! the sharding of the rest, and the carry the body returns must be laid out
//! as the carry it was given (`float32[8]` in, `float32[8@model]` out is a
//! TypeError). The body is traced with these placements, so `jax.typeof`
//! inside it shows them.

use std::sync::Arc;

use crate::bail;
use crate::error::Result;
use crate::ir::{Aval, Jaxpr};
use crate::sharding::{PartitionSpec, Placement};
use crate::trace::Value;

pub use crate::primitives::placement_scan::{value_placements as placements, Placed};

/// What the body sees of the scanned arrays `xs`: their placements without
/// the leading dimension, which JAX requires to be whole (ValueError).
pub fn scanned_placements(xs: &[Value]) -> Result<Vec<Placed>> {
    let placed = placements(xs)?;
    let split = |p: &Placed| match p.as_deref() {
        Some(Placement::Named(s)) => !s.spec.axes_of(0).is_empty(),
        _ => false,
    };
    if placed.iter().any(split) {
        let specs: Vec<String> = placed
            .iter()
            .zip(xs)
            .map(|(p, x)| {
                let mut entries = match p.as_deref() {
                    Some(Placement::Named(s)) => s.spec.entries().to_vec(),
                    _ => vec![],
                };
                entries.resize(x.ndim(), None);
                PartitionSpec::new(entries).to_string()
            })
            .collect();
        bail!(
            ValueError,
            "0th dimension of all xs should be replicated. Got {}",
            specs.join(", ")
        );
    }
    Ok(placed
        .into_iter()
        .zip(xs)
        .map(|(p, x)| match p.as_deref() {
            Some(Placement::Named(s)) => Some(Arc::new(
                crate::primitives::placement_vmap::without_dim(s, x.ndim(), 0),
            )),
            _ => p,
        })
        .collect())
}

/// The placements of a traced body's outputs, its inputs being the values
/// it closed over (`consts`) and then arguments placed at `args`.
pub fn body_out_placements(
    jaxpr: &Jaxpr,
    consts: &[Value],
    args: &[Placed],
) -> Result<Vec<Placed>> {
    let mut ins = placements(consts)?;
    ins.extend(args.iter().cloned());
    if ins.iter().all(Option::is_none) {
        return Ok(vec![None; jaxpr.outvars.len()]);
    }
    crate::primitives::placement::propagate_jaxpr(jaxpr, &ins)
}

/// A carry component's type as JAX's carry message writes it, with the
/// explicit mesh axes of its sharding (`float32[8@model]`).
pub fn type_text(a: &Aval, p: Option<&Placed>) -> String {
    crate::sharding::aval_text(&a.shape, a.dtype, p.and_then(|p| p.as_deref()))
}
