//! `jax.lax`'s structural functions: `slice`, `slice_in_dim`,
//! `index_in_dim`, `pad` (negative and interior padding, any padding
//! value), `broadcast`, `broadcast_in_dim`, `broadcast_like`,
//! `stack`/`unstack`, `tile` and `optimization_barrier`.
//!
//! Each is written on the engine's `slice`, `broadcast_in_dim`,
//! `reshape` and `concatenate`, so it runs under jit, grad and vmap; where
//! JAX has one primitive (`pad` with a padding value or interior padding,
//! `tile`, `stack`, `unstack`, `optimization_barrier`) the jaxpr shows the
//! operations it is made of.

use crate::array::shape_tuple;
use crate::bail;
use crate::error::Result;
use crate::ops as jops;
use crate::python::array::to_value;
use crate::python::builtins::to_int;
use crate::python::ops::{iterate, truthy};
use crate::python::pytree::{flatten, unflatten};
use crate::python::value::{Args, Obj};
use crate::trace::Value;

use super::Builder;

/// Adds the functions to `b`.
pub(super) fn register(b: &mut Builder) {
    b.func("slice", |_, a| slice(&a));
    b.func("slice_in_dim", |_, a| slice_in_dim(&a));
    b.func("index_in_dim", |_, a| index_in_dim(&a));
    b.func("pad", |_, a| pad(&a));
    b.func("broadcast", |_, a| {
        let x = operand(&a, "broadcast")?;
        let mut shape = ints(&a.req(Some(1), "sizes", "broadcast")?)?;
        let n = shape.len();
        shape.extend(x.shape());
        let dims: Vec<usize> = (n..shape.len()).collect();
        Ok(Obj::Array(jops::broadcast_in_dim(&x, &shape, &dims)?))
    });
    b.func("broadcast_in_dim", |_, a| {
        let x = operand(&a, "broadcast_in_dim")?;
        let shape = ints(&a.req(Some(1), "shape", "broadcast_in_dim")?)?;
        let dims = ints(&a.req(Some(2), "broadcast_dimensions", "broadcast_in_dim")?)?;
        Ok(Obj::Array(broadcast_in_dim(&x, &shape, &dims)?))
    });
    b.func("broadcast_like", |_, a| {
        let x = to_value(&a.req(Some(0), "arr", "broadcast_like")?)?;
        let like = to_value(&a.req(Some(1), "like_arr", "broadcast_like")?)?;
        Ok(Obj::Array(jops::broadcast_to(&x, &like.shape())?))
    });
    b.func("stack", |_, a| {
        let xs = iterate(&a.req(Some(0), "operands", "stack")?)?
            .iter()
            .map(to_value)
            .collect::<Result<Vec<_>>>()?;
        let axis = a.opt(Some(1), "axis").map(|o| to_int(&o)).transpose()?;
        Ok(Obj::Array(jops::stack(&xs, axis.unwrap_or(0))?))
    });
    b.func("unstack", |_, a| unstack(&a));
    b.func("tile", |_, a| tile(&a));
    b.func("optimization_barrier", |i, a| {
        // A barrier orders computation for XLA; the values pass unchanged.
        let x = a.req(Some(0), "operand", "optimization_barrier")?;
        let (leaves, def) = flatten(i, &x)?;
        let out = leaves
            .iter()
            .map(|l| to_value(l).map(Obj::Array))
            .collect::<Result<Vec<_>>>()?;
        unflatten(i, &def, &out)
    });
}

/// `broadcast_in_dim` with the operand's dimensions in any order of the
/// output's: the operand is first transposed so they increase.
fn broadcast_in_dim(x: &Value, shape: &[usize], dims: &[usize]) -> Result<Value> {
    let mut order: Vec<usize> = (0..dims.len()).collect();
    order.sort_by_key(|&i| dims[i]);
    let sorted: Vec<usize> = order.iter().map(|&i| dims[i]).collect();
    let distinct = sorted.windows(2).all(|w| w[0] < w[1]);
    if !distinct || order.iter().enumerate().all(|(i, &o)| i == o) {
        return jops::broadcast_in_dim(x, shape, dims);
    }
    jops::broadcast_in_dim(&jops::transpose(x, &order)?, shape, &sorted)
}

fn operand(a: &Args, func: &str) -> Result<Value> {
    to_value(&a.req(Some(0), "operand", func)?)
}

pub(super) fn ints(o: &Obj) -> Result<Vec<usize>> {
    iterate(o)?
        .iter()
        .map(|i| {
            let v = to_int(i)?;
            usize::try_from(v).map_err(|_| crate::err!(ValueError, "negative dimension {v}"))
        })
        .collect()
}

/// `lax.slice(operand, start_indices, limit_indices, strides=None)`.
fn slice(a: &Args) -> Result<Obj> {
    let x = operand(a, "slice")?;
    let starts = ints(&a.req(Some(1), "start_indices", "slice")?)?;
    let limits = ints(&a.req(Some(2), "limit_indices", "slice")?)?;
    let strides = match a.opt(Some(3), "strides") {
        Some(o) => ints(&o)?,
        None => vec![1; x.ndim()],
    };
    check_slice(&x.shape(), &starts, &limits, &strides)?;
    Ok(Obj::Array(jops::slice(&x, &starts, &limits, &strides)?))
}

