//! `jax.scipy.stats` (the normal distribution's density and log density;
//! `sem` and `mode` are in `scipy_stats`),
//! the parts of `jax.scipy.special` beyond `logsumexp`, and a NumPy-level
//! `scipy` whose `scipy.special` computes on host arrays. Each formula is
//! JAX's, in its order of operations; what is not modelled refuses by name.

use crate::array::DType;
use crate::bail;
use crate::error::Result;
use crate::ops;
use crate::python::array::{to_value, weak_scalar};
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};
use crate::trace::Value;

use super::Builder;

/// The arguments promoted to one inexact dtype (`promote_args_inexact`):
/// integers and booleans become float32, and a Python number stays weak.
pub(super) fn inexact(vals: Vec<Value>) -> Result<Vec<Value>> {
    let strong: Vec<&Value> = vals.iter().filter(|v| !v.aval().weak).collect();
    let pick = |vs: &[&Value]| vs.iter().map(|v| v.dtype()).max();
    let dtype = pick(&strong)
        .or_else(|| pick(&vals.iter().collect::<Vec<_>>()))
        .unwrap_or(DType::F32)
        .max(DType::F32);
    vals.iter().map(|v| ops::convert(v, dtype)).collect()
}

/// Argument `i` (or keyword `name`), or the default as a Python float.
fn arg_or(a: &Args, i: usize, name: &str, default: f64, func: &str) -> Result<Value> {
    match a.opt(Some(i), name) {
        Some(o) => to_value(&o),
        None if default.is_nan() => to_value(&a.req(Some(i), name, func)?),
        None => Ok(weak_scalar(default, DType::F32)),
    }
}

/// `lax.square`.
fn square(x: &Value) -> Result<Value> {
    ops::integer_pow(x, 2)
}

/// `norm.logpdf(x, loc=0, scale=1)`:
/// `(log(2 pi scale^2) + ((x - loc) / ...)^2) / -2` as JAX writes it.
fn norm_logpdf_value(a: &Args, func: &str) -> Result<Value> {
    let args = inexact(vec![
        arg_or(a, 0, "x", f64::NAN, func)?,
        arg_or(a, 1, "loc", 0.0, func)?,
        arg_or(a, 2, "scale", 1.0, func)?,
    ])?;
    let (x, loc, scale) = (&args[0], &args[1], &args[2]);
    let d = x.dtype();
    let sq_scale = square(scale)?;
    let two_pi = ops::scalar(2.0 * std::f64::consts::PI, d);
    let log_normalizer = ops::log(&ops::mul(&two_pi, &sq_scale)?)?;
    let log_unnormalized = ops::div(&square(&ops::sub(x, loc)?)?, &sq_scale)?;
    ops::div(
        &ops::add(&log_normalizer, &log_unnormalized)?,
        &ops::scalar(-2.0, d),
    )
}

fn norm_logpdf(_: &mut Interp, a: Args) -> Result<Obj> {
    Ok(Obj::Array(norm_logpdf_value(&a, "logpdf")?))
}

fn norm_pdf(_: &mut Interp, a: Args) -> Result<Obj> {
    Ok(Obj::Array(ops::exp(&norm_logpdf_value(&a, "pdf")?)?))
}

/// A function shardlab does not model yet: calling it refuses by name.
fn refused(name: &'static str) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    move |_, _| bail!(NotImplementedError, "not supported by shardlab yet: {name}")
}

/// `jax.scipy.stats.norm`.
fn norm_module() -> Obj {
    let mut b = Builder::new("jax.scipy.stats.norm");
    b.func("logpdf", norm_logpdf);
    b.func("pdf", norm_pdf);
    const REFUSED: [(&str, &str); 6] = [
        ("cdf", "jax.scipy.stats.norm.cdf"),
        ("logcdf", "jax.scipy.stats.norm.logcdf"),
        ("ppf", "jax.scipy.stats.norm.ppf"),
        ("sf", "jax.scipy.stats.norm.sf"),
        ("logsf", "jax.scipy.stats.norm.logsf"),
        ("isf", "jax.scipy.stats.norm.isf"),
    ];
    for (name, full) in REFUSED {
        b.func(name, refused(full));
    }
    b.build()
}

/// `jax.scipy.stats`.
pub fn stats_module() -> Obj {
    let mut b = Builder::new("jax.scipy.stats");
    b.attr("norm", norm_module());
    super::scipy_stats::register(&mut b);
    b.build()
}

fn float_arg(a: &Args, func: &str) -> Result<Value> {
    let x = to_value(&a.req(Some(0), "x", func)?)?;
    Ok(inexact(vec![x])?.remove(0))
}

/// `logit(x) = log(x / (1 - x))`.
fn logit(x: &Value) -> Result<Value> {
    let one = ops::scalar(1.0, x.dtype());
    ops::log(&ops::div(x, &ops::sub(&one, x)?)?)
}

/// Adds `logit`, `erf` and the refusals to `jax.scipy.special`.
pub fn register_special(b: &mut Builder) {
    b.func("logit", |_, a| {
        Ok(Obj::Array(logit(&float_arg(&a, "logit")?)?))
    });
    b.func("erf", |_, a| {
        let x = float_arg(&a, "erf")?;
        Ok(Obj::Array(ops::unary(crate::array::UnaryOp::Erf, &x)?))
    });
    b.func("erfinv", |_, a| {
        let x = float_arg(&a, "erfinv")?;
        Ok(Obj::Array(ops::unary(crate::array::UnaryOp::ErfInv, &x)?))
    });
    super::scipy_special_gamma::register(b);
}

/// The NumPy-level `scipy.special`: `expit` and `logit` on host arrays,
/// in float32 as shardlab's host arrays are.
pub fn host_special_module() -> Obj {
    let mut special = Builder::new("scipy.special");
    special.func("expit", |_, a| {
        let x = float_arg(&a, "expit")?;
        let one = ops::scalar(1.0, x.dtype());
        let e = ops::exp(&ops::neg(&x)?)?;
        Ok(Obj::Array(ops::div(&one, &ops::add(&one, &e)?)?))
    });
    special.func("logit", |_, a| {
        Ok(Obj::Array(logit(&float_arg(&a, "logit")?)?))
    });
    special.func("jv", super::numpy::special::jv);
    let special = special.build();
    super::numpy::wrap_host_module(&special);
    special
}
