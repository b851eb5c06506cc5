//! Reductions: `sum`, `prod`, `max`, `min`, `any`, `all`, `mean`, `var`,
//! `std`, `argmax`, `argmin`, the running `cumsum` and `cumprod`, and `diff`.

use crate::array::{DType, ReduceOp};
use crate::bail;
use crate::error::Result;
use crate::ops as jops;
use crate::primitives::CumOp;
use crate::python::array::reshape_value;
use crate::python::builtins::to_int;
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};
use crate::trace::Value;

use super::super::Builder;
use super::{arr, axes_arg, dtype_arg, keepdims};

/// Adds the reductions to `b`.
pub(super) fn register(b: &mut Builder) {
    b.func("sort", |_, a| sort(&a, false));
    b.func("argsort", |_, a| sort(&a, true));
    b.func("sum", |_, a| reduction(ReduceOp::Sum, &a, "sum"));
    b.func("prod", |_, a| reduction(ReduceOp::Prod, &a, "prod"));
    b.func("max", |_, a| reduction(ReduceOp::Max, &a, "max"));
    b.func("amax", |_, a| reduction(ReduceOp::Max, &a, "max"));
    b.func("min", |_, a| reduction(ReduceOp::Min, &a, "min"));
    b.func("amin", |_, a| reduction(ReduceOp::Min, &a, "min"));
    b.func("any", |_, a| reduction(ReduceOp::Any, &a, "any"));
    b.func("all", |_, a| reduction(ReduceOp::All, &a, "all"));
    b.func("mean", |_, a| mean(&a));
    b.func("var", |_, a| var(&a, false));
    b.func("std", |_, a| var(&a, true));
    b.func("argmax", |_, a| arg_reduce(&a, false));
    b.func("argmin", |_, a| arg_reduce(&a, true));
    b.func("cumsum", |_, a| cumulative(&a, CumOp::Sum, "cumsum"));
    b.func("cumprod", |_, a| cumulative(&a, CumOp::Prod, "cumprod"));
    b.func("diff", |i, a| diff(i, &a));
}

fn reduction(op: ReduceOp, a: &Args, func: &str) -> Result<Obj> {
    let x = arr(a, 0, "a", func)?;
    let axes = axes_arg(a, Some(1))?;
    let keep = keepdims(a, None)?;
    let masks = super::nan_reductions::Masks::from_args(a)?;
    let d = x.dtype();
    if !matches!(op, ReduceOp::Sum | ReduceOp::Prod) || !d.is_narrow() {
        let r = super::nan_reductions::masked_reduce(op, &x, axes.as_deref(), keep, &masks)?;
        return Ok(Obj::Array(r));
    }
    if masks.where_.is_some() || masks.initial.is_some() {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jnp.{func} of {} with where= or initial=",
            d.name()
        );
    }
    // jnp sums a narrow float in float32 and rounds the result back; a
    // narrow integer sums as int32 (uint32 when unsigned), as JAX does.
    let wide = match d {
        d if d.is_float() => DType::F32,
        d if d.is_unsigned() => DType::U32,
        _ => DType::I32,
    };
    let r = jops::reduce(op, &jops::convert(&x, wide)?, axes.as_deref(), keep)?;
    Ok(Obj::Array(if d.is_float() {
        jops::convert(&r, d)?
    } else {
        r
    }))
}

fn mean(a: &Args) -> Result<Obj> {
    let x = arr(a, 0, "a", "mean")?;
    let axes = axes_arg(a, Some(1))?;
    if let Some(w) = a.opt(None, "where") {
        return masked_mean(&x, &w, axes.as_deref(), keepdims(a, None)?);
    }
    Ok(Obj::Array(jops::mean(
        &x,
        axes.as_deref(),
        keepdims(a, None)?,
    )?))
}

/// `mean(a, axis, where=mask)`: the masked sum over the count of the
/// mask's true elements, as JAX divides them.
fn masked_mean(x: &Value, w: &Obj, axes: Option<&[i64]>, keep: bool) -> Result<Obj> {
    let x = super::compose::to_inexact(x)?;
    let w = crate::python::array::to_value(w)?;
    let masks = super::nan_reductions::Masks {
        where_: Some(w.clone()),
        initial: None,
    };
    let total = super::nan_reductions::masked_reduce(ReduceOp::Sum, &x, axes, keep, &masks)?;
    let count = jops::convert(&jops::broadcast_to(&w, &x.shape())?, x.dtype())?;
    let count = jops::reduce(ReduceOp::Sum, &count, axes, keep)?;
    Ok(Obj::Array(jops::div(&total, &count)?))
}

