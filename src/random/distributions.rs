//! Samplers of `jax.random` over float32 / int32 / bool, each built from
//! [`random_bits`] exactly as JAX builds it, so equal keys give equal arrays.

use crate::array::{Array, Buffer};
use crate::bail;
use crate::error::Result;

use super::special::{erf_f32_fused, erf_inv_f32};
use super::{checked_numel, random_bits, split, Key};

/// `lax.max` on float32: NaN in either operand propagates.
fn max_f32(a: f32, b: f32) -> f32 {
    if a.is_nan() || b.is_nan() {
        f32::NAN
    } else if a >= b {
        a
    } else {
        b
    }
}

/// `lax.min` on float32: NaN in either operand propagates.
fn min_f32(a: f32, b: f32) -> f32 {
    if a.is_nan() || b.is_nan() {
        f32::NAN
    } else if a <= b {
        a
    } else {
        b
    }
}

/// `nextafter(x, toward)` for float32.
fn next_after_f32(x: f32, toward: f32) -> f32 {
    if x.is_nan() || toward.is_nan() {
        return f32::NAN;
    }
    if x == toward {
        return toward;
    }
    if x == 0.0 {
        let tiny = f32::from_bits(1);
        return if toward > 0.0 { tiny } else { -tiny };
    }
    let bits = x.to_bits();
    // Moving away from zero increments the magnitude bits, toward zero
    // decrements them, whatever the sign.
    let away = (toward > x) == (x > 0.0);
    f32::from_bits(if away { bits + 1 } else { bits - 1 })
}

/// Uniform floats in `[minval, maxval)`, as `Vec`, by JAX's mantissa trick:
/// the top 23 random bits become the mantissa of a float in `[1, 2)`, from
/// which 1 is subtracted before scaling and shifting.
fn uniform_values(key: Key, shape: &[usize], minval: f32, maxval: f32) -> Result<Vec<f32>> {
    let bits = random_bits(key, shape)?;
    let span = maxval - minval;
    Ok(bits
        .into_iter()
        .map(|b| {
            let unit = f32::from_bits((b >> 9) | 0x3F80_0000) - 1.0;
            // XLA fuses this multiply-add (see `special`).
            max_f32(minval, unit.mul_add(span, minval))
        })
        .collect())
}

/// `jax.random.uniform(key, shape, minval=minval, maxval=maxval)` (float32).
pub fn uniform(key: Key, shape: &[usize], minval: f32, maxval: f32) -> Result<Array> {
    Array::from_f32(shape, uniform_values(key, shape, minval, maxval)?)
}

/// Standard normal floats as `Vec`: `sqrt(2) * erf_inv(u)` with `u` uniform in
/// `(-1, 1)` (the lower bound is the float just above -1).
fn normal_values(key: Key, shape: &[usize]) -> Result<Vec<f32>> {
    let lo = next_after_f32(-1.0, 0.0);
    let sqrt2 = std::f32::consts::SQRT_2;
    let mut u = uniform_values(key, shape, lo, 1.0)?;
    for v in &mut u {
        *v = sqrt2 * erf_inv_f32(*v);
    }
    Ok(u)
}

/// `jax.random.normal(key, shape)` (float32).
pub fn normal(key: Key, shape: &[usize]) -> Result<Array> {
    Array::from_f32(shape, normal_values(key, shape)?)
}

/// The float32 constants of a truncated normal draw on `(lower, upper)`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TruncatedBounds {
    /// `erf(lower / √2)`, where the uniform draw starts.
    pub erf_lower: f32,
    /// `erf(upper / √2)`, where it ends.
    pub erf_upper: f32,
    /// The float just above `lower`, the smallest value returned.
    pub lowest: f32,
    /// The float just below `upper`, the largest value returned.
    pub highest: f32,
}

impl TruncatedBounds {
    pub(crate) fn new(lower: f32, upper: f32) -> TruncatedBounds {
        // XLA rewrites the division by the constant √2 as a multiplication
        // by its float32 reciprocal.
        let inv_sqrt2 = 1.0 / std::f32::consts::SQRT_2;
        // Clamping to the open interval keeps rounding (or drawing exactly
        // the lower bound) from landing on or outside the bounds.
        TruncatedBounds {
            erf_lower: erf_f32_fused(lower * inv_sqrt2),
            erf_upper: erf_f32_fused(upper * inv_sqrt2),
            lowest: next_after_f32(lower, f32::INFINITY),
            highest: next_after_f32(upper, f32::NEG_INFINITY),
        }
    }
}

