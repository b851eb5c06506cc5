//! `nonzero`, `argwhere`, `flatnonzero` and one-argument `where`: the
//! positions of the nonzero elements.
//!
//! The result's length is the count of nonzero elements, which a traced
//! array does not know: under a transformation `size=` must give it (JAX's
//! concretization error otherwise), and `fill_value` fills the places past
//! the count. The positions come from one stable sort that moves the
//! nonzero elements' flat indices first, so the same composition runs
//! eagerly, under jit and under vmap.

use crate::array::{DType, ReduceOp};
use crate::bail;
use crate::error::Result;
use crate::ops as jops;
use crate::python::array::{reshape_value, to_value};
use crate::python::builtins::to_int;
use crate::python::ops::iterate;
use crate::python::value::{Args, Obj};
use crate::trace::{Conversion, Value};

use super::super::Builder;
use super::arr;
use super::compose::{array_tuple, iota, reduce, where_v};

/// Adds `nonzero`, `argwhere` and `flatnonzero` to `b`.
pub(super) fn register(b: &mut Builder) {
    b.func("nonzero", |_, a| {
        let x = arr(&a, 0, "a", "nonzero")?;
        Ok(array_tuple(nonzero_args(&x, &a, "nonzero")?))
    });
    b.func("argwhere", |_, a| argwhere(&a));
    b.func("flatnonzero", |_, a| {
        let x = arr(&a, 0, "a", "flatnonzero")?;
        let flat = reshape_value(&x, &[-1])?;
        let mut out = nonzero_args(&flat, &a, "nonzero")?;
        Ok(Obj::Array(out.remove(0)))
    });
}

/// `jnp.where(condition)`: `nonzero(condition)`, with its `size` and
/// `fill_value`.
pub(super) fn where_one(c: &Value, a: &Args) -> Result<Obj> {
    Ok(array_tuple(nonzero_args(c, a, "nonzero")?))
}

/// `nonzero` of `x` with the `size` and `fill_value` keywords of `a`.
fn nonzero_args(x: &Value, a: &Args, name: &str) -> Result<Vec<Value>> {
    let size = a.opt(None, "size");
    let size = match size {
        None => None,
        Some(Obj::Array(v)) => {
            let c = v.concrete_for(Conversion::Concrete(format!(
                "The size argument of jnp.{name} must be statically specified to use \
                 jnp.{name} within JAX transformations."
            )))?;
            Some(c.get_f64(0) as i64)
        }
        Some(o) => Some(to_int(&o)?),
    };
    let fill = match a.opt(None, "fill_value") {
        None => None,
        Some(o @ (Obj::Tuple(_) | Obj::List(_))) => Some(iterate(&o)?),
        Some(o) => Some(vec![o]),
    };
    nonzero(x, size, fill, name)
}

/// The indices of `x`'s nonzero elements, one int32 array per dimension.
fn nonzero(x: &Value, size: Option<i64>, fill: Option<Vec<Obj>>, name: &str) -> Result<Vec<Value>> {
    let shape = x.shape();
    if shape.is_empty() {
        bail!(
            ValueError,
            "Calling nonzero on 0d arrays is not allowed. Use jnp.atleast_1d(scalar).nonzero() \
             instead. If this is being called from jnp.where, use jnp.where(jnp.atleast_1d(cond)) \
             instead."
        );
    }
    let n: usize = shape.iter().product();
    let flat = jops::reshape(x, &[n])?;
    let mask = jops::not_equal(&flat, &jops::scalar(0.0, x.dtype()))?;
    let count = reduce(
        ReduceOp::Sum,
        &jops::convert(&mask, DType::I32)?,
        None,
        false,
    )?;
    let size = match size {
        Some(s) if s < 0 => bail!(ValueError, "negative dimensions are not allowed"),
        Some(s) => s as usize,
        None => {
            let c = count.concrete_for(Conversion::Concrete(format!(
                "The size argument of jnp.{name} must be statically specified to use \
                 jnp.{name} within JAX transformations."
            )))?;
            c.get_f64(0) as usize
        }
    };
    let fills = fill_values(fill, shape.len())?;
    let flat_idx = first_positions(&mask, n, size)?;
    let valid = jops::less(&iota(&[size], 0)?, &count)?;
    let mut out = vec![];
    let mut stride = n;
    for (d, &dim) in shape.iter().enumerate() {
        stride /= dim.max(1);
        let coord = jops::binary(
            crate::array::BinaryOp::FloorDiv,
            &flat_idx,
            &jops::scalar(stride.max(1) as f64, DType::I32),
        )?;
        let coord = jops::binary(
            crate::array::BinaryOp::Rem,
            &coord,
            &jops::scalar(dim.max(1) as f64, DType::I32),
        )?;
        out.push(where_v(&valid, &coord, &fills[d])?);
    }
    Ok(out)
}

/// The flat indices of the first `size` true elements of the 1-D `mask`
/// (of length `n`), in order, padded with zeros past `n`.
fn first_positions(mask: &Value, n: usize, size: usize) -> Result<Value> {
    let key = jops::convert(&super::compose::not(mask)?, DType::I32)?;
    let idx = iota(&[n], 0)?;
    let sorted = crate::trace::bind(crate::primitives::Prim::Sort { dimension: 0 }, &[key, idx])?;
    let idx = sorted[1].clone();
    let k = size.min(n);
    let idx = jops::slice(&idx, &[0], &[k], &[1])?;
    match size > n {
        true => jops::pad(&idx, &[0], &[size - n]),
        false => Ok(idx),
    }
}

/// `fill_value` as one int32 scalar per dimension (0 when not given).
fn fill_values(fill: Option<Vec<Obj>>, ndim: usize) -> Result<Vec<Value>> {
    let Some(items) = fill else {
        return Ok(vec![jops::scalar(0.0, DType::I32); ndim]);
    };
    let items = match items.len() {
        1 => vec![items[0].clone(); ndim],
        k if k == ndim => items,
        k => bail!(
            ValueError,
            "fill_value must be a scalar or a tuple of length {ndim}; got {k}"
        ),
    };
    items
        .iter()
        .map(|o| {
            let v = to_value(o)?;
            if !v.shape().is_empty() {
                bail!(
                    ValueError,
                    "fill_value must be a scalar or a tuple of length {ndim}"
                );
            }
            jops::astype(&v, DType::I32)
        })
        .collect()
}

/// `argwhere(a, *, size=None, fill_value=None)`: the nonzero positions as
/// rows of an `(count, ndim)` array.
fn argwhere(a: &Args) -> Result<Obj> {
    let x = arr(a, 0, "a", "argwhere")?;
    let scalar = x.ndim() == 0;
    let x = match scalar {
        true => jops::reshape(&x, &[1])?,
        false => x,
    };
    let cols = nonzero_args(&x, a, "nonzero")?;
    let out = jops::stack(&cols, 1)?;
    if !scalar {
        return Ok(Obj::Array(out));
    }
    let rows = out.shape()[0];
    let empty = jops::slice(&out, &[0, 0], &[0, 1], &[1, 1])?;
    Ok(Obj::Array(jops::reshape(&empty, &[rows, 0])?))
}
