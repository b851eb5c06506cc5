//! More elementwise functions, each JAX's composition of lax operations:
//! `log2`, `log10`, `exp2`, `logaddexp`, `logaddexp2`, `hypot`,
//! `deg2rad`/`radians`, `rad2deg`/`degrees`, `fmax`, `fmin`, `heaviside`,
//! `fabs`, `positive`, `float_power`, `nan_to_num`, `isposinf`, `isneginf`.
//!
//! `exp2` multiplies by ln 2 and exponentiates, as XLA computes JAX's
//! `exp2` primitive; the jaxpr shows the two operations instead of one.
//! `logaddexp` is JAX's primal computation without its custom derivative
//! rule (the derivative of the composition, equal in exact arithmetic).

use crate::array::{BinaryOp, DType};
use crate::bail;
use crate::error::Result;
use crate::ops as jops;
use crate::python::array::{jnp_operands, to_value};
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};
use crate::trace::Value;

use super::super::Builder;
use super::arr;
use super::compose::{isnan, like, to_inexact, where_v};

type Unary = fn(&Value) -> Result<Value>;
type Binary = fn(&Value, &Value) -> Result<Value>;

/// Adds the functions to `b`.
pub(super) fn register(b: &mut Builder) {
    let unary: [(&str, Unary); 9] = [
        ("log2", log2),
        ("log10", log10),
        ("exp2", exp2),
        ("deg2rad", deg2rad),
        ("radians", deg2rad),
        ("rad2deg", rad2deg),
        ("degrees", rad2deg),
        ("fabs", fabs),
        ("positive", |x| Ok(x.clone())),
    ];
    for (name, f) in unary {
        b.func(name, move |_, a| {
            Ok(Obj::Array(f(&arr(&a, 0, "x", name)?)?))
        });
    }
    let binary: [(&str, Binary, Option<&str>); 7] = [
        ("logaddexp", logaddexp, None),
        ("logaddexp2", logaddexp2, None),
        ("hypot", hypot, Some("hypot")),
        ("fmax", fmax, Some("fmax")),
        ("fmin", fmin, Some("fmin")),
        ("heaviside", heaviside, Some("heaviside")),
        ("float_power", float_power, None),
    ];
    for (name, f, jit) in binary {
        b.func(name, move |i, a| binary_fn(i, &a, name, f, jit));
    }
    b.func("nan_to_num", |_, a| nan_to_num(&a));
    b.func("isposinf", |_, a| posneginf(&a, f64::INFINITY, "isposinf"));
    b.func("isneginf", |_, a| {
        posneginf(&a, f64::NEG_INFINITY, "isneginf")
    });
}

/// Two operands promoted as jnp's binary functions promote them, then
/// `f`, staged as the jitted function `jit` when JAX jits it.
fn binary_fn(_: &mut Interp, a: &Args, name: &str, f: Binary, jit: Option<&str>) -> Result<Obj> {
    let x = a.req(Some(0), "x1", name)?;
    let y = a.req(Some(1), "x2", name)?;
    let x = match (&x, &y) {
        (Obj::Array(_), _) | (_, Obj::Array(_)) => x,
        _ => Obj::Array(to_value(&x)?),
    };
    let (x, y) = jnp_operands(BinaryOp::Add, &x, &y)?;
    if x.dtype() == DType::C64 {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: complex64 in jax.numpy.{name}"
        );
    }
    let out = match jit {
        Some(j) => jops::jitted1(j, &[x, y], |v| f(&v[0], &v[1]))?,
        None => f(&x, &y)?,
    };
    Ok(Obj::Array(out))
}

fn real_float(x: &Value, name: &str) -> Result<Value> {
    if x.dtype() == DType::C64 {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: complex64 in jax.numpy.{name}"
        );
    }
    to_inexact(x)
}

fn log2(x: &Value) -> Result<Value> {
    let x = real_float(x, "log2")?;
    jops::div(&jops::log(&x)?, &jops::log(&jops::scalar(2.0, x.dtype()))?)
}

fn log10(x: &Value) -> Result<Value> {
    let x = real_float(x, "log10")?;
    jops::mul(
        &jops::log(&x)?,
        &jops::scalar(std::f64::consts::LOG10_E, x.dtype()),
    )
}

fn exp2(x: &Value) -> Result<Value> {
    let x = real_float(x, "exp2")?;
    jops::exp(&jops::mul(&like(&x, std::f64::consts::LN_2), &x)?)
}

fn deg2rad(x: &Value) -> Result<Value> {
    let x = real_float(x, "deg2rad")?;
    jops::mul(&x, &like(&x, std::f64::consts::PI / 180.0))
}

fn rad2deg(x: &Value) -> Result<Value> {
    let x = real_float(x, "rad2deg")?;
    jops::mul(&x, &like(&x, 180.0 / std::f64::consts::PI))
}

fn fabs(x: &Value) -> Result<Value> {
    if x.dtype() == DType::C64 {
        bail!(TypeError, "ufunc 'fabs' does not support complex dtypes");
    }
    jops::abs(&to_inexact(x)?)
}

