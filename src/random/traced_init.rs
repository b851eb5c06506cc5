//! The initializers of [`super::initializers`] on key data held as a
//! [`Value`], for parameters built while a trace stages a program (a
//! jitted model constructor, `jax.eval_shape`, `nnx.eval_shape`): the draw
//! becomes equations of the program, computed only when it runs, with the
//! same bits as the host initializers.

use crate::array::DType;
use crate::error::Result;
use crate::ops;
use crate::trace::Value;

use super::initializers::{
    embed_variance, truncated_stddev, uniform_limit, variance, Distribution,
};
use super::traced;

fn times(x: Value, factor: f32) -> Result<Value> {
    ops::mul(&x, &ops::scalar(factor as f64, DType::F32))
}

/// [`super::initializers::variance_scaling`] on a key value.
pub fn variance_scaling(
    key: &Value,
    shape: &[usize],
    scale: f64,
    mode: &str,
    distribution: &str,
) -> Result<Value> {
    draw_scaled(key, shape, variance(shape, scale, mode)?, distribution)
}

/// [`super::initializers::embed_default`] on a key value.
pub fn embed_default(key: &Value, shape: &[usize]) -> Result<Value> {
    draw_scaled(key, shape, embed_variance(shape)?, "normal")
}

/// Draws of `distribution` with the given variance.
fn draw_scaled(key: &Value, shape: &[usize], variance: f32, distribution: &str) -> Result<Value> {
    match Distribution::parse(distribution)? {
        Distribution::TruncatedNormal => times(
            traced::truncated_normal(key, -2.0, 2.0, shape)?,
            truncated_stddev(variance),
        ),
        Distribution::Normal => times(traced::normal(key, shape)?, variance.sqrt()),
        Distribution::Uniform => times(
            traced::uniform(key, shape, -1.0, 1.0)?,
            uniform_limit(variance),
        ),
    }
}

/// [`super::initializers::normal`] on a key value.
pub fn normal(key: &Value, shape: &[usize], stddev: f32) -> Result<Value> {
    times(traced::normal(key, shape)?, stddev)
}

/// [`super::initializers::uniform`] on a key value.
pub fn uniform(key: &Value, shape: &[usize], scale: f32) -> Result<Value> {
    times(traced::uniform(key, shape, 0.0, 1.0)?, scale)
}

/// [`super::initializers::truncated_normal`] on a key value.
pub fn truncated_normal(key: &Value, shape: &[usize], stddev: f32) -> Result<Value> {
    times(traced::truncated_normal(key, -2.0, 2.0, shape)?, stddev)
}

/// `lecun_normal()` on a key value.
pub fn lecun_normal(key: &Value, shape: &[usize]) -> Result<Value> {
    variance_scaling(key, shape, 1.0, "fan_in", "truncated_normal")
}
