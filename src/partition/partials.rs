//! What each device holds of an array unreduced over some mesh axes.
//!
//! shardlab keeps the whole value of every top-level array; for an array
//! whose sharding names `unreduced` axes, the devices along those axes hold
//! partial values whose sum is that value, and `addressable_shards` shows
//! them. They are derived here where the operation that made the array
//! fixes them, as XLA computes them:
//!
//! - a contraction with an unreduced `out_sharding`: each device's local
//!   product of its blocks of the operands (the sum before its all-reduce);
//! - a reshard (or `device_put`) to unreduced axes of an array split over
//!   those axes: each device keeps its own block and zeros elsewhere;
//! - a sum of two unreduced arrays: the devices' partials added; a
//!   transpose: each device's partial transposed.
//!
//! Elsewhere they stay unknown, and asking for the shards fails rather
//! than guess.

use std::ops::Range;

use crate::array::{Array, BinaryOp};
use crate::error::Result;
use crate::primitives::Prim;
use crate::sharding::{NamedSharding, Placement};

/// The partials of `out`, the result of `prim` on `ins`, when its placement
/// is unreduced and the operation fixes them; None otherwise.
pub fn derive(prim: &Prim, ins: &[Array], out: &Array) -> Result<Option<Vec<Array>>> {
    let Some(Placement::Named(target)) = out.placement() else {
        return Ok(None);
    };
    if target.spec.unreduced.is_empty() {
        return Ok(None);
    }
    match prim {
        Prim::ShardingConstraint(_) => match ins.first() {
            Some(x) => resharded(x, target),
            None => Ok(None),
        },
        Prim::DotGeneral {
            contracting, batch, ..
        } => match ins {
            [lhs, rhs] => local_products(lhs, rhs, contracting, batch, target),
            _ => Ok(None),
        },
        Prim::Binary(BinaryOp::Add) => match ins {
            [x, y] => match (x.partials(), y.partials()) {
                (Some(a), Some(b)) if a.len() == b.len() => a
                    .iter()
                    .zip(b)
                    .map(|(p, q)| p.binary(BinaryOp::Add, q))
                    .collect::<Result<Vec<_>>>()
                    .map(Some),
                _ => Ok(None),
            },
            _ => Ok(None),
        },
        Prim::Transpose(perm) => match ins.first().and_then(Array::partials) {
            Some(parts) => parts
                .iter()
                .map(|p| p.transpose(perm))
                .collect::<Result<Vec<_>>>()
                .map(Some),
            None => Ok(None),
        },
        _ => Ok(None),
    }
}

/// The partials of `x` moved to `target`: an array already unreduced the
/// same way keeps them; an array split over every unreduced axis leaves
/// each device its own block, zeros elsewhere.
pub fn resharded(x: &Array, target: &NamedSharding) -> Result<Option<Vec<Array>>> {
    let Some(Placement::Named(source)) = x.placement() else {
        return Ok(None);
    };
    if source == target {
        return Ok(x.partials().map(<[Array]>::to_vec));
    }
    let split = source.spec.used_axes();
    let covered = target
        .spec
        .unreduced
        .iter()
        .all(|a| split.contains(&a.as_str()));
    if source.mesh != target.mesh || !source.spec.unreduced.is_empty() || !covered {
        return Ok(None);
    }
    let whole = x.clone().with_placement(None);
    let mut out = vec![];
    for p in 0..target.mesh.size() {
        let region = target.shard_slices(p, x.shape())?;
        let block = source.shard_slices(p, x.shape())?;
        out.push(masked(&whole, &region, &block)?);
    }
    Ok(Some(out))
}

/// `x` (split over `sharding`) kept only in the block the device at mesh
/// `position` holds along the `unreduced` axes, zero elsewhere: the
/// operand of that device's local product in a contraction over those
/// axes. None when a dimension mixes unreduced axes with others.
pub fn own_block(
    x: &Array,
    sharding: &NamedSharding,
    unreduced: &std::collections::BTreeSet<String>,
    position: usize,
) -> Result<Option<Array>> {
    let mut block = vec![];
    for (d, &n) in x.shape().iter().enumerate() {
        let axes = sharding.spec.axes_of(d);
        let ours = axes.iter().filter(|a| unreduced.contains(*a)).count();
        if ours == 0 {
            block.push(0..n);
            continue;
        }
        if ours != axes.len() {
            return Ok(None);
        }
        let k = sharding.mesh.axes_size(axes)?;
        let i = sharding.mesh.index_along(position, axes)?;
        block.push(i * n / k..(i + 1) * n / k);
    }
    let full: Vec<Range<usize>> = x.shape().iter().map(|&n| 0..n).collect();
    masked(&x.clone().with_placement(None), &full, &block).map(Some)
}

/// The part `region` of `whole`, zero outside `block`.
fn masked(whole: &Array, region: &[Range<usize>], block: &[Range<usize>]) -> Result<Array> {
    let shape: Vec<usize> = region.iter().map(|r| r.len()).collect();
    let mut out = Array::zeros(&shape, whole.dtype());
    let lo: Vec<usize> = region
        .iter()
        .zip(block)
        .map(|(r, b)| r.start.max(b.start))
        .collect();
    let hi: Vec<usize> = region
        .iter()
        .zip(block)
        .map(|(r, b)| r.end.min(b.end))
        .collect();
    if lo.iter().zip(&hi).any(|(l, h)| l >= h) {
        return Ok(out);
    }
    let piece = whole.slice(&lo, &hi, None)?;
    let starts: Vec<i64> = lo
        .iter()
        .zip(region)
        .map(|(l, r)| (l - r.start) as i64)
        .collect();
    out = out.dynamic_update_slice(&piece, &starts)?;
    Ok(out)
}

/// Each device's product of its blocks of `lhs` and `rhs`, when those
/// blocks are what `target` gives it of the result (its free dimensions
/// split as the operands' are).
fn local_products(
    lhs: &Array,
    rhs: &Array,
    contracting: &(Vec<usize>, Vec<usize>),
    batch: &(Vec<usize>, Vec<usize>),
    target: &NamedSharding,
) -> Result<Option<Vec<Array>>> {
    let (Some(Placement::Named(ls)), Some(Placement::Named(rs))) =
        (lhs.placement(), rhs.placement())
    else {
        return Ok(None);
    };
    if ls.mesh != target.mesh || rs.mesh != target.mesh {
        return Ok(None);
    }
    let free = |n: usize, c: &[usize], b: &[usize]| -> Vec<usize> {
        (0..n)
            .filter(|d| !c.contains(d) && !b.contains(d))
            .collect()
    };
    let lf = free(lhs.ndim(), &contracting.0, &batch.0);
    let rf = free(rhs.ndim(), &contracting.1, &batch.1);
    let expected: Vec<Vec<String>> = batch
        .0
        .iter()
        .chain(&lf)
        .map(|&d| ls.spec.axes_of(d).to_vec())
        .chain(rf.iter().map(|&d| rs.spec.axes_of(d).to_vec()))
        .collect();
    let wanted: Vec<Vec<String>> = (0..expected.len())
        .map(|d| target.spec.axes_of(d).to_vec())
        .collect();
    if expected != wanted {
        return Ok(None);
    }
    let lparts = ls.split(&lhs.clone().with_placement(None))?;
    let rparts = rs.split(&rhs.clone().with_placement(None))?;
    lparts
        .iter()
        .zip(&rparts)
        .map(|(l, r)| {
            Array::dot_general(l, r, (&contracting.0, &contracting.1), (&batch.0, &batch.1))
        })
        .collect::<Result<Vec<_>>>()
        .map(Some)
}
