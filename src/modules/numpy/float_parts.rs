//! Functions of a float's parts, each JAX's composition of lax
//! operations: `trunc`, `signbit`, `modf`, `ldexp`, and `atan2` (the
//! array API's name of `arctan2`).
//!
//! `signbit` of a float reads the sign bit (so `-0.0` and `-nan` count as
//! negative); `ldexp` multiplies by powers of two in two halves so that a
//! large exponent with a small mantissa does not overflow on the way.

use crate::array::{BinaryOp, DType, UnaryOp};
use crate::bail;
use crate::error::Result;
use crate::ops as jops;
use crate::primitives::Prim;
use crate::python::array::{jnp_operands, to_value};
use crate::python::value::Obj;
use crate::trace::{bind1, Value};

use super::super::Builder;
use super::arr;
use super::compose::to_inexact;

/// Adds the functions to `b`.
pub(super) fn register(b: &mut Builder) {
    b.func("trunc", |_, a| {
        Ok(Obj::Array(trunc(&arr(&a, 0, "x", "trunc")?)?))
    });
    b.func("signbit", |_, a| {
        Ok(Obj::Array(signbit(&arr(&a, 0, "x", "signbit")?)?))
    });
    b.func("modf", |_, a| {
        let x = to_inexact(&arr(&a, 0, "x", "modf")?)?;
        real(&x, "modf")?;
        let whole = trunc(&x)?;
        let frac = jops::sub(&x, &whole)?;
        Ok(Obj::tuple(vec![Obj::Array(frac), Obj::Array(whole)]))
    });
    b.func("ldexp", |_, a| {
        let x1 = to_value(&a.req(Some(0), "x1", "ldexp")?)?;
        let x2 = to_value(&a.req(Some(1), "x2", "ldexp")?)?;
        Ok(Obj::Array(ldexp(&x1, &x2)?))
    });
    b.func("atan2", |i, a| {
        let f = super::jnp_function(i, "arctan2")?;
        i.call(&f, a)
    });
}

fn real(x: &Value, name: &str) -> Result<()> {
    if x.dtype() == DType::C64 {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: complex64 in jax.numpy.{name}"
        );
    }
    Ok(())
}

/// Rounds toward zero; integers and bools are their own truncation.
fn trunc(x: &Value) -> Result<Value> {
    real(x, "trunc")?;
    if !x.dtype().is_float() {
        return Ok(x.clone());
    }
    let neg = jops::binary(BinaryOp::Lt, x, &jops::scalar(0.0, x.dtype()))?;
    let up = jops::unary(UnaryOp::Ceil, x)?;
    let down = jops::unary(UnaryOp::Floor, x)?;
    jops::select(&neg, &up, &down)
}

fn signbit(x: &Value) -> Result<Value> {
    real(x, "signbit")?;
    let d = x.dtype();
    if d == DType::Bool {
        return jops::binary(BinaryOp::Ne, x, x);
    }
    if !d.is_float() {
        return jops::binary(BinaryOp::Lt, x, &jops::scalar(0.0, d));
    }
    if d != DType::F32 {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.numpy.signbit of {}",
            d.name()
        );
    }
    let bits = bind1(Prim::BitcastConvert(DType::I32), std::slice::from_ref(x))?;
    jops::binary(BinaryOp::Lt, &bits, &jops::scalar(0.0, DType::I32))
}

/// `x1 * 2**x2` for an integer `x2`.
fn ldexp(x1: &Value, x2: &Value) -> Result<Value> {
    if x2.dtype().is_inexact() {
        bail!(
            TypeError,
            "ldexp not supported for inexact x2, got dtype {}",
            x2.dtype().name()
        );
    }
    let x1 = to_inexact(x1)?;
    real(&x1, "ldexp")?;
    let (x1, _) = jnp_operands(
        BinaryOp::Mul,
        &Obj::Array(x1.clone()),
        &Obj::Array(jops::convert(x2, x1.dtype())?),
    )?;
    if x1.dtype() != DType::F32 {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.numpy.ldexp of {}",
            x1.dtype().name()
        );
    }
    let e = jops::convert(x2, DType::I32)?;
    let half = jops::binary(BinaryOp::FloorDiv, &e, &jops::scalar(2.0, DType::I32))?;
    let rest = jops::sub(&e, &half)?;
    let (p1, p2) = (pow2(&half)?, pow2(&rest)?);
    jops::mul(&jops::mul(&x1, &p1)?, &p2)
}

/// `2**k` exactly, from its float32 bits, for `k` clamped to the normal
/// exponents (the two halves of `ldexp` stay within them).
fn pow2(k: &Value) -> Result<Value> {
    let lo = jops::scalar(-126.0, DType::I32);
    let hi = jops::scalar(127.0, DType::I32);
    let k = jops::clamp(&lo, k, &hi)?;
    let biased = jops::add(&k, &jops::scalar(127.0, DType::I32))?;
    let bits = jops::binary(
        BinaryOp::ShiftLeft,
        &biased,
        &jops::scalar(23.0, DType::I32),
    )?;
    bind1(Prim::BitcastConvert(DType::F32), &[bits])
}
