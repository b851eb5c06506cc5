//! The losses of `optax` (also `optax.losses`): regression
//! (`l2_loss`, `squared_error`, `huber_loss`) and classification
//! (`softmax_cross_entropy` and its integer-label form,
//! `sigmoid_binary_cross_entropy`), elementwise or per example as optax
//! returns them.

use crate::array::{Array, DType, ReduceOp};
use crate::error::Result;
use crate::python::array::to_value;
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};
use crate::trace::Value;
use crate::{bail, ops as jops};

use super::super::Builder;
use super::base::Hyper;

fn c(v: f64) -> Value {
    jops::scalar(v, DType::F32)
}

fn arr(a: &Args, i: usize, name: &str, func: &str) -> Result<Value> {
    jops::convert(&to_value(&a.req(Some(i), name, func)?)?, DType::F32)
}

/// `predictions - targets`, or the predictions without targets.
fn residual(a: &Args, func: &str) -> Result<Value> {
    let p = arr(a, 0, "predictions", func)?;
    Ok(match a.opt(Some(1), "targets") {
        Some(t) => jops::sub(&p, &to_value(&t)?)?,
        None => p,
    })
}

/// `huber_loss`: quadratic up to `delta`, linear beyond.
fn huber(a: &Args) -> Result<Value> {
    let err = residual(a, "huber_loss")?;
    let delta = Hyper::arg(a, Some(2), "delta", Some(1.0), "huber_loss")?.value();
    let abs = jops::abs(&err)?;
    let quad = jops::minimum(&abs, &delta)?;
    let lin = jops::sub(&abs, &quad)?;
    let q = jops::mul(&c(0.5), &jops::integer_pow(&quad, 2)?)?;
    jops::add(&q, &jops::mul(&delta, &lin)?)
}

/// `sigmoid_binary_cross_entropy`: `-y log p - (1 - y) log (1 - p)` with
/// the logarithms as `log_sigmoid`.
fn sigmoid_bce(a: &Args) -> Result<Value> {
    let f = "sigmoid_binary_cross_entropy";
    let logits = arr(a, 0, "logits", f)?;
    let labels = arr(a, 1, "labels", f)?;
    let log_sigmoid = |x: &Value| jops::neg(&super::super::nn::softplus(&jops::neg(x)?)?);
    let log_p = log_sigmoid(&logits)?;
    let log_not_p = log_sigmoid(&jops::neg(&logits)?)?;
    let first = jops::mul(&jops::neg(&labels)?, &log_p)?;
    let second = jops::mul(&jops::sub(&c(1.0), &labels)?, &log_not_p)?;
    jops::sub(&first, &second)
}

fn softmax_cross_entropy(a: &Args) -> Result<Value> {
    let logits = arr(a, 0, "logits", "softmax_cross_entropy")?;
    let labels = arr(a, 1, "labels", "softmax_cross_entropy")?;
    let ls = super::super::nn::log_softmax(&logits, &[-1])?;
    jops::neg(&jops::sum(&jops::mul(&labels, &ls)?, Some(&[-1]), false)?)
}

fn softmax_cross_entropy_with_integer_labels(a: &Args) -> Result<Value> {
    let f = "softmax_cross_entropy_with_integer_labels";
    let logits = arr(a, 0, "logits", f)?;
    let labels = to_value(&a.req(Some(1), "labels", f)?)?;
    if labels.dtype() != DType::I32 {
        bail!(TypeError, "labels must be an integer array");
    }
    // log_softmax picked at the label: logits[label] - logsumexp(logits).
    let m = jops::stop_gradient(&jops::reduce(ReduceOp::Max, &logits, Some(&[-1]), true)?)?;
    let shifted = jops::sub(&logits, &m)?;
    let n = logits.shape().last().copied().unwrap_or(0);
    let iota = Array::arange(0.0, n as f64, 1.0, DType::I32)?;
    let onehot = jops::equal(&jops::expand_dims(&labels, -1)?, &Value::Concrete(iota))?;
    let zeros = jops::zeros_like(&shifted);
    let picked = jops::sum(
        &jops::select(&onehot, &shifted, &zeros)?,
        Some(&[-1]),
        false,
    )?;
    let lse = jops::log(&jops::sum(&jops::exp(&shifted)?, Some(&[-1]), false)?)?;
    jops::sub(&lse, &picked)
}

fn loss(b: &mut Builder, name: &str, f: fn(&Args) -> Result<Value>) {
    b.func(name, move |_: &mut Interp, a| Ok(Obj::Array(f(&a)?)));
}

/// Registers the losses on `b` (the `optax` module or `optax.losses`).
pub(super) fn register(b: &mut Builder) {
    loss(b, "l2_loss", |a| {
        let d = residual(a, "l2_loss")?;
        jops::mul(&c(0.5), &jops::integer_pow(&d, 2)?)
    });
    loss(b, "squared_error", |a| {
        jops::integer_pow(&residual(a, "squared_error")?, 2)
    });
    loss(b, "huber_loss", huber);
    loss(b, "sigmoid_binary_cross_entropy", sigmoid_bce);
    loss(b, "softmax_cross_entropy", softmax_cross_entropy);
    loss(
        b,
        "softmax_cross_entropy_with_integer_labels",
        softmax_cross_entropy_with_integer_labels,
    );
    super::losses_more::register(b);
}