/// `max(x, y) + log1p(exp(-|x - y|))`, or `x + y` where the difference is
/// NaN (a NaN operand, or infinities of one sign).
fn logaddexp(x: &Value, y: &Value) -> Result<Value> {
    let (x, y) = (to_inexact(x)?, to_inexact(y)?);
    let amax = jops::maximum(&x, &y)?;
    let delta = jops::sub(&x, &y)?;
    let tail = jops::exp(&jops::neg(&jops::abs(&delta)?)?)?;
    let tail = jops::unary(crate::array::UnaryOp::Log1p, &tail)?;
    jops::select(
        &isnan(&delta)?,
        &jops::add(&x, &y)?,
        &jops::add(&amax, &tail)?,
    )
}

fn logaddexp2(x: &Value, y: &Value) -> Result<Value> {
    let (x, y) = (to_inexact(x)?, to_inexact(y)?);
    let amax = jops::maximum(&x, &y)?;
    let delta = jops::sub(&x, &y)?;
    let tail = exp2(&jops::neg(&jops::abs(&delta)?)?)?;
    let tail = jops::unary(crate::array::UnaryOp::Log1p, &tail)?;
    let tail = jops::mul(&like(&x, 1.0 / std::f64::consts::LN_2), &tail)?;
    jops::select(
        &isnan(&delta)?,
        &jops::add(&x, &y)?,
        &jops::add(&amax, &tail)?,
    )
}

/// `sqrt(x² + y²)` without overflow: the larger magnitude times
/// `sqrt(1 + (small/large)²)`, infinity where either is infinite.
fn hypot(x: &Value, y: &Value) -> Result<Value> {
    let (x, y) = (jops::abs(&to_inexact(x)?)?, jops::abs(&to_inexact(y)?)?);
    let inf = like(&x, f64::INFINITY);
    let any_inf = jops::binary(
        BinaryOp::Or,
        &jops::equal(&x, &inf)?,
        &jops::equal(&y, &inf)?,
    )?;
    let (big, small) = (jops::maximum(&x, &y)?, jops::minimum(&x, &y)?);
    let zero = jops::equal(&big, &like(&big, 0.0))?;
    let ones = jops::broadcast_to(&like(&big, 1.0), &big.shape())?;
    let safe = where_v(&zero, &ones, &big)?;
    let ratio = jops::integer_pow(&jops::div(&small, &safe)?, 2)?;
    let root = jops::sqrt(&jops::add(&like(&big, 1.0), &ratio)?)?;
    let r = where_v(&zero, &big, &jops::mul(&big, &root)?)?;
    where_v(&any_inf, &inf, &r)
}

fn fmax(x: &Value, y: &Value) -> Result<Value> {
    let keep = jops::binary(BinaryOp::Or, &jops::greater(x, y)?, &isnan(y)?)?;
    where_v(&keep, x, y)
}

fn fmin(x: &Value, y: &Value) -> Result<Value> {
    let keep = jops::binary(BinaryOp::Or, &jops::less(x, y)?, &isnan(y)?)?;
    where_v(&keep, x, y)
}

/// 0 below zero, 1 above, `x2` at zero (NaN stays NaN).
fn heaviside(x: &Value, y: &Value) -> Result<Value> {
    let (x, y) = (to_inexact(x)?, to_inexact(y)?);
    let zero = like(&x, 0.0);
    let at_zero = where_v(&isnan(&x)?, &x, &y)?;
    let upper = where_v(&jops::greater(&x, &zero)?, &like(&x, 1.0), &at_zero)?;
    where_v(&jops::less(&x, &zero)?, &zero, &upper)
}

fn float_power(x: &Value, y: &Value) -> Result<Value> {
    jops::pow(&to_inexact(x)?, &to_inexact(y)?)
}

/// `nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None)`.
fn nan_to_num(a: &Args) -> Result<Obj> {
    let x = arr(a, 0, "x", "nan_to_num")?;
    if x.dtype() == DType::C64 {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: complex64 in jax.numpy.nan_to_num"
        );
    }
    if x.dtype() != DType::F32 {
        return Ok(Obj::Array(x));
    }
    let value = |name: &str, index: usize, default: f64| -> Result<Value> {
        let v = match a.opt(Some(index), name) {
            Some(o) => to_value(&o)?,
            None => jops::scalar(default, DType::F32),
        };
        jops::astype(&v, DType::F32)
    };
    let max = f32::MAX as f64;
    let nan = value("nan", 2, 0.0)?;
    let posinf = value("posinf", 3, max)?;
    let neginf = value("neginf", 4, -max)?;
    let out = where_v(&isnan(&x)?, &nan, &x)?;
    let out = where_v(
        &jops::equal(&out, &like(&out, f64::INFINITY))?,
        &posinf,
        &out,
    )?;
    let out = where_v(
        &jops::equal(&out, &like(&out, f64::NEG_INFINITY))?,
        &neginf,
        &out,
    )?;
    Ok(Obj::Array(out))
}

fn posneginf(a: &Args, inf: f64, name: &str) -> Result<Obj> {
    let x = arr(a, 0, "x", name)?;
    match x.dtype() {
        DType::F32 => Ok(Obj::Array(jops::equal(&x, &jops::scalar(inf, DType::F32))?)),
        DType::C64 => bail!(
            ValueError,
            "isposinf/isneginf are not well defined for complex types"
        ),
        _ => Ok(Obj::Array(Value::Concrete(crate::array::Array::from_bool(
            &x.shape(),
            vec![false; x.shape().iter().product()],
        )?))),
    }
}