fn var(a: &Args, sqrt: bool) -> Result<Obj> {
    let x = arr(a, 0, "a", "var")?;
    let narrow = Some(x.dtype()).filter(|d| d.is_narrow() && d.is_float());
    let x = jops::convert(&x, DType::F32)?;
    let axes = axes_arg(a, Some(1))?;
    let m = jops::mean(&x, axes.as_deref(), true)?;
    let d = jops::sub(&x, &m)?;
    let ddof = match a.opt(Some(4), "ddof") {
        Some(o) => to_int(&o)?,
        None => 0,
    };
    let v = if ddof == 0 {
        jops::mean(&jops::mul(&d, &d)?, axes.as_deref(), keepdims(a, None)?)?
    } else {
        // The sum of squares over the count less `ddof`, as JAX divides.
        let shape = x.shape();
        let n: usize = match axes.as_deref() {
            None => shape.iter().product(),
            Some(ax) => ax
                .iter()
                .map(|&d| jops::norm_axis(d, shape.len()).map(|d| shape[d]))
                .collect::<Result<Vec<_>>>()?
                .iter()
                .product(),
        };
        let sq = jops::reduce(
            ReduceOp::Sum,
            &jops::mul(&d, &d)?,
            axes.as_deref(),
            keepdims(a, None)?,
        )?;
        jops::div(&sq, &jops::scalar(n as f64 - ddof as f64, DType::F32))?
    };
    // A narrow float's variance is computed in float32 and rounded back.
    let v = match narrow {
        Some(n) => jops::convert(&v, n)?,
        None => v,
    };
    Ok(Obj::Array(if sqrt { jops::sqrt(&v)? } else { v }))
}

fn arg_reduce(a: &Args, min: bool) -> Result<Obj> {
    let x = arr(a, 0, "a", if min { "argmin" } else { "argmax" })?;
    let axis = a.opt(Some(1), "axis").map(|o| to_int(&o)).transpose()?;
    let keep = keepdims(a, None)?;
    let (x, axis) = match axis {
        Some(ax) => (x, Some(ax)),
        None => (reshape_value(&x, &[-1])?, Some(0)),
    };
    Ok(Obj::Array(jops::arg_reduce(&x, axis, keep, min)?))
}

/// `jnp.cumsum(a, axis=None, dtype=None)` and `cumprod`: `axis=None` scans
/// the flattened array; bool counts as int32, as in JAX.
pub(super) fn cumulative(a: &Args, op: CumOp, func: &str) -> Result<Obj> {
    let x = arr(a, 0, "a", func)?;
    let axis = a.opt(Some(1), "axis").filter(|o| !matches!(o, Obj::None));
    let (x, axis) = match axis {
        Some(ax) => {
            let ax = jops::norm_axis(to_int(&ax)?, x.ndim())?;
            (x, ax)
        }
        None => (reshape_value(&x, &[-1])?, 0),
    };
    let dtype = match dtype_arg(a, Some(2))? {
        Some(d) => d,
        None if x.dtype() == DType::Bool => DType::I32,
        None => x.dtype(),
    };
    let x = if x.dtype() == dtype {
        x
    } else {
        jops::convert(&x, dtype)?
    };
    Ok(Obj::Array(jops::cumulative(&x, op, axis, false)?))
}

/// `jnp.diff(a, n=1, axis=-1)`: differences of neighbours, `n` times.
/// `x` with diff's `prepend` and `append` joined along `axis`; a scalar is
/// broadcast to one slice of `x` first.
fn with_ends(interp: &mut Interp, a: &Args, x: Value, axis: usize) -> Result<Value> {
    let mut parts = vec![];
    for (k, name) in [(3, "prepend"), (4, "append")] {
        let Some(o) = a.opt(Some(k), name) else {
            continue;
        };
        let mut v = crate::python::array::to_value(&o)?;
        if v.ndim() == 0 {
            let mut shape = x.shape();
            shape[axis] = 1;
            v = jops::broadcast_to(&v, &shape)?;
        }
        parts.push((name, Obj::Array(v)));
    }
    if parts.is_empty() {
        return Ok(x);
    }
    let mut all = vec![Obj::Array(x)];
    for (name, v) in parts {
        match name {
            "prepend" => all.insert(0, v),
            _ => all.push(v),
        }
    }
    let f = super::jnp_function(interp, "concatenate")?;
    let kw = vec![("axis".to_string(), Obj::Int(axis as i64))];
    match interp.call(&f, Args::with(vec![Obj::list(all)], kw))? {
        Obj::Array(v) => Ok(v),
        _ => crate::bail!(TypeError, "concatenate returned a non-array"),
    }
}

