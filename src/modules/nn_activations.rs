//! The `jax.nn` activations beyond the classic ones of [`super::nn`]:
//! bounded and piecewise ones (`relu6`, `hard_*`, `sparse_*`), smooth ones
//! (`celu`, `selu`, `mish`, `squareplus`, `soft_sign`), the gated `glu`, the
//! log-space `log1mexp` and `logmeanexp`, and `standardize`.
//!
//! Each is written from engine operations in the order JAX's formula uses,
//! so that values round as JAX's do and gradients follow by the usual rules.
//! Flax re-exports part of them (`flax.linen`, `flax.nnx`): [`add_shared`]
//! adds those, [`add_jax_only`] the ones only `jax.nn` has.

use crate::array::UnaryOp;
use crate::error::Result;
use crate::trace::Value;
use crate::{bail, ops as jops};

use super::nn::{all_axes, axes_of, c, float_arg, logsumexp};
use super::numpy::where_values;
use super::Builder;
use crate::python::array::to_value;
use crate::python::builtins::to_int;
use crate::python::interp::Interp;
use crate::python::ops::truthy;
use crate::python::value::{Args, Obj};

/// `jax.nn.relu6`: `min(max(x, 0), 6)`, whose derivative JAX defines as 0
/// at both corners. Inside the open interval the value is `x` itself, so
/// selecting `x` there and a gradient-free clip elsewhere gives both.
pub fn relu6(x: &Value) -> Result<Value> {
    let clipped = jops::minimum(&jops::maximum(x, &c(0.0))?, &c(6.0))?;
    let inside = jops::binary(
        crate::array::BinaryOp::And,
        &jops::greater(x, &c(0.0))?,
        &jops::less(x, &c(6.0))?,
    )?;
    jops::select(&inside, x, &jops::stop_gradient(&clipped)?)
}

/// `jax.nn.hard_sigmoid`: `relu6(x + 3) / 6`.
fn hard_sigmoid(x: &Value) -> Result<Value> {
    jops::div(&relu6(&jops::add(x, &c(3.0))?)?, &c(6.0))
}

/// `jax.nn.hard_silu` (also `hard_swish`): `x * hard_sigmoid(x)`.
fn hard_silu(x: &Value) -> Result<Value> {
    jops::mul(x, &hard_sigmoid(x)?)
}

/// `jax.nn.hard_tanh`: -1 below -1, 1 above 1, `x` between, as two nested
/// `jnp.where`s with Python-int branches.
fn hard_tanh(x: &Value) -> Result<Value> {
    let one = crate::python::array::weak_scalar(1.0, crate::array::DType::I32);
    let minus_one = crate::python::array::weak_scalar(-1.0, crate::array::DType::I32);
    let low = where_values(jops::less(x, &c(-1.0))?, minus_one, x.clone())?;
    where_values(jops::greater(x, &c(1.0))?, one, low)
}

/// `jax.nn.soft_sign`: `x / (|x| + 1)`.
fn soft_sign(x: &Value) -> Result<Value> {
    jops::div(x, &jops::add(&jops::abs(x)?, &c(1.0))?)
}

/// `jax.nn.selu`: `scale * elu(x, alpha)` with the constants of the
/// self-normalizing networks paper.
fn selu(x: &Value) -> Result<Value> {
    let alpha = 1.673_263_242_354_377;
    let scale = 1.050_700_987_355_48;
    jops::mul(&c(scale), &elu(x, &c(alpha))?)
}

/// `jax.nn.elu(x, alpha)`: `x` where positive, `alpha * expm1(x)` elsewhere
/// (the exponent sees 0 where x is positive, so it never overflows).
pub fn elu(x: &Value, alpha: &Value) -> Result<Value> {
    let pos = jops::greater(x, &c(0.0))?;
    let safe = where_values(pos.clone(), c(0.0), x.clone())?;
    let neg = jops::mul(alpha, &jops::unary(UnaryOp::Expm1, &safe)?)?;
    where_values(pos, x.clone(), neg)
}

/// `jax.nn.celu(x, alpha)`: `max(x, 0) + alpha * expm1(min(x, 0) / alpha)`.
fn celu(x: &Value, alpha: &Value) -> Result<Value> {
    let pos = jops::maximum(x, &c(0.0))?;
    let scaled = jops::div(&jops::minimum(x, &c(0.0))?, alpha)?;
    let neg = jops::mul(alpha, &jops::unary(UnaryOp::Expm1, &scaled)?)?;
    jops::add(&pos, &neg)
}