/// The checks of JAX's slice shape rule, with its messages.
fn check_slice(
    shape: &[usize],
    starts: &[usize],
    limits: &[usize],
    strides: &[usize],
) -> Result<()> {
    let t = |v: &[usize]| shape_tuple(v);
    if starts.len() != shape.len() || limits.len() != shape.len() {
        bail!(
            TypeError,
            "slice start_indices must have length equal to the number of dimensions of the operand, got indices {} for operand shape {}",
            t(starts),
            t(shape)
        );
    }
    if strides.len() != shape.len() {
        bail!(
            TypeError,
            "slice strides must have length equal to the number of dimensions of the operand, got strides {} for operand shape {}",
            t(strides),
            t(shape)
        );
    }
    if limits.iter().zip(shape).any(|(l, s)| l > s) {
        bail!(
            TypeError,
            "slice limit_indices must be less than or equal to operand shape, got limit_indices {} for operand shape {}.",
            t(limits),
            t(shape)
        );
    }
    if starts.iter().zip(limits).any(|(s, l)| s > l) {
        bail!(
            TypeError,
            "slice limit_indices must be greater than or equal to start_indices, got start_indices {} and limit_indices {}.",
            t(starts),
            t(limits)
        );
    }
    if strides.contains(&0) {
        bail!(
            TypeError,
            "slice strides must be positive, got {}",
            t(strides)
        );
    }
    Ok(())
}

/// An index of `n` elements, counted from the end when negative.
fn from_end(o: Option<Obj>, n: usize, default: usize) -> Result<usize> {
    match o {
        None => Ok(default),
        Some(o) => {
            let i = to_int(&o)?;
            let i = if i < 0 { i + n as i64 } else { i };
            Ok(i.max(0) as usize)
        }
    }
}

/// `lax.slice_in_dim(operand, start_index, limit_index, stride=1, axis=0)`.
fn slice_in_dim(a: &Args) -> Result<Obj> {
    let x = operand(a, "slice_in_dim")?;
    let shape = x.shape();
    let axis = a.opt(Some(4), "axis").map(|o| to_int(&o)).transpose()?;
    let axis = jops::norm_axis(axis.unwrap_or(0), shape.len())?;
    let n = shape[axis];
    let start = from_end(a.opt(Some(1), "start_index"), n, 0)?;
    let limit = from_end(a.opt(Some(2), "limit_index"), n, n)?;
    let stride = a.opt(Some(3), "stride").map(|o| to_int(&o)).transpose()?;
    let mut starts = vec![0; shape.len()];
    let mut limits = shape.clone();
    let mut strides = vec![1; shape.len()];
    starts[axis] = start;
    limits[axis] = limit;
    strides[axis] = stride.unwrap_or(1).max(0) as usize;
    check_slice(&shape, &starts, &limits, &strides)?;
    Ok(Obj::Array(jops::slice(&x, &starts, &limits, &strides)?))
}

/// Element `index` of `x` along `axis`, the axis kept with size one or
/// dropped.
fn index_at(x: &Value, index: usize, axis: usize, keepdims: bool) -> Result<Value> {
    let shape = x.shape();
    let mut starts = vec![0; shape.len()];
    let mut limits = shape.clone();
    starts[axis] = index;
    limits[axis] = index + 1;
    let y = jops::slice(x, &starts, &limits, &vec![1; shape.len()])?;
    if keepdims {
        return Ok(y);
    }
    let mut out = shape;
    out.remove(axis);
    jops::reshape(&y, &out)
}

/// `lax.index_in_dim(operand, index, axis=0, keepdims=True)`.
fn index_in_dim(a: &Args) -> Result<Obj> {
    let x = operand(a, "index_in_dim")?;
    let shape = x.shape();
    let axis = a.opt(Some(2), "axis").map(|o| to_int(&o)).transpose()?;
    let axis = jops::norm_axis(axis.unwrap_or(0), shape.len())?;
    let index = to_int(&a.req(Some(1), "index", "index_in_dim")?)?;
    let n = shape[axis] as i64;
    let at = if index < 0 { index + n } else { index };
    if at < 0 || at >= n {
        bail!(
            IndexError,
            "index {index} is out of bounds for axis {axis} with size {n}"
        );
    }
    let keepdims = match a.opt(Some(3), "keepdims") {
        Some(o) => truthy(&o, "keepdims")?,
        None => true,
    };
    Ok(Obj::Array(index_at(&x, at as usize, axis, keepdims)?))
}

/// `lax.unstack(x, axis=0)`: the tuple of `x`'s slices along `axis`.
fn unstack(a: &Args) -> Result<Obj> {
    let x = to_value(&a.req(Some(0), "x", "unstack")?)?;
    let axis = a.opt(Some(1), "axis").map(|o| to_int(&o)).transpose()?;
    let axis = jops::norm_axis(axis.unwrap_or(0), x.ndim())?;
    let parts = (0..x.shape()[axis])
        .map(|i| index_at(&x, i, axis, false).map(Obj::Array))
        .collect::<Result<Vec<_>>>()?;
    Ok(Obj::tuple(parts))
}

