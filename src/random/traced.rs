//! `jax.random` on raw key data held as a [`Value`]: a `uint32[2]` key that
//! may be traced (an argument of `jax.jit`, a `scan` carry, a row of a
//! `vmap`ped batch of keys) as well as concrete.
//!
//! Everything is written with the `threefry2x32` primitive and ordinary
//! uint32 operations, the way JAX writes it with
//! `jax_threefry_partitionable=True` (its default): element `i` of a shaped
//! draw hashes the 64-bit counter `i`, given as two uint32 arrays (high and
//! low words, JAX's `iota_2x32_shape`). Under a trace these emit equations;
//! on concrete keys they compute, with the same bits as the host samplers of
//! [`super::distributions`].

use crate::array::{Array, BinaryOp, DType, UnaryOp};
use crate::bail;
use crate::error::Result;
use crate::ops;
use crate::primitives::Prim;
use crate::trace::{bind, bind1, Value};

/// The two words of a single key `uint32[2]`, as scalars.
fn key_words(key: &Value, func: &str) -> Result<(Value, Value)> {
    let shape = key.shape();
    if key.dtype() != DType::U32 || shape.last() != Some(&2) {
        bail!(
            TypeError,
            "{func} requires a PRNG key, got an array of type {}{}",
            key.dtype().short_name(),
            crate::ir::fmt_shape(&shape)
        );
    }
    if shape.len() != 1 {
        bail!(
            ValueError,
            "{func} accepts a single key, but was given a key array of shape {} != (). Use jax.vmap for batching.",
            tuple_text(&shape[..shape.len() - 1])
        );
    }
    let word = |i: usize| ops::reshape(&ops::slice(key, &[i], &[i + 1], &[1])?, &[]);
    Ok((word(0)?, word(1)?))
}

/// A shape as Python prints the tuple: `(3,)`, `(2, 3)`.
fn tuple_text(dims: &[usize]) -> String {
    match dims {
        [d] => format!("({d},)"),
        _ => {
            let parts: Vec<String> = dims.iter().map(|d| d.to_string()).collect();
            format!("({})", parts.join(", "))
        }
    }
}

/// JAX's `iota_2x32_shape(shape)`: the row-major position of each element
/// as a 64-bit number, split into high and low uint32 words. It depends on
/// the shape alone. Below 2**32 elements the high words are zero and the low
/// words are built from one small range per axis (position = position along
/// the leading axes times the axis size plus the index along it), so a
/// staged program does not carry a constant as large as the draw.
fn iota_2x32(shape: &[usize]) -> Result<(Value, Value)> {
    let n = super::checked_numel(shape)? as u64;
    if n > u32::MAX as u64 || shape.is_empty() {
        let hi = (0..n).map(|i| (i >> 32) as u32).collect();
        let lo = (0..n).map(|i| i as u32).collect();
        return Ok((
            Value::Concrete(Array::from_u32(shape, hi)?),
            Value::Concrete(Array::from_u32(shape, lo)?),
        ));
    }
    let range = |axis: usize| -> Result<Value> {
        let d = shape[axis];
        let r = Value::Concrete(Array::from_u32(&[d], (0..d as u32).collect())?);
        ops::broadcast_in_dim(&r, &shape[..=axis], &[axis])
    };
    let mut lo = range(0)?;
    for axis in 1..shape.len() {
        let dims: Vec<usize> = (0..axis).collect();
        let lead = ops::broadcast_in_dim(&lo, &shape[..=axis], &dims)?;
        let scaled = ops::mul(&lead, &u32_const(shape[axis] as u32))?;
        lo = ops::add(&scaled, &range(axis)?)?;
    }
    let hi = ops::broadcast_in_dim(&u32_const(0), shape, &[])?;
    Ok((hi, lo))
}

/// `threefry2x32` of the key's words and the counters of `shape`.
fn hash_iota(key: &Value, shape: &[usize], func: &str) -> Result<(Value, Value)> {
    let (k1, k2) = key_words(key, func)?;
    let (c1, c2) = iota_2x32(shape)?;
    let mut out = bind(Prim::Threefry2x32, &[k1, k2, c1, c2])?;
    let b2 = out.remove(1);
    Ok((out.remove(0), b2))
}

fn u32_const(v: u32) -> Value {
    ops::scalar(v as f64, DType::U32)
}

fn f32_const(v: f32) -> Value {
    ops::scalar(v as f64, DType::F32)
}

/// `jax.random.bits(key, shape)` (32-bit): the xor of the two hash words.
pub fn random_bits(key: &Value, shape: &[usize]) -> Result<Value> {
    let (b1, b2) = hash_iota(key, shape, "random_bits")?;
    ops::binary(BinaryOp::Xor, &b1, &b2)
}

/// `jax.random.split(key, shape)`: key `i` is the pair of hash words of
/// counter `i`, stacked on a last axis.
pub fn split(key: &Value, shape: &[usize]) -> Result<Value> {
    let (b1, b2) = hash_iota(key, shape, "split")?;
    ops::stack(&[b1, b2], shape.len() as i64)
}

