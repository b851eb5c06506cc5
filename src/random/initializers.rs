//! `jax.nn.initializers` (re-exported by Flax as `flax.linen.initializers` and
//! `flax.nnx.initializers`) for float32 parameters, with fans computed the
//! default way (`in_axis=-2`, `out_axis=-1`, no batch axis).

use crate::array::{Array, DType};
use crate::bail;
use crate::error::Result;

use super::distributions::{
    normal as normal_dist, truncated_normal_values, uniform as uniform_dist,
};
use super::{checked_numel, Key};

/// The standard deviation of a standard normal truncated to `(-2, 2)`;
/// `variance_scaling` divides by it so the truncated draw has the requested
/// variance.
const TRUNCATED_STDDEV: f32 = 0.879_625_661_034_239_8_f64 as f32;

/// Which fan `variance_scaling` divides `scale` by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FanMode {
    /// `"fan_in"`.
    FanIn,
    /// `"fan_out"`.
    FanOut,
    /// `"fan_avg"`: the arithmetic mean of both fans.
    FanAvg,
    /// `"fan_geo_avg"`: the geometric mean of both fans.
    FanGeoAvg,
}

impl FanMode {
    /// Parses the name JAX accepts, or fails with JAX's ValueError.
    pub fn parse(mode: &str) -> Result<FanMode> {
        Ok(match mode {
            "fan_in" => FanMode::FanIn,
            "fan_out" => FanMode::FanOut,
            "fan_avg" => FanMode::FanAvg,
            "fan_geo_avg" => FanMode::FanGeoAvg,
            _ => bail!(
                ValueError,
                "invalid mode for variance scaling initializer: {}",
                mode
            ),
        })
    }
}

/// The distribution `variance_scaling` samples from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Distribution {
    /// `"truncated_normal"`: a normal truncated to two standard deviations.
    TruncatedNormal,
    /// `"normal"`.
    Normal,
    /// `"uniform"`: uniform on `[-limit, limit)`.
    Uniform,
}

impl Distribution {
    /// Parses the name JAX accepts, or fails with JAX's ValueError.
    pub fn parse(distribution: &str) -> Result<Distribution> {
        Ok(match distribution {
            "truncated_normal" => Distribution::TruncatedNormal,
            "normal" => Distribution::Normal,
            "uniform" => Distribution::Uniform,
            _ => bail!(
                ValueError,
                "invalid distribution for variance scaling initializer: {}",
                distribution
            ),
        })
    }
}

/// `(fan_in, fan_out)` of a weight shape as JAX computes them: the sizes of
/// axes -2 and -1, each multiplied by the receptive field (the product of all
/// other axes, as for convolution kernels).
pub fn compute_fans(shape: &[usize]) -> Result<(f64, f64)> {
    if shape.len() <= 1 {
        bail!(
            ValueError,
            "Can't compute input and output sizes of a {}-dimensional weights tensor with default in_axis. Must be at least 2D or specify in_axis explicitly.",
            shape.len()
        );
    }
    let numel = checked_numel(shape)?;
    let in_size = shape[shape.len() - 2];
    let out_size = shape[shape.len() - 1];
    if in_size == 0 || out_size == 0 {
        bail!(ZeroDivisionError, "division by zero");
    }
    // Python's true division, one step at a time, as JAX writes it.
    let receptive = numel as f64 / in_size as f64 / out_size as f64;
    Ok((in_size as f64 * receptive, out_size as f64 * receptive))
}

/// `jax.nn.initializers.variance_scaling(scale, mode, distribution)` applied
/// to `key` and `shape`: draws with variance `scale / fan` where `fan` is
/// chosen by `mode`.
pub fn variance_scaling(
    key: Key,
    shape: &[usize],
    scale: f64,
    mode: &str,
    distribution: &str,
) -> Result<Array> {
    draw_scaled(key, shape, variance(shape, scale, mode)?, distribution)
}

/// The variance `variance_scaling(scale, mode, ...)` gives a weight of
/// `shape`: `scale / fan`.
pub fn variance(shape: &[usize], scale: f64, mode: &str) -> Result<f32> {
    let (fan_in, fan_out) = compute_fans(shape)?;
    let denominator = match FanMode::parse(mode)? {
        FanMode::FanIn => fan_in,
        FanMode::FanOut => fan_out,
        FanMode::FanAvg => (fan_in + fan_out) / 2.0,
        FanMode::FanGeoAvg => (fan_in * fan_out).powf(0.5),
    };
    if denominator == 0.0 {
        bail!(ZeroDivisionError, "float division by zero");
    }
    // The ratio is formed in Python floats and only then rounded to float32.
    Ok((scale / denominator) as f32)
}

/// Flax's default embedding initializer, `variance_scaling(1.0, 'fan_in',
/// 'normal', out_axis=0)` on a `(num_embeddings, features)` table.
pub fn embed_default(key: Key, shape: &[usize]) -> Result<Array> {
    draw_scaled(key, shape, embed_variance(shape)?, "normal")
}

/// The variance of Flax's default embedding initializer: in and out axes
/// are both 0, so the fan-in is the feature count (reached through JAX's
/// receptive-field arithmetic, in Python floats).
pub fn embed_variance(shape: &[usize]) -> Result<f32> {
    let n = match shape.first() {
        Some(&n) if n > 0 => n as f64,
        _ => bail!(ZeroDivisionError, "division by zero"),
    };
    let receptive = checked_numel(shape)? as f64 / n / n;
    let fan_in = n * receptive;
    if fan_in == 0.0 {
        bail!(ZeroDivisionError, "float division by zero");
    }
    Ok((1.0 / fan_in) as f32)
}

