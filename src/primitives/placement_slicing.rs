//! Where slices, reversals and gathers of arrays sharded over explicit mesh
//! axes live: JAX 0.10.2's sharding rules for `slice`, `dynamic_slice`,
//! `rev` and `gather` (which `take` and integer-array indexing bind).
//!
//! A slice keeps its operand's sharding dimension by dimension, even where
//! it shortens a split dimension, as long as the new length still divides
//! over the dimension's mesh axes; otherwise JAX raises ShardingTypeError
//! rather than choose a layout. A gather needs the dimension it picks from
//! to be whole, and whole indices: the result is then the operand's layout
//! with the index dimensions in place of the picked one.
//!
//! JAX's eager indexing of a concrete array sharded over several devices
//! (`x[0]`, `x[:, 1:3]`) is a gather, not a slice; [`check_eager_index`]
//! applies that rule before the slice shardlab computes it with.
//!
//! Over auto mesh axes these rules say nothing (XLA lays the results out),
//! so they answer only for operands split over explicit axes alone.

use super::placement::{entries, typed_short, Entry, Operand};
use super::Prim;
use crate::array::DType;
use crate::error::Result;
use crate::mesh::{AxisType, Mesh};
use crate::sharding::Placement;

/// The result spec of a slicing family `prim`, None when it has no rule for
/// these operands (auto axes), and JAX's error where it raises.
pub fn spec(prim: &Prim, ins: &[Operand], out: &[usize]) -> Result<Option<Vec<Entry>>> {
    let Some(x) = ins.first() else {
        return Ok(None);
    };
    let Some(mesh) = explicit_mesh(ins) else {
        return Ok(None);
    };
    let e = entries(x, x.shape.len());
    match prim {
        Prim::Slice { .. } => kept_if_divisible(mesh, x, &e, out, "slicing").map(Some),
        Prim::DynamicSlice(_) => kept_if_divisible(mesh, x, &e, out, "dynamic_slice").map(Some),
        Prim::Rev(_) => Ok(Some(e)),
        Prim::Take(axis) => {
            let Some(idx) = ins.get(1) else {
                return Ok(None);
            };
            take(x, idx, *axis).map(Some)
        }
        _ => Ok(None),
    }
}

/// The mesh of the operands when every axis they are split over is
/// explicit (and one is), else None.
fn explicit_mesh<'a>(ins: &[Operand<'a>]) -> Option<&'a Mesh> {
    let mut mesh = None;
    for o in ins {
        let Some(Placement::Named(s)) = o.placement else {
            continue;
        };
        let used = s.spec.used_axes();
        if used
            .iter()
            .any(|a| s.mesh.axis_type(a).ok() != Some(AxisType::Explicit))
        {
            return None;
        }
        if !used.is_empty() {
            mesh = Some(&s.mesh);
        }
    }
    mesh
}

/// `slice` and `dynamic_slice`: the operand's spec, where each shortened
/// split dimension still divides over its axes.
fn kept_if_divisible(
    mesh: &Mesh,
    x: &Operand,
    e: &[Entry],
    out: &[usize],
    name: &str,
) -> Result<Vec<Entry>> {
    for ((&n, &m), entry) in x.shape.iter().zip(out).zip(e) {
        let Some(axes) = entry else { continue };
        let size = mesh.axes_size(axes)?;
        if n != m && m % size != 0 {
            let spec = match axes.as_slice() {
                [one] => one.clone(),
                many => format!(
                    "({})",
                    many.iter()
                        .map(|a| format!("'{a}'"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            crate::bail!(
                ShardingTypeError,
                "{name} on sharded dims where out dim ({m}) is not divisible by mesh axes ({size}) with spec ({spec}) is not implemented. Got input type={} and output shape={}",
                typed_short(x.shape, x.dtype, e),
                crate::array::shape_tuple(out)
            );
        }
    }
    Ok(e.to_vec())
}

/// `take` along `axis` (a gather): the picked dimension and the indices
/// must be whole.
fn take(x: &Operand, idx: &Operand, axis: usize) -> Result<Vec<Entry>> {
    let e = entries(x, x.shape.len());
    let ie = entries(idx, idx.shape.len());
    if e.get(axis).is_some_and(Option::is_some) || ie.iter().any(Option::is_some) {
        let mut index_shape = idx.shape.to_vec();
        index_shape.push(1);
        refuse_gather(x, &index_shape, idx.dtype)?;
    }
    let mut out: Vec<Entry> = e[..axis].to_vec();
    out.extend(vec![None; idx.shape.len()]);
    out.extend(e[axis + 1..].iter().cloned());
    Ok(out)
}

/// JAX's refusal of a gather whose result layout it cannot tell.
fn refuse_gather(x: &Operand, index_shape: &[usize], index_dtype: DType) -> Result<()> {
    let e = entries(x, x.shape.len());
    crate::bail!(
        ShardingTypeError,
        "Use `.at[...].get(out_sharding=)` to provide output PartitionSpec for the gather indexing as out sharding could not be resolved unambiguously (or would require collectives on inputs). Got operand=ShapedArray({}), indices=ShapedArray({})",
        typed_long(x.shape, x.dtype, &e),
        crate::sharding::aval_text(index_shape, index_dtype, None)
    )
}

/// `float32[8@data,4]`: [`typed_short`] with the dtype's full name.
fn typed_long(shape: &[usize], dtype: DType, e: &[Entry]) -> String {
    let short = typed_short(shape, dtype, e);
    let rest = short.split_once('[').map_or("", |(_, r)| r);
    format!("{}[{rest}", dtype.name())
}

/// How an eager index uses one dimension of the indexed array.
pub enum Picked {
    /// Taken whole (`:`), or not consumed.
    Whole,
    /// Picked from by an integer or a partial slice, adding `batch`
    /// dimensions to JAX's gather indices (a strided slice adds its length,
    /// an index array its shape).
    Part(Vec<usize>),
}

/// JAX's indexing of a concrete array laid out over several devices: any
/// integer, partial slice or index array makes it a gather, which refuses
/// to pick from a dimension split over explicit axes. `dims` says how the
/// key uses each dimension of `x`.
pub fn check_eager_index(x: &crate::array::Array, dims: &[Picked]) -> Result<()> {
    let Some(p @ Placement::Named(s)) = x.placement() else {
        return Ok(());
    };
    if s.mesh.size() <= 1 {
        return Ok(());
    }
    let op = Operand {
        shape: x.shape(),
        dtype: x.dtype(),
        placement: Some(p),
    };
    if explicit_mesh(&[op]).is_none() {
        return Ok(());
    }
    let e = entries(&op, x.shape().len());
    let split_picked = dims
        .iter()
        .zip(&e)
        .any(|(d, entry)| matches!(d, Picked::Part(_)) && entry.is_some());
    if !split_picked {
        return Ok(());
    }
    let mut index_shape: Vec<usize> = vec![];
    let mut picked = 0;
    for d in dims {
        if let Picked::Part(batch) = d {
            index_shape.extend(batch);
            picked += 1;
        }
    }
    index_shape.push(picked);
    refuse_gather(&op, &index_shape, DType::I32)
}
