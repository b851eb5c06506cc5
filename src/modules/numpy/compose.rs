//! Building blocks of jnp's composite functions (the NaN-aware reductions,
//! quantiles, index builders): each is one or two lax operations, named as
//! jnp names them, so the compositions read as JAX writes them.

use crate::array::{DType, ReduceOp};
use crate::error::Result;
use crate::ops as jops;
use crate::python::array::to_value;
use crate::python::builtins::to_int;
use crate::python::value::{Args, Obj};
use crate::trace::Value;

/// Floating or complex: the dtypes that can hold NaN.
pub(super) fn inexact(dtype: DType) -> bool {
    matches!(dtype, DType::F32 | DType::C64)
}

/// `x` promoted to an inexact dtype, as jnp's `promote_args_inexact`:
/// integers and bools become float32 (keeping a Python scalar weak).
pub(super) fn to_inexact(x: &Value) -> Result<Value> {
    match inexact(x.dtype()) {
        true => Ok(x.clone()),
        false => jops::convert(x, DType::F32),
    }
}

/// `isnan(x)`, as lax computes it: `x != x`.
pub(super) fn isnan(x: &Value) -> Result<Value> {
    jops::not_equal(x, x)
}

/// A scalar of `x`'s dtype, weakly typed when `x` is (`lax._const(x, v)`),
/// so that a Python scalar's result stays weak.
pub(super) fn like(x: &Value, v: f64) -> Value {
    Value::Concrete(crate::array::Array::full(&[], v, x.dtype()).with_weak(x.aval().weak))
}

/// `jnp.where(c, x, y)`.
pub(super) fn where_v(c: &Value, x: &Value, y: &Value) -> Result<Value> {
    super::elementwise::where_values(c.clone(), x.clone(), y.clone())
}

/// A reduction with jnp's `keepdims`.
pub(super) fn reduce(op: ReduceOp, x: &Value, axes: Option<&[i64]>, keep: bool) -> Result<Value> {
    jops::reduce(op, x, axes, keep)
}

/// Elementwise logical not (`lax.bitwise_not` of a bool array).
pub(super) fn not(x: &Value) -> Result<Value> {
    jops::unary(crate::array::UnaryOp::Not, x)
}

/// An optional int argument.
pub(super) fn opt_int(a: &Args, index: Option<usize>, name: &str) -> Result<Option<i64>> {
    a.opt(index, name).map(|o| to_int(&o)).transpose()
}

/// A bool argument, `default` when missing or None.
pub(super) fn flag(a: &Args, index: Option<usize>, name: &str, default: bool) -> Result<bool> {
    match a.opt(index, name) {
        None => Ok(default),
        Some(o) => crate::python::ops::truthy(&o, name),
    }
}

/// Refuses, by name, an argument that shardlab does not implement yet.
pub(super) fn refuse_args(a: &Args, func: &str, names: &[(&str, Option<usize>)]) -> Result<()> {
    for &(name, index) in names {
        if a.opt(index, name).is_some() {
            crate::bail!(
                NotImplementedError,
                "not supported by shardlab yet: jax.numpy.{func} with {name}="
            );
        }
    }
    Ok(())
}

/// `lax.iota` of int32 along `dim` of `shape`.
pub(super) fn iota(shape: &[usize], dim: usize) -> Result<Value> {
    Ok(Value::Concrete(crate::array::Array::iota(
        shape,
        dim,
        DType::I32,
    )?))
}

/// A list of arrays as a Python list.
pub(super) fn array_list(vs: Vec<Value>) -> Obj {
    Obj::list(vs.into_iter().map(Obj::Array).collect())
}

/// A tuple of arrays as a Python tuple.
pub(super) fn array_tuple(vs: Vec<Value>) -> Obj {
    Obj::tuple(vs.into_iter().map(Obj::Array).collect())
}

/// Two operands converted to the dtype jnp's promotion gives them, their
/// shapes left as they are (for functions that do not broadcast them).
pub(super) fn promoted(x: &Obj, y: &Obj) -> Result<(Value, Value)> {
    let (x, y) = (to_value(x)?, to_value(y)?);
    let (ax, ay) = (x.aval(), y.aval());
    let (dtype, weak) = ax.dtype.join(ax.weak, ay.dtype, ay.weak);
    Ok((
        jops::convert_weak(&x, dtype, weak)?,
        jops::convert_weak(&y, dtype, weak)?,
    ))
}