/// `jax.nn.mish`: `x * tanh(softplus(x))`.
fn mish(x: &Value) -> Result<Value> {
    jops::mul(x, &jops::tanh(&super::nn::softplus(x)?)?)
}

/// `jax.nn.squareplus(x, b)`: `(x + sqrt(x^2 + b)) / 2`.
fn squareplus(x: &Value, b: &Value) -> Result<Value> {
    let root = jops::sqrt(&jops::add(&jops::integer_pow(x, 2)?, b)?)?;
    jops::div(&jops::add(x, &root)?, &c(2.0))
}

/// `jax.nn.sparse_plus`: 0 up to -1, `x` from 1 on, `(x + 1)^2 / 4` between.
fn sparse_plus(x: &Value) -> Result<Value> {
    let mid = jops::div(&jops::integer_pow(&jops::add(x, &c(1.0))?, 2)?, &c(4.0))?;
    let upper = where_values(jops::greater_equal(x, &c(1.0))?, x.clone(), mid)?;
    where_values(jops::less_equal(x, &c(-1.0))?, c(0.0), upper)
}

/// `jax.nn.sparse_sigmoid`: `0.5 * clip(x + 1, 0, 2)`.
fn sparse_sigmoid(x: &Value) -> Result<Value> {
    let shifted = jops::add(x, &c(1.0))?;
    let clipped = jops::minimum(&jops::maximum(&shifted, &c(0.0))?, &c(2.0))?;
    jops::mul(&c(0.5), &clipped)
}

/// `jax.nn.log1mexp`: `log(1 - exp(-x))`, through `expm1` below `log 2`
/// and `log1p` above, where each keeps its precision.
fn log1mexp(x: &Value) -> Result<Value> {
    let small = jops::log(&jops::neg(&jops::unary(UnaryOp::Expm1, &jops::neg(x)?)?)?)?;
    let large = jops::unary(UnaryOp::Log1p, &jops::neg(&jops::exp(&jops::neg(x)?)?)?)?;
    where_values(jops::less(x, &c(std::f64::consts::LN_2))?, small, large)
}

/// `jax.nn.glu(x, axis)`: the first half along `axis` times the sigmoid of
/// the second half.
fn glu(x: &Value, axis: i64) -> Result<Value> {
    let shape = x.shape();
    let ax = jops::norm_axis(axis, shape.len())?;
    if shape[ax] % 2 != 0 {
        bail!(AssertionError, "axis size must be divisible by 2");
    }
    let half = shape[ax] / 2;
    let part = |start: usize| {
        let mut lo = vec![0; shape.len()];
        let mut hi = shape.clone();
        lo[ax] = start;
        hi[ax] = start + half;
        jops::slice(x, &lo, &hi, &vec![1; shape.len()])
    };
    jops::mul(&part(0)?, &jops::logistic(&part(half)?)?)
}

/// `jax.nn.standardize(x, axis, mean, variance, epsilon)`: `(x - mean) *
/// rsqrt(variance + epsilon)`, the variance by the "fast" formula
/// `mean(x^2) - mean^2` clipped at 0, or the "stable" two-pass one.
fn standardize(_: &mut Interp, a: Args) -> Result<Obj> {
    let x = float_arg(&a, 0, "x", "standardize")?;
    if a.opt(Some(5), "where").is_some() {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: standardize with where"
        );
    }
    let axes = all_axes(&x, axes_of(a.get(Some(1), "axis"), Some(vec![-1]))?);
    let mean = match a.opt(Some(2), "mean") {
        Some(m) => to_value(&m)?,
        None => jops::mean(&x, Some(&axes), true)?,
    };
    let variance = match a.opt(Some(3), "variance") {
        Some(v) => to_value(&v)?,
        None => variance(&x, &mean, &axes, &algorithm(&a)?)?,
    };
    let eps = match a.opt(Some(4), "epsilon") {
        Some(e) => to_value(&e)?,
        None => c(1e-5),
    };
    let scale = jops::unary(UnaryOp::Rsqrt, &jops::add(&variance, &eps)?)?;
    Ok(Obj::Array(jops::mul(&jops::sub(&x, &mean)?, &scale)?))
}

fn algorithm(a: &Args) -> Result<String> {
    Ok(match a.opt(None, "algorithm") {
        Some(o) => crate::python::format::str_of(&o),
        None => "fast".into(),
    })
}

