//! NumPy's advanced indexing with several integer indices at once:
//! `x[rows, cols]` pairs the index arrays element by element (broadcast
//! together), it does not take every combination. The indexed axes are
//! moved to the front and flattened into one, the indices combined into
//! one flat position, and a single `take` gathers; the indexed dimensions
//! land where NumPy puts them: in place of the indexed axes when those are
//! adjacent in the key, first otherwise.

use std::rc::Rc;

use crate::array::{BinaryOp, DType};
use crate::error::Result;
use crate::ops as jops;
use crate::trace::Value;

use super::array::Idx;
use super::value::Obj;

/// `x[idx]` for a key (with its ellipsis expanded) that holds at least one
/// integer array and another integer index, or None for any other key.
pub(super) fn combined(x: &Value, idx: &[Idx]) -> Result<Option<Value>> {
    let arrays = idx.iter().filter(|i| matches!(i, Idx::Take(_))).count();
    let advanced: Vec<usize> = (0..idx.len())
        .filter(|&p| matches!(idx[p], Idx::Take(_) | Idx::Int(_) | Idx::Dynamic(_)))
        .collect();
    let masked = idx.iter().any(|i| matches!(i, Idx::Mask { .. }));
    if arrays == 0 || advanced.len() < 2 || masked {
        return Ok(None);
    }
    let shape = x.shape();
    // The axis each key entry indexes (a new axis indexes none).
    let mut axis_of = vec![];
    let mut ax = 0usize;
    for i in idx {
        axis_of.push(ax);
        if !matches!(i, Idx::NewAxis | Idx::Ellipsis) {
            ax += 1;
        }
    }
    let adv_axes: Vec<usize> = advanced.iter().map(|&p| axis_of[p]).collect();
    let mut perm = adv_axes.clone();
    perm.extend((0..shape.len()).filter(|a| !adv_axes.contains(a)));
    let moved = jops::transpose(x, &perm)?;
    let dims: Vec<usize> = adv_axes.iter().map(|&a| shape[a]).collect();
    let rest: Vec<usize> = perm[adv_axes.len()..].iter().map(|&a| shape[a]).collect();
    let mut flat_shape = vec![dims.iter().product()];
    flat_shape.extend(&rest);
    let flat_x = jops::reshape(&moved, &flat_shape)?;
    let flat = flat_position(idx, &advanced, &dims)?;
    let batch = flat.ndim();
    let gathered = jops::take(&flat_x, &flat, 0)?;
    // The other entries index what is left, after the gathered axes.
    let full = || Obj::Slice(Rc::new([Obj::None, Obj::None, Obj::None]));
    let mut key: Vec<Obj> = (0..batch).map(|_| full()).collect();
    let mut before = 0usize;
    for (p, i) in idx.iter().enumerate() {
        match i {
            Idx::Slice(s) => key.push(Obj::Slice(s.clone())),
            Idx::NewAxis => key.push(Obj::None),
            _ => continue,
        }
        if p < advanced[0] {
            before += 1;
        }
    }
    let out = super::array::array_getitem(&gathered, &Obj::tuple(key))?;
    let adjacent = advanced.windows(2).all(|w| w[1] == w[0] + 1);
    if !adjacent || before == 0 {
        return Ok(Some(out));
    }
    let n = out.ndim();
    let mut order: Vec<usize> = (batch..batch + before).collect();
    order.extend(0..batch);
    order.extend(batch + before..n);
    Ok(Some(jops::transpose(&out, &order)?))
}

/// The flat position, over the indexed axes of sizes `dims`, of each
/// combination of the advanced indices (broadcast together); a negative
/// index counts from the end and one past either end is clamped, as
/// JAX's gathers do.
fn flat_position(idx: &[Idx], advanced: &[usize], dims: &[usize]) -> Result<Value> {
    let mut parts = vec![];
    for (&p, &d) in advanced.iter().zip(dims) {
        let v = match &idx[p] {
            Idx::Int(i) => jops::scalar(*i as f64, DType::I32),
            Idx::Dynamic(v) | Idx::Take(v) => jops::convert(v, DType::I32)?,
            _ => continue,
        };
        let size = jops::scalar(d as f64, DType::I32);
        let negative = jops::binary(BinaryOp::Lt, &v, &jops::scalar(0.0, DType::I32))?;
        let wrapped = jops::binary(BinaryOp::Add, &v, &size)?;
        let v = jops::select(&negative, &wrapped, &v)?;
        let hi = jops::scalar(d.saturating_sub(1) as f64, DType::I32);
        parts.push(jops::clamp(&jops::scalar(0.0, DType::I32), &v, &hi)?);
    }
    let mut shape: Vec<usize> = vec![];
    for v in &parts {
        shape = crate::array::broadcast::broadcast_shapes(&shape, &v.shape())?;
    }
    let mut flat = jops::broadcast_to(&jops::scalar(0.0, DType::I32), &shape)?;
    let mut stride = 1usize;
    for (v, &d) in parts.iter().zip(dims).rev() {
        let term = jops::binary(BinaryOp::Mul, v, &jops::scalar(stride as f64, DType::I32))?;
        flat = jops::binary(BinaryOp::Add, &flat, &jops::broadcast_to(&term, &shape)?)?;
        stride *= d;
    }
    Ok(flat)
}

/// `x.at[idx].add(v)` where `picked` (the flat positions `idx` selects,
/// -1 for a dropped one) names some position more than once: every update
/// is added, as JAX's scatter-add does, by one scatter-add of the kept
/// updates (`flat_v`, one per selected position). None when no position
/// repeats.
pub(super) fn add_repeated(
    x: &Value,
    picked: &crate::array::Array,
    flat_v: &Value,
) -> Result<Option<Value>> {
    let mut seen = std::collections::HashSet::new();
    let (mut at, mut from) = (vec![], vec![]);
    let mut repeated = false;
    for (k, p) in picked.to_f64_vec().into_iter().enumerate() {
        if p < 0.0 {
            continue;
        }
        repeated |= !seen.insert(p as i64);
        at.push(p as i32);
        from.push(k as i32);
    }
    if !repeated {
        return Ok(None);
    }
    let shape = x.shape();
    let size: usize = shape.iter().product();
    let n = at.len();
    let updates = jops::take(
        flat_v,
        &Value::Concrete(crate::array::Array::from_i32(&[n], from)?),
        0,
    )?;
    let at = Value::Concrete(crate::array::Array::from_i32(&[n], at)?);
    let delta = crate::trace::bind1(
        crate::primitives::Prim::ScatterAdd {
            axis: 0,
            shape: vec![size],
        },
        &[at, updates],
    )?;
    Ok(Some(jops::add(x, &jops::reshape(&delta, &shape)?)?))
}