/// Truncated standard normal floats as `Vec`; see [`truncated_normal`].
pub(crate) fn truncated_normal_values(
    key: Key,
    lower: f32,
    upper: f32,
    shape: &[usize],
) -> Result<Vec<f32>> {
    let sqrt2 = std::f32::consts::SQRT_2;
    let b = TruncatedBounds::new(lower, upper);
    let mut u = uniform_values(key, shape, b.erf_lower, b.erf_upper)?;
    for v in &mut u {
        *v = min_f32(max_f32(sqrt2 * erf_inv_f32(*v), b.lowest), b.highest);
    }
    Ok(u)
}

/// `jax.random.truncated_normal(key, lower, upper, shape)` (float32): a
/// standard normal restricted to the open interval `(lower, upper)`, sampled
/// by inverting the CDF on a uniform draw between `erf(lower/√2)` and
/// `erf(upper/√2)`.
pub fn truncated_normal(key: Key, lower: f32, upper: f32, shape: &[usize]) -> Result<Array> {
    Array::from_f32(shape, truncated_normal_values(key, lower, upper, shape)?)
}

/// `jax.random.bernoulli(key, p, shape)` (mode `"low"`): `uniform < p`.
pub fn bernoulli(key: Key, p: f32, shape: &[usize]) -> Result<Array> {
    let u = uniform_values(key, shape, 0.0, 1.0)?;
    Array::from_bool(shape, u.into_iter().map(|v| v < p).collect())
}

/// `jax.random.randint(key, shape, minval, maxval)` (int32).
///
/// JAX draws two 32-bit words per element from the two halves of
/// `split(key)` and reduces the 64-bit number they form modulo the span with
/// 32-bit unsigned wrapping arithmetic (`2**32 mod span` computed as the
/// square of `2**16 mod span`). When `maxval <= minval` every element is
/// `minval`.
pub fn randint(key: Key, shape: &[usize], minval: i32, maxval: i32) -> Result<Array> {
    let keys = split(key, 2)?;
    let higher = random_bits(keys[0], shape)?;
    let lower = random_bits(keys[1], shape)?;
    let span: u32 = if maxval <= minval {
        1
    } else {
        maxval.wrapping_sub(minval) as u32
    };
    let multiplier = (1u32 << 16) % span;
    let multiplier = multiplier.wrapping_mul(multiplier) % span;
    let data = higher
        .iter()
        .zip(&lower)
        .map(|(&hi, &lo)| {
            let offset = (hi % span).wrapping_mul(multiplier).wrapping_add(lo % span) % span;
            minval.wrapping_add(offset as i32)
        })
        .collect();
    Array::from_i32(shape, data)
}

/// Number of sort rounds JAX's shuffle performs for `n` elements:
/// `ceil(3 * ln(max(1, n)) / ln(2**32 - 1))`, enough that all sort keys are
/// distinct with high probability.
fn shuffle_rounds(n: usize) -> usize {
    let uint32max = u32::MAX as f64;
    (3.0 * (n.max(1) as f64).ln() / uint32max.ln()).ceil() as usize
}

/// The permutation JAX's `_shuffle` applies to `n` items: each round splits
/// the key, draws one 32-bit sort key per item and stably sorts by it.
/// `result[j]` is the index of the item that lands at position `j`.
pub fn shuffle_indices(key: Key, n: usize) -> Result<Vec<usize>> {
    checked_numel(&[n])?;
    let mut order: Vec<usize> = (0..n).collect();
    let mut key = key;
    for _ in 0..shuffle_rounds(n) {
        let keys = split(key, 2)?;
        key = keys[0];
        let sort_keys = random_bits(keys[1], &[n])?;
        // Sort keys are attached to positions, not to items: sorting the
        // current arrangement carries each item with its position's key.
        let mut pairs: Vec<(u32, usize)> = sort_keys.into_iter().zip(order).collect();
        pairs.sort_by_key(|&(k, _)| k);
        order = pairs.into_iter().map(|(_, item)| item).collect();
    }
    Ok(order)
}

