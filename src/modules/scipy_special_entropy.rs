//! `jax.scipy.special`'s information-theory functions: `xlogy`, `xlog1py`,
//! `entr`, `rel_entr`, `kl_div`, and its `softmax` / `log_softmax` (those
//! of `jax.nn`).
//!
//! Each is JAX's formula on engine operations: the products `x log y` are
//! masked to 0 where `x` is 0 (unless `y` is NaN), so `0 log 0 = 0`.
//! Gradients follow by the ordinary rules, which agree with JAX's own
//! rules except for the derivative in `x` of `xlogy` / `xlog1py` exactly at
//! `x = 0` (JAX gives `log y` there, the masked product 0).

use crate::array::UnaryOp;
use crate::error::Result;
use crate::ops as jops;
use crate::trace::Value;
use crate::{bail, python::array::to_value};

use super::numpy::where_values;
use super::scipy::inexact;
use super::Builder;
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};

/// The two arguments promoted together to one inexact dtype.
fn pair(a: &Args, names: [&str; 2], func: &str) -> Result<(Value, Value)> {
    let x = to_value(&a.req(Some(0), names[0], func)?)?;
    let y = to_value(&a.req(Some(1), names[1], func)?)?;
    let mut v = inexact(vec![x, y])?;
    let y = v.remove(1);
    Ok((v.remove(0), y))
}

/// A scalar of `x`'s dtype and weak type (`lax._const`).
fn like(x: &Value, v: f64) -> Value {
    Value::Concrete(crate::array::Array::full(&[], v, x.dtype()).with_weak(x.aval().weak))
}

/// `x * f(y)` where `x != 0` or `y` is NaN, else 0.
fn masked_product(x: &Value, y: &Value, f: UnaryOp) -> Result<Value> {
    let x_ok = jops::not_equal(x, &like(x, 0.0))?;
    let y_nan = jops::not_equal(y, y)?;
    let keep = jops::binary(crate::array::BinaryOp::Or, &x_ok, &y_nan)?;
    let product = jops::mul(x, &jops::unary(f, y)?)?;
    where_values(keep, product, jops::zeros_like(x))
}

/// `xlogy(x, y)`: `x log y`, 0 where `x` is 0.
pub fn xlogy(x: &Value, y: &Value) -> Result<Value> {
    masked_product(x, y, UnaryOp::Log)
}

/// `entr(x)`: `-x log x`, and `-inf` for negative `x`.
fn entr(x: &Value) -> Result<Value> {
    let neg = jops::less(x, &like(x, 0.0))?;
    let minus_inf = jops::broadcast_to(&like(x, f64::NEG_INFINITY), &x.shape())?;
    jops::select(&neg, &minus_inf, &jops::neg(&xlogy(x, x)?)?)
}

/// `rel_entr(p, q)`: `p log(p / q)` written as `p log p - p log q` where
/// both are positive, 0 where `p` is 0 and `q` is not negative, `inf`
/// elsewhere.
fn rel_entr(p: &Value, q: &Value) -> Result<Value> {
    let zero = like(p, 0.0);
    let and = |a: &Value, b: &Value| jops::binary(crate::array::BinaryOp::And, a, b);
    let both = and(&jops::greater(p, &zero)?, &jops::greater(q, &zero)?)?;
    let one_zero = and(&jops::equal(p, &zero)?, &jops::greater_equal(q, &zero)?)?;
    let one = crate::python::array::weak_scalar(1.0, crate::array::DType::I32);
    let safe_p = where_values(both.clone(), p.clone(), one.clone())?;
    let safe_q = where_values(both.clone(), q.clone(), one)?;
    let log_val = jops::sub(&xlogy(&safe_p, &safe_p)?, &xlogy(&safe_p, &safe_q)?)?;
    let inf = crate::python::array::weak_scalar(f64::INFINITY, crate::array::DType::F32);
    let rest = where_values(one_zero, zero, inf)?;
    where_values(both, log_val, rest)
}

/// `kl_div(p, q)`: `rel_entr(p, q) - p + q`.
fn kl_div(p: &Value, q: &Value) -> Result<Value> {
    jops::add(&jops::sub(&rel_entr(p, q)?, p)?, q)
}

fn binary(
    name: &'static str,
    names: [&'static str; 2],
    f: fn(&Value, &Value) -> Result<Value>,
) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    move |_, a| {
        let (x, y) = pair(&a, names, name)?;
        if x.dtype() == crate::array::DType::C64 {
            bail!(ValueError, "{name} does not support complex-valued inputs.");
        }
        Ok(Obj::Array(f(&x, &y)?))
    }
}

/// SciPy's softmaxes, which normalise over all axes unless given `axis`.
fn all_axes_by_default(
    name: &'static str,
    f: fn(&Value, &[i64]) -> Result<Value>,
) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    move |_, a| {
        let x = super::nn::float_arg(&a, 0, "x", name)?;
        let axes = super::nn::all_axes(&x, super::nn::axes_of(a.get(Some(1), "axis"), None)?);
        Ok(Obj::Array(f(&x, &axes)?))
    }
}

/// Adds the entropy functions and the softmaxes to `jax.scipy.special`.
pub fn register(b: &mut Builder) {
    b.func("xlogy", binary("xlogy", ["x", "y"], xlogy));
    b.func(
        "xlog1py",
        binary("xlog1py", ["x", "y"], |x, y| {
            masked_product(x, y, UnaryOp::Log1p)
        }),
    );
    b.func("rel_entr", binary("rel_entr", ["p", "q"], rel_entr));
    b.func("kl_div", binary("kl_div", ["p", "q"], kl_div));
    b.func("entr", |_, a| {
        let x = to_value(&a.req(Some(0), "x", "entr")?)?;
        let x = inexact(vec![x])?.remove(0);
        if x.dtype() == crate::array::DType::C64 {
            bail!(ValueError, "entr does not support complex-valued inputs.");
        }
        Ok(Obj::Array(entr(&x)?))
    });
    b.func(
        "softmax",
        all_axes_by_default("softmax", super::nn::softmax),
    );
    b.func(
        "log_softmax",
        all_axes_by_default("log_softmax", super::nn::log_softmax),
    );
}