fn diff(interp: &mut Interp, a: &Args) -> Result<Obj> {
    let mut x = arr(a, 0, "a", "diff")?;
    let n = a
        .opt(Some(1), "n")
        .map(|o| to_int(&o))
        .transpose()?
        .unwrap_or(1);
    let axis = a
        .opt(Some(2), "axis")
        .map(|o| to_int(&o))
        .transpose()?
        .unwrap_or(-1);
    if n < 0 {
        crate::bail!(ValueError, "order must be non-negative but got {n}");
    }
    if x.ndim() == 0 {
        crate::bail!(
            ValueError,
            "diff requires input that is at least one dimensional; got a"
        );
    }
    let axis = jops::norm_axis(axis, x.ndim())?;
    if n > 0 {
        x = with_ends(interp, a, x, axis)?;
    }
    for _ in 0..n {
        let shape = x.shape();
        let len = shape[axis];
        let part = |lo: usize, hi: usize| {
            let mut starts = vec![0; shape.len()];
            let mut limits = shape.clone();
            starts[axis] = lo;
            limits[axis] = hi;
            jops::slice(&x, &starts, &limits, &vec![1; shape.len()])
        };
        let hi = part(1, len.max(1))?;
        let lo = part(0, len.saturating_sub(1))?;
        x = if x.dtype() == DType::Bool {
            jops::binary(crate::array::BinaryOp::Ne, &hi, &lo)?
        } else {
            jops::sub(&hi, &lo)?
        };
    }
    Ok(Obj::Array(x))
}

/// `jnp.sort(a, axis=-1, *, stable=True, descending=False)` and
/// `jnp.argsort`: one stable `sort` along the axis (of the values, or of
/// the values with an int32 iota whose sorted copy is the result), NaN
/// last; `axis=None` sorts the flattened array; descending reverses the
/// line (before and after, for argsort, so equal elements keep their order).
fn sort(a: &Args, indices: bool) -> Result<Obj> {
    let func = if indices { "argsort" } else { "sort" };
    let x = arr(a, 0, "a", func)?;
    for name in ["kind", "order"] {
        if a.opt(None, name).is_some() {
            crate::bail!(
                TypeError,
                "'{name}' argument to {func} is not supported.{}",
                if name == "kind" {
                    " Use stable=True or stable=False to specify sort stability."
                } else {
                    ""
                }
            );
        }
    }
    let descending = match a.get(None, "descending") {
        Some(o) => crate::python::ops::truthy(&o, "descending")?,
        None => false,
    };
    let (x, axis) = match a.get(Some(1), "axis") {
        Some(Obj::None) => (jops::reshape(&x, &[x.shape().iter().product()])?, 0),
        Some(o) => (x.clone(), jops::norm_axis(to_int(&o)?, x.ndim())?),
        None if x.ndim() == 0 => crate::bail!(
            ValueError,
            "axis -1 is out of bounds for array of dimension 0"
        ),
        None => (x.clone(), x.ndim() - 1),
    };
    let prim = crate::primitives::Prim::Sort { dimension: axis };
    if !indices {
        let y = crate::trace::bind1(prim, &[x])?;
        return Ok(Obj::Array(if descending {
            jops::rev(&y, &[axis])?
        } else {
            y
        }));
    }
    let iota =
        crate::trace::Value::Concrete(crate::array::Array::iota(&x.shape(), axis, DType::I32)?);
    let (x, iota) = if descending {
        (jops::rev(&x, &[axis])?, jops::rev(&iota, &[axis])?)
    } else {
        (x, iota)
    };
    let outs = crate::trace::bind(prim, &[x, iota])?;
    let idx = outs[1].clone();
    Ok(Obj::Array(if descending {
        jops::rev(&idx, &[axis])?
    } else {
        idx
    }))
}