/// `jax.random.fold_in(key, data)`: the hash of the seed-style counter
/// `[0, data]` (`data` is a uint32 scalar).
pub fn fold_in(key: &Value, data: &Value) -> Result<Value> {
    let (k1, k2) = key_words(key, "fold_in")?;
    let data = ops::convert_weak(data, DType::U32, false)?;
    let out = bind(Prim::Threefry2x32, &[k1, k2, u32_const(0), data])?;
    ops::stack(&out, 0)
}

/// `jax.random.uniform(key, shape, minval=lo, maxval=hi)` (float32): the top
/// 23 bits become the mantissa of a float in `[1, 2)`, less 1, scaled and
/// shifted.
///
/// XLA fuses the scaling into one multiply-add, rounded once, and so does a
/// staged program when it runs (see `crate::exec`). An eager trace computes
/// each equation on its own, which rounds the same only when the product is
/// exact: when the span is a power of two (as for `[0, 1)` and for
/// `normal`'s interval). Other spans are refused there rather than drawn one
/// rounding off.
pub fn uniform(key: &Value, shape: &[usize], lo: f32, hi: f32) -> Result<Value> {
    let span = hi - lo;
    let exact = span == 0.0 || (span.is_finite() && span.abs().to_bits() & 0x007F_FFFF == 0);
    if !exact && !crate::trace::staging() {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.random.uniform on a traced key with minval={lo:?}, maxval={hi:?} (a span that is not a power of two)"
        );
    }
    let bits = random_bits(key, shape)?;
    let mantissa = ops::binary(BinaryOp::ShiftRightLogical, &bits, &u32_const(9))?;
    let one_two = ops::binary(BinaryOp::Or, &mantissa, &u32_const(0x3F80_0000))?;
    let floats = bind1(Prim::BitcastConvert(DType::F32), &[one_two])?;
    let unit = ops::sub(&floats, &f32_const(1.0))?;
    let scaled = ops::add(&ops::mul(&unit, &f32_const(span))?, &f32_const(lo))?;
    ops::maximum(&f32_const(lo), &scaled)
}

/// `jax.random.normal(key, shape)`: `sqrt(2) * erf_inv(u)` for `u` uniform
/// on `(-1, 1)` (the lower bound is the float just above -1).
pub fn normal(key: &Value, shape: &[usize]) -> Result<Value> {
    let lo = f32::from_bits((-1.0f32).to_bits() - 1);
    let u = uniform(key, shape, lo, 1.0)?;
    let e = ops::unary(UnaryOp::ErfInv, &u)?;
    ops::mul(&f32_const(std::f32::consts::SQRT_2), &e)
}

/// `jax.random.truncated_normal(key, lower, upper, shape)` (float32): the
/// inverse CDF of a uniform draw between `erf(lower/√2)` and `erf(upper/√2)`,
/// `√2 * erf_inv(u)`, clipped to the open interval. The bounds depend on
/// `lower` and `upper` alone and are computed as the host sampler computes
/// them, so they enter the program as constants.
pub fn truncated_normal(key: &Value, lower: f32, upper: f32, shape: &[usize]) -> Result<Value> {
    let bounds = super::distributions::TruncatedBounds::new(lower, upper);
    let u = uniform(key, shape, bounds.erf_lower, bounds.erf_upper)?;
    let e = ops::unary(UnaryOp::ErfInv, &u)?;
    let x = ops::mul(&f32_const(std::f32::consts::SQRT_2), &e)?;
    let x = ops::maximum(&x, &f32_const(bounds.lowest))?;
    ops::minimum(&x, &f32_const(bounds.highest))
}

/// `jax.random.bernoulli(key, p, shape)`: `uniform < p`.
pub fn bernoulli(key: &Value, p: f32, shape: &[usize]) -> Result<Value> {
    let u = uniform(key, shape, 0.0, 1.0)?;
    ops::less(&u, &f32_const(p))
}

/// `jax.random.randint(key, shape, minval, maxval)` (int32): two words per
/// element, from the two halves of `split(key)`, reduced modulo the span
/// with wrapping uint32 arithmetic, as [`super::distributions::randint`].
pub fn randint(key: &Value, shape: &[usize], minval: i32, maxval: i32) -> Result<Value> {
    let keys = split(key, &[2])?;
    let row = |i: usize| ops::reshape(&ops::slice(&keys, &[i, 0], &[i + 1, 2], &[1, 1])?, &[2]);
    let higher = random_bits(&row(0)?, shape)?;
    let lower = random_bits(&row(1)?, shape)?;
    let span: u32 = if maxval <= minval {
        1
    } else {
        maxval.wrapping_sub(minval) as u32
    };
    let multiplier = (1u32 << 16) % span;
    let multiplier = multiplier.wrapping_mul(multiplier) % span;
    let rem = |x: &Value| ops::binary(BinaryOp::Rem, x, &u32_const(span));
    let offset = ops::add(
        &ops::mul(&rem(&higher)?, &u32_const(multiplier))?,
        &rem(&lower)?,
    )?;
    let offset = ops::astype(&rem(&offset)?, DType::I32)?;
    ops::add(&ops::scalar(minval as f64, DType::I32), &offset)
}
