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

/// `|x - y| <= atol + rtol * |y|`, elementwise, in float32, as JAX computes
/// it: an infinity is close only to itself, and NaN to nothing unless
/// `equal_nan` (then to NaN).
fn within_tolerance(x: &Value, y: &Value, tol: Tolerance) -> Result<Value> {
    let diff = jops::abs(&jops::sub(x, y)?)?;
    let bound = jops::add(
        &jops::scalar(tol.atol, DType::F32),
        &jops::mul(&jops::scalar(tol.rtol, DType::F32), &jops::abs(y)?)?,
    )?;
    let inf = jops::scalar(f64::INFINITY, DType::F32);
    // Booleans add as `or` and multiply as `and`.
    let finite = jops::mul(
        &jops::less(&jops::abs(x)?, &inf)?,
        &jops::less(&jops::abs(y)?, &inf)?,
    )?;
    let near = jops::mul(&jops::less_equal(&diff, &bound)?, &finite)?;
    let close = jops::add(&near, &jops::equal(x, y)?)?;
    if !tol.equal_nan {
        return Ok(close);
    }
    let both_nan = jops::mul(&jops::not_equal(x, x)?, &jops::not_equal(y, y)?)?;
    jops::add(&close, &both_nan)
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

/// `rtol`, `atol` and `equal_nan`, given after the two operands or by name.
#[derive(Clone, Copy)]
struct Tolerance {
    rtol: f64,
    atol: f64,
    equal_nan: bool,
}

impl Tolerance {
    fn of(a: &Args, func: &str) -> Result<Tolerance> {
        let number = |pos: usize, name: &str, default: f64| -> Result<f64> {
            match a.opt(Some(pos), name) {
                None => Ok(default),
                Some(o) => o.as_number().ok_or_else(|| {
                    crate::err!(
                        NotImplementedError,
                        "not supported by shardlab yet: {func} with {name}={} (only a Python number)",
                        crate::python::format::repr_of(&o)
                    )
                }),
            }
        };
        let equal_nan = match a.opt(Some(4), "equal_nan") {
            None => false,
            Some(o) => crate::python::ops::truthy(&o, "equal_nan")?,
        };
        Ok(Tolerance {
            rtol: number(2, "rtol", 1e-5)?,
            atol: number(3, "atol", 1e-8)?,
            equal_nan,
        })
    }
}

fn close(a: &Args, func: &str) -> Result<Value> {
    let x = inexact(arr(a, 0, "a", func)?)?;
    let y = inexact(arr(a, 1, "b", func)?)?;
    let ok = within_tolerance(&x, &y, Tolerance::of(a, func)?)?;
    jops::reduce(ReduceOp::All, &ok, None, false)
}

/// `isclose(a, b, rtol=1e-5, atol=1e-8, equal_nan=False)`.
fn isclose(a: &Args) -> Result<Obj> {
    let x = inexact(arr(a, 0, "a", "isclose")?)?;
    let y = inexact(arr(a, 1, "b", "isclose")?)?;
    Ok(Obj::Array(within_tolerance(
        &x,
        &y,
        Tolerance::of(a, "isclose")?,
    )?))
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
