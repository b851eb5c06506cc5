//! `jax.scipy.special`'s gamma, error and Bessel functions that rest on
//! one `lax` primitive each (`gammaln`, `digamma`, `erfc`, `i0e`, `i1e`)
//! and the formulas JAX builds from them: `gamma`, `gammasgn`,
//! `factorial`, `i0`, `i1` and `ndtr`.

use crate::array::{BinaryOp, DType, UnaryOp};
use crate::error::Result;
use crate::ops as jops;
use crate::trace::Value;

use super::numpy::where_values;
use super::scipy::inexact;
use super::Builder;
use crate::python::array::to_value;
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};

/// The argument promoted to an inexact dtype.
fn float_arg(a: &Args, name: &str, func: &str) -> Result<Value> {
    let x = to_value(&a.req(Some(0), name, func)?)?;
    Ok(inexact(vec![x])?.remove(0))
}

/// A strongly typed float32 constant (a NumPy scalar of the dtype).
fn k(v: f64) -> Value {
    jops::scalar(v, DType::F32)
}

fn and(a: &Value, b: &Value) -> Result<Value> {
    jops::binary(BinaryOp::And, a, b)
}

fn or(a: &Value, b: &Value) -> Result<Value> {
    jops::binary(BinaryOp::Or, a, b)
}

/// `gammasgn(x)`: NaN at the poles and for NaN, -1 where Γ is negative
/// (odd floor below 0, and at -0.0), else 1.
fn gammasgn(x: &Value) -> Result<Value> {
    let floor = jops::unary(UnaryOp::Floor, x)?;
    let negative = jops::less(x, &k(0.0))?;
    let pole = and(&negative, &jops::equal(x, &floor)?)?;
    let nan = or(&pole, &jops::not_equal(x, x)?)?;
    let odd = jops::not_equal(&jops::binary(BinaryOp::Rem, &floor, &k(2.0))?, &k(0.0))?;
    // -0.0 is the zero whose reciprocal is negative.
    let minus_zero = and(
        &jops::equal(x, &k(0.0))?,
        &jops::less(&jops::div(&k(1.0), x)?, &k(0.0))?,
    )?;
    let minus = or(&and(&negative, &odd)?, &minus_zero)?;
    let signs = where_values(minus, k(-1.0), k(1.0))?;
    where_values(nan, k(f64::NAN), signs)
}

/// `gamma(x)`: `gammasgn(x) * exp(gammaln(x))`.
fn gamma(x: &Value) -> Result<Value> {
    let magnitude = jops::exp(&jops::unary(UnaryOp::Lgamma, x)?)?;
    jops::mul(&gammasgn(x)?, &magnitude)
}

/// `factorial(n)`: `exp(gammaln(n + 1))`, 0 for negative `n`.
fn factorial(n: &Value) -> Result<Value> {
    let one = crate::python::array::weak_scalar(1.0, DType::I32);
    let value = jops::exp(&jops::unary(UnaryOp::Lgamma, &jops::add(n, &one)?)?)?;
    let zero = crate::python::array::weak_scalar(0.0, DType::I32);
    where_values(jops::less(n, &k(0.0))?, zero, value)
}

/// `ndtr(x)`, the standard normal CDF, as JAX writes it: `(1 + erf(w)) / 2`
/// near 0 and the complementary error function in the tails.
fn ndtr(x: &Value) -> Result<Value> {
    let half_sqrt_2 = k((0.5f32 * std::f32::consts::SQRT_2) as f64);
    let w = jops::mul(x, &half_sqrt_2)?;
    let z = jops::abs(&w)?;
    let erfc_z = jops::unary(UnaryOp::Erfc, &z)?;
    let tails = jops::select(
        &jops::greater(&w, &k(0.0))?,
        &jops::sub(&k(2.0), &erfc_z)?,
        &erfc_z,
    )?;
    let centre = jops::add(&k(1.0), &jops::unary(UnaryOp::Erf, &w)?)?;
    let y = jops::select(&jops::less(&z, &half_sqrt_2)?, &centre, &tails)?;
    jops::mul(&k(0.5), &y)
}

/// `i0(x)` / `i1(x)`: `exp(|x|)` times the scaled Bessel function.
fn unscaled(op: UnaryOp) -> impl Fn(&Value) -> Result<Value> {
    move |x| jops::mul(&jops::exp(&jops::abs(x)?)?, &jops::unary(op, x)?)
}

fn func(
    name: &'static str,
    f: impl Fn(&Value) -> Result<Value> + 'static,
) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    move |_, a| Ok(Obj::Array(f(&float_arg(&a, "x", name)?)?))
}

fn primitive(op: UnaryOp) -> impl Fn(&Value) -> Result<Value> {
    move |x| jops::unary(op, x)
}

/// Adds the functions to `jax.scipy.special`.
pub fn register(b: &mut Builder) {
    b.func("gammaln", func("gammaln", primitive(UnaryOp::Lgamma)));
    b.func("digamma", func("digamma", primitive(UnaryOp::Digamma)));
    b.func("erfc", func("erfc", primitive(UnaryOp::Erfc)));
    b.func("i0e", func("i0e", primitive(UnaryOp::BesselI0e)));
    b.func("i1e", func("i1e", primitive(UnaryOp::BesselI1e)));
    b.func("i0", func("i0", unscaled(UnaryOp::BesselI0e)));
    b.func("i1", func("i1", unscaled(UnaryOp::BesselI1e)));
    b.func("gamma", func("gamma", gamma));
    b.func("gammasgn", func("gammasgn", gammasgn));
    b.func("factorial", |_, a| {
        if let Some(o) = a.opt(Some(1), "exact") {
            if crate::python::ops::truthy(&o, "exact")? {
                crate::bail!(NotImplementedError, "factorial with exact=True");
            }
        }
        Ok(Obj::Array(factorial(&float_arg(&a, "n", "factorial")?)?))
    });
    b.func("ndtr", |_, a| {
        let x = to_value(&a.req(Some(0), "x", "ndtr")?)?;
        if !x.dtype().is_float() {
            crate::bail!(
                TypeError,
                "x.dtype={} is not supported, see docstring for supported types.",
                x.dtype().name()
            );
        }
        Ok(Obj::Array(ndtr(&x)?))
    });
}