/// `jax.random.permutation(key, n)`: a shuffled `arange(n)` (int32).
pub fn permutation(key: Key, n: usize) -> Result<Array> {
    if n > i32::MAX as usize + 1 {
        bail!(
            ValueError,
            "permutation of {} elements does not fit in int32 indices",
            n
        );
    }
    let order = shuffle_indices(key, n)?;
    Array::from_i32(&[n], order.into_iter().map(|i| i as i32).collect())
}

/// Rows `indices` of `x` along axis 0, for any dtype.
fn take_rows(x: &Array, indices: &[usize], out_rows: usize) -> Result<Array> {
    let row_len: usize = x.shape()[1..].iter().product();
    let mut shape = x.shape().to_vec();
    shape[0] = out_rows;
    fn gather<T: Copy>(data: &[T], indices: &[usize], row_len: usize) -> Vec<T> {
        let mut out = Vec::with_capacity(indices.len() * row_len);
        for &i in indices {
            out.extend_from_slice(&data[i * row_len..(i + 1) * row_len]);
        }
        out
    }
    let buffer = match x.buffer() {
        Buffer::F32(d) => Buffer::F32(gather(d, indices, row_len).into()),
        Buffer::I32(d) => Buffer::I32(gather(d, indices, row_len).into()),
        Buffer::U32(d) => Buffer::U32(gather(d, indices, row_len).into()),
        Buffer::Bool(d) => Buffer::Bool(gather(d, indices, row_len).into()),
        Buffer::C64(d) => Buffer::C64(gather(d, indices, row_len).into()),
    };
    Array::from_buffer(&shape, buffer)
}

/// `jax.random.permutation(key, x)` for an array: its rows (slices along
/// axis 0) shuffled together. A 0-d int32 array `n` means `arange(n)`, as in
/// JAX; a 0-d array of another dtype is a TypeError.
pub fn permutation_array(key: Key, x: &Array) -> Result<Array> {
    if x.ndim() == 0 {
        return match x.i32_data() {
            Ok(d) if d[0] >= 0 => permutation(key, d[0] as usize),
            Ok(_) => Ok(Array::from_i32(&[0], vec![])?),
            Err(_) => bail!(TypeError, "x must be an integer or at least 1-dimensional"),
        };
    }
    let n = x.shape()[0];
    let order = shuffle_indices(key, n)?;
    take_rows(x, &order, n)
}

/// `jax.random.choice(key, n, shape, replace)` with uniform probabilities:
/// int32 indices into `arange(n)`. With replacement this is
/// `randint(key, shape, 0, n)`; without, the first `prod(shape)` entries of
/// `permutation(key, n)`.
pub fn choice(key: Key, n: usize, shape: &[usize], replace: bool) -> Result<Array> {
    let draws = checked_numel(shape)?;
    if draws == 0 {
        return Array::from_i32(shape, vec![]);
    }
    if n == 0 {
        bail!(
            ValueError,
            "a must be greater than 0 unless no samples are taken"
        );
    }
    if n > i32::MAX as usize {
        bail!(ValueError, "choice over {} items does not fit in int32", n);
    }
    if replace {
        return randint(key, shape, 0, n as i32);
    }
    if draws > n {
        bail!(
            ValueError,
            "Cannot take a larger sample (size {}) than population (size {}) when 'replace=False'",
            draws,
            n
        );
    }
    let order = shuffle_indices(key, n)?;
    Array::from_i32(shape, order[..draws].iter().map(|&i| i as i32).collect())
}

/// `jax.random.choice(key, x, shape, replace)` with uniform probabilities
/// over the rows of `x` (axis 0): the result has shape
/// `shape + x.shape[1:]`.
pub fn choice_array(key: Key, x: &Array, shape: &[usize], replace: bool) -> Result<Array> {
    if x.ndim() == 0 {
        return match x.i32_data() {
            Ok(d) if d[0] >= 0 => choice(key, d[0] as usize, shape, replace),
            _ => bail!(
                ValueError,
                "a must be a positive integer or at least 1-dimensional"
            ),
        };
    }
    let idx = choice(key, x.shape()[0], &[checked_numel(shape)?], replace)?;
    let indices: Vec<usize> = idx.i32_data()?.iter().map(|&i| i as usize).collect();
    let rows = take_rows(x, &indices, indices.len())?;
    let mut out_shape = shape.to_vec();
    out_shape.extend_from_slice(&x.shape()[1..]);
    rows.with_shape(&out_shape)
}
