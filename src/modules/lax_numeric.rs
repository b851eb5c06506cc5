//! `lax.round` with its two rounding methods (`lax.RoundingMethod`) and
//! `lax.nextafter`.
//!
//! Rounding away from zero is `floor(|x|)`, plus one where the fraction
//! is at least a half, with the sign of `x` put back: exact in floating
//! point, since `|x| - floor(|x|)` is. `nextafter` steps the float32 bit
//! pattern by one toward `x2`, from zero to the smallest subnormal.

use std::rc::Rc;

use crate::array::{BinaryOp, DType, UnaryOp};
use crate::bail;
use crate::error::Result;
use crate::ops as jops;
use crate::primitives::Prim;
use crate::python::array::{jnp_operands, to_value};
use crate::python::builtins::to_int;
use crate::python::interp::Interp;
use crate::python::value::{Args, Class, Obj};
use crate::trace::{bind1, Value};

use super::Builder;

/// Adds the functions to `b`.
pub(super) fn register(b: &mut Builder) {
    b.func("round", round);
    b.func("nextafter", |_, a| {
        let x1 = a.req(Some(0), "x1", "nextafter")?;
        let x2 = a.req(Some(1), "x2", "nextafter")?;
        let (x1, x2) = jnp_operands(BinaryOp::Add, &x1, &x2)?;
        Ok(Obj::Array(nextafter(&x1, &x2)?))
    });
}

/// `lax.RoundingMethod`: `AWAY_FROM_ZERO` (0) and `TO_NEAREST_EVEN` (1).
pub fn rounding_method(interp: &mut Interp) -> Result<Obj> {
    enumeration(
        interp,
        "RoundingMethod",
        "IntEnum",
        &["AWAY_FROM_ZERO", "TO_NEAREST_EVEN"],
        0,
    )
}

/// `lax.GatherScatterMode`: `CLIP`, `FILL_OR_DROP`, `PROMISE_IN_BOUNDS`
/// and `ONE_HOT`, numbered from 1 as `enum.auto` numbers them.
pub fn gather_scatter_mode(interp: &mut Interp) -> Result<Obj> {
    let names = ["CLIP", "FILL_OR_DROP", "PROMISE_IN_BOUNDS", "ONE_HOT"];
    enumeration(interp, "GatherScatterMode", "Enum", &names, 1)
}

/// An enumeration `name` of `base` whose members are numbered from `first`.
fn enumeration(
    interp: &mut Interp,
    name: &str,
    base: &str,
    members: &[&str],
    first: i64,
) -> Result<Obj> {
    let base_class = match super::std::r#enum::module() {
        Obj::Module(m) => m.get(base),
        _ => None,
    };
    let Some(Obj::Class(base_class)) = base_class else {
        bail!(RuntimeError, "enum.{base} is missing");
    };
    let attrs = members
        .iter()
        .zip(first..)
        .map(|(m, v)| (m.to_string(), Obj::Int(v)))
        .collect();
    let class = Class::new(name, vec![base_class], attrs);
    super::std::r#enum::enum_class(interp, &Rc::new(class))
}

/// The rounding method given as a member of `RoundingMethod` or its int.
fn method(interp: &mut Interp, o: &Obj) -> Result<i64> {
    if let Obj::Int(_) | Obj::Bool(_) = o {
        return to_int(o);
    }
    let v = crate::python::ops::getattr(interp, o, "value")?;
    to_int(&v)
}

/// `lax.round(x, rounding_method=RoundingMethod.AWAY_FROM_ZERO)`.
fn round(interp: &mut Interp, a: Args) -> Result<Obj> {
    let x = to_value(&a.req(Some(0), "x", "round")?)?;
    let m = match a.opt(Some(1), "rounding_method") {
        Some(o) => method(interp, &o)?,
        None => 0,
    };
    if !x.dtype().is_float() {
        bail!(
            TypeError,
            "round does not accept dtype {}. Accepted dtypes are subtypes of floating.",
            x.dtype().name()
        );
    }
    let out = match m {
        0 => away_from_zero(&x)?,
        1 => jops::unary(UnaryOp::Round, &x)?,
        other => bail!(ValueError, "{other} is not a valid RoundingMethod"),
    };
    Ok(Obj::Array(out))
}

fn away_from_zero(x: &Value) -> Result<Value> {
    let ax = jops::abs(x)?;
    let fl = jops::unary(UnaryOp::Floor, &ax)?;
    let frac = jops::sub(&ax, &fl)?;
    let half = jops::scalar(0.5, x.dtype());
    let up = jops::binary(BinaryOp::Ge, &frac, &half)?;
    let bumped = jops::add(&fl, &jops::scalar(1.0, x.dtype()))?;
    let mag = jops::select(&up, &bumped, &fl)?;
    // The sign of x, zero and NaN included, through a sign-carrying product.
    let sign = jops::unary(UnaryOp::Sign, x)?;
    let neg = jops::binary(BinaryOp::Lt, &sign, &jops::scalar(0.0, x.dtype()))?;
    let negated = jops::neg(&mag)?;
    let signed = jops::select(&neg, &negated, &mag)?;
    let is_nan = jops::binary(BinaryOp::Ne, x, x)?;
    let negzero = jops::binary(BinaryOp::Eq, x, &jops::scalar(0.0, x.dtype()))?;
    let keep = jops::binary(BinaryOp::Or, &is_nan, &negzero)?;
    jops::select(&keep, x, &signed)
}

/// `lax.nextafter(x1, x2)` of float32 operands.
fn nextafter(x: &Value, y: &Value) -> Result<Value> {
    if x.dtype() != DType::F32 || y.dtype() != DType::F32 {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.lax.nextafter of {}",
            x.dtype().name()
        );
    }
    let bits = bind1(Prim::BitcastConvert(DType::I32), std::slice::from_ref(x))?;
    let zero = jops::scalar(0.0, DType::F32);
    let up_mag = jops::binary(BinaryOp::Gt, &x.clone(), &zero)?;
    let toward_up = jops::binary(BinaryOp::Lt, x, y)?;
    // Away from zero when the step goes the way of x's sign.
    let grow = jops::binary(BinaryOp::Eq, &up_mag, &toward_up)?;
    let one = jops::scalar(1.0, DType::I32);
    let stepped = jops::select(&grow, &jops::add(&bits, &one)?, &jops::sub(&bits, &one)?)?;
    let stepped = bind1(Prim::BitcastConvert(DType::F32), &[stepped])?;
    // From zero: the smallest subnormal with y's sign.
    let tiny = bind1(
        Prim::BitcastConvert(DType::F32),
        &[jops::scalar(1.0, DType::I32)],
    )?;
    let y_neg = jops::binary(BinaryOp::Lt, y, &zero)?;
    let from_zero = jops::select(&y_neg, &jops::neg(&tiny)?, &tiny)?;
    let is_zero = jops::binary(BinaryOp::Eq, x, &zero)?;
    let out = jops::select(&is_zero, &from_zero, &stepped)?;
    let same = jops::binary(BinaryOp::Eq, x, y)?;
    let out = jops::select(&same, y, &out)?;
    let nan = jops::binary(
        BinaryOp::Or,
        &jops::binary(BinaryOp::Ne, x, x)?,
        &jops::binary(BinaryOp::Ne, y, y)?,
    )?;
    let q = jops::add(x, y)?;
    let out = jops::select(&nan, &q, &out)?;
    // Two Python floats give a weakly typed float, as JAX's do.
    let weak = x.aval().weak && y.aval().weak;
    jops::convert_weak(&out, DType::F32, weak)
}
