//! Whole-array comparisons: `allclose`, `isclose`, `array_equal`.

use crate::array::{Array, DType, ReduceOp};
use crate::error::Result;
use crate::ops as jops;
use crate::python::array::operand_pair;
use crate::python::value::{Args, Obj};
use crate::trace::Value;

use super::super::Builder;
use super::arr;

/// Adds the comparisons to `b`. With `numpy`, `allclose` and `array_equal`
/// return Python bools, as NumPy does; JAX returns bool arrays.
pub(super) fn register(b: &mut Builder, numpy: bool) {
    b.func("allclose", move |_, a| {
        let v = close(&a, "allclose")?;
        if numpy {
            concrete_bool(v, "np.allclose")
        } else {
            Ok(Obj::Array(v))
        }
    });
    b.func("isclose", |_, a| isclose(&a));
    b.func("array_equal", move |_, a| {
        let v = array_equal(&a)?;
        if numpy {
            concrete_bool(v, "np.array_equal")
        } else {
            Ok(Obj::Array(v))
        }
    });
}

/// `|x - y| <= atol + rtol * |y|`, elementwise, in float32.
fn within_tolerance(x: &Value, y: &Value, rtol: f64, atol: f64) -> Result<Value> {
    let diff = jops::abs(&jops::sub(x, y)?)?;
    let tol = jops::add(
        &jops::scalar(atol, DType::F32),
        &jops::mul(&jops::scalar(rtol, DType::F32), &jops::abs(y)?)?,
    )?;
    jops::less_equal(&diff, &tol)
}

/// An operand compared as float32, or as complex64 when it is complex
/// (its distance is then the modulus of the difference).
fn inexact(v: Value) -> Result<Value> {
    if v.dtype() == DType::C64 {
        Ok(v)
    } else {
        jops::convert(&v, DType::F32)
    }
}

fn close(a: &Args, func: &str) -> Result<Value> {
    let x = inexact(arr(a, 0, "a", func)?)?;
    let y = inexact(arr(a, 1, "b", func)?)?;
    let rtol = a
        .opt(Some(2), "rtol")
        .and_then(|o| o.as_number())
        .unwrap_or(1e-5);
    let atol = a
        .opt(Some(3), "atol")
        .and_then(|o| o.as_number())
        .unwrap_or(1e-8);
    let ok = within_tolerance(&x, &y, rtol, atol)?;
    jops::reduce(ReduceOp::All, &ok, None, false)
}

/// `isclose(a, b)` with the default tolerances (`rtol=1e-5`, `atol=1e-8`).
fn isclose(a: &Args) -> Result<Obj> {
    let x = inexact(arr(a, 0, "a", "isclose")?)?;
    let y = inexact(arr(a, 1, "b", "isclose")?)?;
    Ok(Obj::Array(within_tolerance(&x, &y, 1e-5, 1e-8)?))
}

fn array_equal(a: &Args) -> Result<Value> {
    let x = arr(a, 0, "a1", "array_equal")?;
    let y = arr(a, 1, "a2", "array_equal")?;
    if x.shape() != y.shape() {
        return Ok(Value::Concrete(Array::scalar_bool(false)));
    }
    let (x, y) = operand_pair(&Obj::Array(x), &Obj::Array(y))?;
    jops::reduce(ReduceOp::All, &jops::equal(&x, &y)?, None, false)
}

fn concrete_bool(v: Value, what: &str) -> Result<Obj> {
    Ok(Obj::Bool(v.concrete(what)?.get_f64(0) != 0.0))
}
