//! `jnp.partition`, `jnp.argpartition`, `jnp.sort_complex` and
//! `jnp.block`.
//!
//! JAX partitions with `lax.top_k`, which fixes the order on both sides of
//! the kth element: the `kth + 1` smallest come first in ascending order
//! (ties by position), then the rest in descending order for `partition`
//! and in position order for `argpartition`. A stable sort gives the same
//! elements in the same order, so that is what this does.

use crate::bail;
use crate::error::Result;
use crate::python::array::to_value;
use crate::python::builtins::to_int;
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};

use super::super::Builder;
use super::composed::{call, item, jnp, method, slice};

/// Adds the functions to `b`.
pub(super) fn register(b: &mut Builder) {
    b.func("partition", |i, a| split(i, a, "partition"));
    b.func("argpartition", |i, a| split(i, a, "argpartition"));
    b.func("sort_complex", sort_complex);
    b.func("block", |i, a| {
        let arrays = a.req(Some(0), "arrays", "block")?;
        Ok(block(i, arrays)?.0)
    });
}

fn last(index: Obj, ndim: usize) -> Obj {
    let mut items = vec![slice(None, None); ndim - 1];
    items.push(index);
    Obj::tuple(items)
}

/// `partition(a, kth, axis=-1)` or `argpartition(a, kth, axis=-1)`.
fn split(interp: &mut Interp, a: Args, func: &str) -> Result<Obj> {
    let i = interp;
    let x = a.req(Some(0), "a", func)?;
    if matches!(x, Obj::List(_) | Obj::Tuple(_)) {
        bail!(
            TypeError,
            "{func} requires ndarray or scalar arguments, got <class '{}'> at position 0.",
            x.type_name()
        );
    }
    let v = to_value(&x)?;
    let ndim = v.ndim();
    let axis = to_int(&a.get(Some(2), "axis").unwrap_or(Obj::Int(-1)))?;
    let axis = crate::ops::norm_axis(axis, ndim)? as i64;
    let n = v.shape()[axis as usize];
    let kth = to_int(&a.req(Some(1), "kth", func)?)?;
    let kth = crate::ops::norm_axis(kth, n)? as i64;
    let x = jnp(
        i,
        "swapaxes",
        vec![Obj::Array(v), Obj::Int(axis), Obj::Int(-1)],
    )?;
    let kw = || vec![("axis", Obj::Int(-1)), ("stable", Obj::Bool(true))];
    let order = call(i, "argsort", vec![x.clone()], kw())?;
    let low = item(i, &order, last(slice(None, Some(kth + 1)), ndim))?;
    let out = match func {
        "partition" => {
            let sorted = call(i, "sort", vec![x], vec![("axis", Obj::Int(-1))])?;
            let bottom = item(i, &sorted, last(slice(None, Some(kth + 1)), ndim))?;
            let rest = item(i, &sorted, last(slice(Some(kth + 1), None), ndim))?;
            let top = call(i, "flip", vec![rest], vec![("axis", Obj::Int(-1))])?;
            jnp(
                i,
                "concatenate",
                vec![Obj::list(vec![bottom, top]), Obj::Int(-1)],
            )?
        }
        _ => {
            // The other positions, in increasing order.
            let rest = item(i, &order, last(slice(Some(kth + 1), None), ndim))?;
            let high = call(i, "sort", vec![rest], vec![("axis", Obj::Int(-1))])?;
            jnp(
                i,
                "concatenate",
                vec![Obj::list(vec![low, high]), Obj::Int(-1)],
            )?
        }
    };
    jnp(i, "swapaxes", vec![out, Obj::Int(-1), Obj::Int(axis)])
}

/// `sort_complex(a)`: sorted along the last axis, as complex.
fn sort_complex(interp: &mut Interp, a: Args) -> Result<Obj> {
    let x = a.req(Some(0), "a", "sort_complex")?;
    if matches!(x, Obj::List(_) | Obj::Tuple(_)) {
        bail!(
            TypeError,
            "sort_complex requires ndarray or scalar arguments, got <class '{}'> at position 0.",
            x.type_name()
        );
    }
    let sorted = call(interp, "sort", vec![x], vec![("axis", Obj::Int(-1))])?;
    method(
        interp,
        &sorted,
        "astype",
        vec![Obj::DType(crate::array::DType::C64)],
    )
}

/// `block(arrays)`: nested lists of arrays joined innermost list first
/// along the last axis, each level out along the one before; returns the
/// array and the nesting depth.
fn block(interp: &mut Interp, xs: Obj) -> Result<(Obj, i64)> {
    let items = match &xs {
        Obj::Tuple(t) => {
            // JAX's `block` is jitted: the arrays it names are tracers.
            let names = t
                .iter()
                .map(|x| match x {
                    Obj::Array(v) => {
                        let dims: Vec<String> = v.shape().iter().map(|d| d.to_string()).collect();
                        Ok(format!(
                            "JitTracer({}[{}])",
                            v.dtype().name(),
                            dims.join(",")
                        ))
                    }
                    other => interp.repr(other),
                })
                .collect::<Result<Vec<_>>>()?;
            let text = match names.len() {
                1 => format!("({},)", names[0]),
                _ => format!("({})", names.join(", ")),
            };
            bail!(
                ValueError,
                "jax.numpy.block does not allow tuples, got {text}"
            );
        }
        Obj::List(l) => l.borrow().clone(),
        _ => return Ok((jnp(interp, "asarray", vec![xs])?, 1)),
    };
    if items.is_empty() {
        bail!(
            ValueError,
            "jax.numpy.block does not allow empty list arguments"
        );
    }
    let parts = items
        .into_iter()
        .map(|x| block(interp, x))
        .collect::<Result<Vec<_>>>()?;
    let depth = parts[0].1;
    if parts.iter().any(|p| p.1 != depth) {
        bail!(ValueError, "Mismatched list depths in jax.numpy.block");
    }
    let mut rank = depth as usize;
    for (p, _) in &parts {
        rank = rank.max(to_value(p)?.ndim());
    }
    let arrays = parts
        .into_iter()
        .map(|(p, _)| {
            let v = to_value(&p)?;
            let missing = rank - v.ndim();
            let mut shape = vec![1; missing];
            shape.extend(v.shape());
            Ok(Obj::Array(crate::ops::reshape(&v, &shape)?))
        })
        .collect::<Result<Vec<_>>>()?;
    let out = jnp(
        interp,
        "concatenate",
        vec![Obj::tuple(arrays), Obj::Int(-depth)],
    )?;
    Ok((out, depth + 1))
}
