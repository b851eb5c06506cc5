//! `jnp.frexp` and `jnp.spacing`, JAX's compositions on a float's bits.
//!
//! `frexp` reads the exponent field of float32 (after scaling subnormals
//! up by 2^23 so they have one), and sets it to the bias less one so the
//! mantissa lies in [0.5, 1); zero, infinities and NaN come back as they
//! are with exponent 0. `spacing` is the step to the next float away from
//! zero, with the smallest subnormal where that step is zero.

use crate::array::{BinaryOp, DType};
use crate::bail;
use crate::error::Result;
use crate::ops as jops;
use crate::primitives::Prim;
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};
use crate::trace::{bind1, Value};

use super::super::Builder;
use super::arr;
use super::compose::to_inexact;
use super::composed::{jnp, lib_function};

/// Adds the functions to `b`.
pub(super) fn register(b: &mut Builder) {
    b.func("frexp", |_, a| {
        let x = to_inexact(&arr(&a, 0, "x", "frexp")?)?;
        if x.dtype() == DType::C64 {
            bail!(TypeError, "frexp does not support complex-valued inputs");
        }
        let (m, e) = frexp(&x)?;
        Ok(Obj::tuple(vec![Obj::Array(m), Obj::Array(e)]))
    });
    b.func("spacing", spacing);
}

fn int(v: i64) -> Value {
    jops::scalar(v as f64, DType::I32)
}

/// `(mantissa, exponent)` with `x = mantissa * 2**exponent`.
fn frexp(x: &Value) -> Result<(Value, Value)> {
    if x.dtype() != DType::F32 {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.numpy.frexp of {}",
            x.dtype().name()
        );
    }
    let (nmant, mask, bias) = (23, 255, 127);
    let tiny = jops::scalar(f64::from(f32::MIN_POSITIVE), DType::F32);
    let sub = jops::less(&jops::abs(x)?, &tiny)?;
    let scaled = jops::mul(x, &jops::scalar(f64::from(1u32 << nmant), DType::F32))?;
    let x1 = jops::select(&sub, &scaled, x)?;
    let e0 = jops::select(
        &sub,
        &jops::broadcast_to(&int(-nmant), &x.shape())?,
        &jops::zeros_like(&jops::convert(x, DType::I32)?),
    )?;
    let bits = bind1(Prim::BitcastConvert(DType::I32), &[x1])?;
    let field = jops::binary(BinaryOp::ShiftRightArithmetic, &bits, &int(nmant))?;
    let field = jops::binary(BinaryOp::And, &field, &int(mask))?;
    let e = jops::add(&e0, &jops::add(&jops::sub(&field, &int(bias))?, &int(1))?)?;
    let cleared = jops::binary(BinaryOp::And, &bits, &int(!(mask << nmant)))?;
    let set = jops::binary(BinaryOp::Or, &cleared, &int((bias - 1) << nmant))?;
    let m = bind1(Prim::BitcastConvert(DType::F32), &[set])?;
    let inf = jops::scalar(f64::INFINITY, DType::F32);
    let special = [
        jops::equal(&jops::abs(x)?, &inf)?,
        jops::not_equal(x, x)?,
        jops::equal(x, &jops::scalar(0.0, DType::F32))?,
    ];
    let special = special
        .into_iter()
        .try_fold(None::<Value>, |acc, c| -> Result<Option<Value>> {
            Ok(Some(match acc {
                None => c,
                Some(a) => jops::binary(BinaryOp::Or, &a, &c)?,
            }))
        })?
        .ok_or_else(|| crate::err!(RuntimeError, "frexp: no conditions"))?;
    let e = jops::select(&special, &jops::zeros_like(&e), &e)?;
    Ok((jops::select(&special, x, &m)?, e))
}

/// `spacing(x)`: `nextafter(x, copysign(inf, x)) - x`, or the signed
/// smallest subnormal where that is zero; float16 steps toward +inf.
fn spacing(interp: &mut Interp, a: Args) -> Result<Obj> {
    let x = to_inexact(&arr(&a, 0, "x", "spacing")?)?;
    let d = x.dtype();
    if d == DType::C64 {
        bail!(ValueError, "jnp.spacing is not defined for complex inputs.");
    }
    let xo = Obj::Array(x.clone());
    let inf = Obj::Array(jops::scalar(f64::INFINITY, d));
    let next = lib_function(interp, "jax.lax", "nextafter")?;
    if d == DType::F16 {
        let n = interp.call(&next, Args::new(vec![xo.clone(), inf]))?;
        return jnp(interp, "subtract", vec![n, xo]);
    }
    let toward = jnp(interp, "copysign", vec![inf, xo.clone()])?;
    let n = interp.call(&next, Args::new(vec![xo.clone(), toward]))?;
    let step = jnp(interp, "subtract", vec![n, xo.clone()])?;
    let tiniest = match d {
        DType::BF16 => 9.183549615799121e-41,
        _ => f64::from(f32::from_bits(1)),
    };
    let tiniest = Obj::Array(jops::scalar(tiniest, d));
    let signed = jnp(interp, "copysign", vec![tiniest, xo])?;
    let zero = jnp(interp, "equal", vec![step.clone(), Obj::Int(0)])?;
    jnp(interp, "where", vec![zero, signed, step])
}