/// `lax.tile(operand, reps)`: each dimension `n` with `r` repeats is
/// broadcast to `(r, n)` and the pairs merged.
fn tile(a: &Args) -> Result<Obj> {
    let x = operand(a, "tile")?;
    let reps = ints(&a.req(Some(1), "reps", "tile")?)?;
    let shape = x.shape();
    if reps.len() != shape.len() {
        bail!(
            ValueError,
            "len(reps) must be equal to operand.ndim, got reps={} for operand.shape={}",
            shape_tuple(&reps),
            shape_tuple(&shape)
        );
    }
    let mut wide = vec![];
    let mut out = vec![];
    for (&r, &n) in reps.iter().zip(&shape) {
        wide.extend([r, n]);
        out.push(r * n);
    }
    let dims: Vec<usize> = (0..shape.len()).map(|d| 2 * d + 1).collect();
    let y = jops::broadcast_in_dim(&x, &wide, &dims)?;
    Ok(Obj::Array(jops::reshape(&y, &out)?))
}

/// `lax.pad(operand, padding_value, padding_config)` with `(low, high,
/// interior)` per dimension; negative low or high padding removes
/// elements.
fn pad(a: &Args) -> Result<Obj> {
    let x = operand(a, "pad")?;
    let v = to_value(&a.req(Some(1), "padding_value", "pad")?)?;
    if v.ndim() != 0 {
        bail!(TypeError, "padding_value must be a scalar");
    }
    if v.dtype() != x.dtype() {
        bail!(
            TypeError,
            "pad operand and padding_value must be same dtype: got {} and {}.",
            x.dtype().name(),
            v.dtype().name()
        );
    }
    let config = iterate(&a.req(Some(2), "padding_config", "pad")?)?;
    if config.len() != x.ndim() {
        bail!(
            ValueError,
            "length of padding_config must equal the number of axes of operand, got padding_config {} for operand shape {}",
            crate::python::format::repr_of(&a.req(Some(2), "padding_config", "pad")?),
            shape_tuple(&x.shape())
        );
    }
    let mut y = x;
    for (d, c) in config.iter().enumerate() {
        let c = iterate(c)?.iter().map(to_int).collect::<Result<Vec<_>>>()?;
        let [lo, hi, interior] = c[..] else {
            bail!(
                ValueError,
                "padding_config entries must be (low, high, interior)"
            );
        };
        if interior < 0 {
            bail!(
                ValueError,
                "interior padding in padding_config must be nonnegative, got padding_config {}",
                crate::python::format::repr_of(&a.req(Some(2), "padding_config", "pad")?)
            );
        }
        y = pad_axis(&y, &v, d, lo, hi, interior as usize)?;
    }
    Ok(Obj::Array(y))
}

/// `x` padded along axis `d` with `v`.
fn pad_axis(x: &Value, v: &Value, d: usize, lo: i64, hi: i64, interior: usize) -> Result<Value> {
    let mut y = x.clone();
    let n = x.shape()[d];
    if interior > 0 && n > 1 {
        // Each element followed by `interior` fills, the last fills cut off.
        let mut wide = x.shape();
        wide.insert(d + 1, 1);
        let one = jops::reshape(x, &wide)?;
        wide[d + 1] = interior;
        let gap = fill(v, &wide)?;
        let joined = jops::concatenate(&[one, gap], (d + 1) as i64)?;
        let mut flat = x.shape();
        flat[d] = n * (interior + 1);
        y = slice_axis(
            &jops::reshape(&joined, &flat)?,
            d,
            0,
            n + (n - 1) * interior,
        )?;
    }
    for (amount, front) in [(lo, true), (hi, false)] {
        let len = y.shape()[d];
        if amount > 0 {
            let mut s = y.shape();
            s[d] = amount as usize;
            let block = fill(v, &s)?;
            let parts = if front { [block, y] } else { [y, block] };
            y = jops::concatenate(&parts, d as i64)?;
        } else if amount < 0 {
            let cut = (-amount) as usize;
            if cut > len {
                bail!(
                    ValueError,
                    "Dimension size after padding is not at least 0, got result shape with a negative size along axis {d}"
                );
            }
            y = if front {
                slice_axis(&y, d, cut, len)?
            } else {
                slice_axis(&y, d, 0, len - cut)?
            };
        }
    }
    Ok(y)
}

fn fill(v: &Value, shape: &[usize]) -> Result<Value> {
    jops::broadcast_in_dim(v, shape, &[])
}

fn slice_axis(x: &Value, d: usize, start: usize, limit: usize) -> Result<Value> {
    let shape = x.shape();
    let mut starts = vec![0; shape.len()];
    let mut limits = shape.clone();
    starts[d] = start;
    limits[d] = limit;
    jops::slice(x, &starts, &limits, &vec![1; shape.len()])
}