/// Draws of `distribution` with the given variance.
fn draw_scaled(key: Key, shape: &[usize], variance: f32, distribution: &str) -> Result<Array> {
    match Distribution::parse(distribution)? {
        Distribution::TruncatedNormal => {
            let stddev = truncated_stddev(variance);
            let values = truncated_normal_values(key, -2.0, 2.0, shape)?;
            Array::from_f32(shape, values.into_iter().map(|v| v * stddev).collect())
        }
        Distribution::Normal => scaled(normal_dist(key, shape)?, variance.sqrt()),
        Distribution::Uniform => scaled(
            uniform_dist(key, shape, -1.0, 1.0)?,
            uniform_limit(variance),
        ),
    }
}

/// The factor of a `(-2, 2)` truncated standard normal draw that gives it
/// `variance`.
pub(crate) fn truncated_stddev(variance: f32) -> f32 {
    variance.sqrt() / TRUNCATED_STDDEV
}

/// The half-width of a uniform draw with `variance`.
pub(crate) fn uniform_limit(variance: f32) -> f32 {
    (3.0 * variance).sqrt()
}

/// Every element of a float32 array multiplied by `factor`.
fn scaled(a: Array, factor: f32) -> Result<Array> {
    let data = a.f32_data()?.iter().map(|&v| v * factor).collect();
    Array::from_f32(a.shape(), data)
}

/// `initializers.zeros`: float32 zeros (consumes no randomness).
pub fn zeros(shape: &[usize]) -> Result<Array> {
    checked_numel(shape)?;
    Ok(Array::zeros(shape, DType::F32))
}

/// `initializers.ones`: float32 ones (consumes no randomness).
pub fn ones(shape: &[usize]) -> Result<Array> {
    constant(shape, 1.0)
}

/// `initializers.constant(value)`: float32 `value` everywhere.
pub fn constant(shape: &[usize], value: f32) -> Result<Array> {
    checked_numel(shape)?;
    Ok(Array::full(shape, value as f64, DType::F32))
}

/// `initializers.normal(stddev)`: `normal(key, shape) * stddev` (JAX's default
/// stddev is 0.01).
pub fn normal(key: Key, shape: &[usize], stddev: f32) -> Result<Array> {
    scaled(normal_dist(key, shape)?, stddev)
}

/// `initializers.uniform(scale)`: `uniform(key, shape) * scale`, i.e. values
/// in `[0, scale)` (JAX's default scale is 0.01).
pub fn uniform(key: Key, shape: &[usize], scale: f32) -> Result<Array> {
    scaled(uniform_dist(key, shape, 0.0, 1.0)?, scale)
}

/// `initializers.truncated_normal(stddev)`: a standard normal truncated to
/// `(-2, 2)` times `stddev`, without the variance correction of
/// [`variance_scaling`].
pub fn truncated_normal(key: Key, shape: &[usize], stddev: f32) -> Result<Array> {
    let values = truncated_normal_values(key, -2.0, 2.0, shape)?;
    Array::from_f32(shape, values.into_iter().map(|v| v * stddev).collect())
}

/// `lecun_normal()`: `variance_scaling(1.0, "fan_in", "truncated_normal")`,
/// the default kernel initializer of linen `Dense` and nnx `Linear`.
pub fn lecun_normal(key: Key, shape: &[usize]) -> Result<Array> {
    variance_scaling(key, shape, 1.0, "fan_in", "truncated_normal")
}

/// `lecun_uniform()`: `variance_scaling(1.0, "fan_in", "uniform")`.
pub fn lecun_uniform(key: Key, shape: &[usize]) -> Result<Array> {
    variance_scaling(key, shape, 1.0, "fan_in", "uniform")
}

/// `glorot_normal()` (alias `xavier_normal`):
/// `variance_scaling(1.0, "fan_avg", "truncated_normal")`.
pub fn glorot_normal(key: Key, shape: &[usize]) -> Result<Array> {
    variance_scaling(key, shape, 1.0, "fan_avg", "truncated_normal")
}

/// `glorot_uniform()` (alias `xavier_uniform`):
/// `variance_scaling(1.0, "fan_avg", "uniform")`.
pub fn glorot_uniform(key: Key, shape: &[usize]) -> Result<Array> {
    variance_scaling(key, shape, 1.0, "fan_avg", "uniform")
}

/// `xavier_normal()`, the same as [`glorot_normal`].
pub fn xavier_normal(key: Key, shape: &[usize]) -> Result<Array> {
    glorot_normal(key, shape)
}

/// `xavier_uniform()`, the same as [`glorot_uniform`].
pub fn xavier_uniform(key: Key, shape: &[usize]) -> Result<Array> {
    glorot_uniform(key, shape)
}

/// `he_normal()` (alias `kaiming_normal`):
/// `variance_scaling(2.0, "fan_in", "truncated_normal")`.
pub fn he_normal(key: Key, shape: &[usize]) -> Result<Array> {
    variance_scaling(key, shape, 2.0, "fan_in", "truncated_normal")
}

/// `he_uniform()` (alias `kaiming_uniform`):
/// `variance_scaling(2.0, "fan_in", "uniform")`.
pub fn he_uniform(key: Key, shape: &[usize]) -> Result<Array> {
    variance_scaling(key, shape, 2.0, "fan_in", "uniform")
}

/// `kaiming_normal()`, the same as [`he_normal`].
pub fn kaiming_normal(key: Key, shape: &[usize]) -> Result<Array> {
    he_normal(key, shape)
}

/// `kaiming_uniform()`, the same as [`he_uniform`].
pub fn kaiming_uniform(key: Key, shape: &[usize]) -> Result<Array> {
    he_uniform(key, shape)
}