fn variance(x: &Value, mean: &Value, axes: &[i64], algorithm: &str) -> Result<Value> {
    match algorithm {
        "stable" => {
            let centered = jops::integer_pow(&jops::sub(x, mean)?, 2)?;
            jops::mean(&centered, Some(axes), true)
        }
        "fast" => {
            let sq = jops::mean(&jops::integer_pow(x, 2)?, Some(axes), true)?;
            let v = jops::sub(&sq, &jops::integer_pow(mean, 2)?)?;
            jops::maximum(&c(0.0), &v)
        }
        other => bail!(
            ValueError,
            "Unknown algorithm '{other}'. Expected 'fast' or 'stable'."
        ),
    }
}

/// `jax.nn.logmeanexp(x, axis, where, keepdims)`: `logsumexp` less the log
/// of the number of elements reduced.
fn logmeanexp(_: &mut Interp, a: Args) -> Result<Obj> {
    let x = float_arg(&a, 0, "x", "logmeanexp")?;
    if a.opt(Some(2), "where").is_some() {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: logmeanexp with where"
        );
    }
    let axes = all_axes(&x, axes_of(a.get(Some(1), "axis"), None)?);
    let keep = match a.get(Some(3), "keepdims") {
        Some(o) => truthy(&o, "keepdims")?,
        None => false,
    };
    let lse = logsumexp(&x, &axes, keep)?;
    let shape = x.shape();
    let mut count = 1usize;
    for &ax in &axes {
        count *= shape[jops::norm_axis(ax, shape.len())?];
    }
    let count = jops::scalar(count as f64, lse.dtype());
    Ok(Obj::Array(jops::sub(&lse, &jops::log(&count)?)?))
}

/// A parameter such as `alpha`: the argument as an array, or the default
/// as a Python float.
fn param(a: &Args, index: usize, name: &str, default: f64) -> Result<Value> {
    match a.opt(Some(index), name) {
        Some(o) => to_value(&o),
        None => Ok(c(default)),
    }
}

fn unary(
    name: &'static str,
    f: fn(&Value) -> Result<Value>,
) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    move |_, a| Ok(Obj::Array(f(&float_arg(&a, 0, "x", name)?)?))
}

fn with_param(
    name: &'static str,
    param_name: &'static str,
    default: f64,
    f: fn(&Value, &Value) -> Result<Value>,
) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    move |_, a| {
        let x = float_arg(&a, 0, "x", name)?;
        Ok(Obj::Array(f(&x, &param(&a, 1, param_name, default)?)?))
    }
}

/// The activations `flax.linen` and `flax.nnx` re-export from `jax.nn`.
pub fn add_shared(b: &mut Builder) {
    b.func("relu6", unary("relu6", relu6));
    b.func("hard_sigmoid", unary("hard_sigmoid", hard_sigmoid));
    b.func("hard_silu", unary("hard_silu", hard_silu));
    b.func("hard_swish", unary("hard_swish", hard_silu));
    // hard_tanh keeps an integer argument's dtype: its branches are ints.
    b.func("hard_tanh", |_, a| {
        let x = to_value(&a.req(Some(0), "x", "hard_tanh")?)?;
        Ok(Obj::Array(hard_tanh(&x)?))
    });
    b.func("soft_sign", unary("soft_sign", soft_sign));
    b.func("selu", unary("selu", selu));
    b.func("elu", with_param("elu", "alpha", 1.0, elu));
    b.func("celu", with_param("celu", "alpha", 1.0, celu));
    b.func("glu", |_, a| {
        let x = float_arg(&a, 0, "x", "glu")?;
        let axis = match a.opt(Some(1), "axis") {
            Some(o) => to_int(&o)?,
            None => -1,
        };
        Ok(Obj::Array(glu(&x, axis)?))
    });
    b.func("standardize", standardize);
}

/// The activations only `jax.nn` has.
pub fn add_jax_only(b: &mut Builder) {
    b.func("mish", unary("mish", mish));
    b.func("squareplus", with_param("squareplus", "b", 4.0, squareplus));
    b.func("sparse_plus", unary("sparse_plus", sparse_plus));
    b.func("sparse_sigmoid", unary("sparse_sigmoid", sparse_sigmoid));
    b.func("log1mexp", unary("log1mexp", log1mexp));
    b.func("logmeanexp", logmeanexp);
}
