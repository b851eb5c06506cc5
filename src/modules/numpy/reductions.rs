//! Reductions: `sum`, `prod`, `max`, `min`, `any`, `all`, `mean`, `var`,
//! `std`, `argmax`, `argmin`.

use crate::array::{DType, ReduceOp};
use crate::error::Result;
use crate::ops as jops;
use crate::python::array::reshape_value;
use crate::python::builtins::to_int;
use crate::python::value::{Args, Obj};

use super::super::Builder;
use super::{arr, axes_arg, keepdims};

/// Adds the reductions to `b`.
pub(super) fn register(b: &mut Builder) {
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
}

fn reduction(op: ReduceOp, a: &Args, func: &str) -> Result<Obj> {
    let x = arr(a, 0, "a", func)?;
    let axes = axes_arg(a, Some(1))?;
    let r = jops::reduce(op, &x, axes.as_deref(), keepdims(a, None)?)?;
    Ok(Obj::Array(r))
}

fn mean(a: &Args) -> Result<Obj> {
    let x = arr(a, 0, "a", "mean")?;
    let axes = axes_arg(a, Some(1))?;
    Ok(Obj::Array(jops::mean(
        &x,
        axes.as_deref(),
        keepdims(a, None)?,
    )?))
}

fn var(a: &Args, sqrt: bool) -> Result<Obj> {
    let x = arr(a, 0, "a", "var")?;
    let x = jops::convert(&x, DType::F32)?;
    let axes = axes_arg(a, Some(1))?;
    let m = jops::mean(&x, axes.as_deref(), true)?;
    let d = jops::sub(&x, &m)?;
    let v = jops::mean(&jops::mul(&d, &d)?, axes.as_deref(), keepdims(a, None)?)?;
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
