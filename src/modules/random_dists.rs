//! `jax.random`'s distributions that transform a uniform, normal or
//! Bernoulli draw elementwise: `exponential`, `laplace`, `logistic`,
//! `cauchy`, `lognormal`, `rayleigh`, `pareto`, `weibull_min`, `maxwell`,
//! `double_sided_maxwell`, `rademacher`, `wald`, `geometric`, `triangular`
//! and `categorical` (the Gumbel-max trick).
//!
//! The draw is made as the existing samplers make it ([`Source`]): on the
//! host for a concrete key, in equations for a traced key or while a program
//! is staged, so these work under `jax.jit` and `vmap` as `uniform` does.
//! The transformation is then JAX's, operation by operation, on values, so
//! the bits agree with JAX's wherever the draw's do.

use crate::array::{DType, UnaryOp};
use crate::bail;
use crate::error::Result;
use crate::ops as jops;
use crate::random::{distributions as dist, traced, Key};
use crate::trace::Value;

use super::random::{float_dtype, shape_arg, single_key, staged_single};
use super::Builder;
use crate::python::array::to_value;
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};

/// Where a sampler's random bits come from.
#[derive(Clone)]
pub(crate) enum Source {
    /// A concrete key, drawn from on the host.
    Host(Key),
    /// Key data drawn from in equations (traced, or part of a staged program).
    Staged(Value),
}

impl Source {
    /// The key argument of sampler `func`.
    pub(crate) fn of(k: &Obj, func: &str) -> Result<Source> {
        if let Some((v, _)) = staged_single(k, func)? {
            return Ok(Source::Staged(v));
        }
        Ok(Source::Host(single_key(k, func)?))
    }

    /// `uniform(key, shape, minval=lo, maxval=hi)`.
    pub(crate) fn uniform(&self, shape: &[usize], lo: f32, hi: f32) -> Result<Value> {
        match self {
            Source::Host(k) => Ok(Value::Concrete(dist::uniform(*k, shape, lo, hi)?)),
            Source::Staged(v) => traced::uniform(v, shape, lo, hi),
        }
    }

    /// `normal(key, shape)`.
    pub(crate) fn normal(&self, shape: &[usize]) -> Result<Value> {
        match self {
            Source::Host(k) => Ok(Value::Concrete(dist::normal(*k, shape)?)),
            Source::Staged(v) => traced::normal(v, shape),
        }
    }

    /// `bernoulli(key, 0.5, shape)`.
    fn fair_coin(&self, shape: &[usize]) -> Result<Value> {
        match self {
            Source::Host(k) => Ok(Value::Concrete(dist::bernoulli(*k, 0.5, shape)?)),
            Source::Staged(v) => traced::bernoulli(v, 0.5, shape),
        }
    }

    /// The two keys of `split(key)`.
    pub(crate) fn split2(&self) -> Result<(Source, Source)> {
        match self {
            Source::Host(k) => {
                let keys = k.split(2)?;
                Ok((Source::Host(keys[0]), Source::Host(keys[1])))
            }
            Source::Staged(v) => {
                let keys = traced::split(v, &[2])?;
                let row = |i: usize| -> Result<Source> {
                    let r = jops::slice(&keys, &[i, 0], &[i + 1, 2], &[1, 1])?;
                    Ok(Source::Staged(jops::reshape(&r, &[2])?))
                };
                Ok((row(0)?, row(1)?))
            }
        }
    }
}

/// A weakly typed float32 constant (`lax._const` of a float32 operand).
fn c(v: f64) -> Value {
    crate::python::array::weak_scalar(v, DType::F32)
}

/// A float32 constant of the sample's dtype, strongly typed.
fn f(v: f64) -> Value {
    jops::scalar(v, DType::F32)
}

/// `exponential(key, shape)`: `-log1p(-u)`, u uniform on [0, 1).
pub(crate) fn exponential_value(src: &Source, shape: &[usize]) -> Result<Value> {
    let u = src.uniform(shape, 0.0, 1.0)?;
    jops::neg(&jops::unary(UnaryOp::Log1p, &jops::neg(&u)?)?)
}

/// `gumbel(key, shape)` in mode "low": `-log(-log(u))`, u uniform on
/// `[tiny, 1)` (tiny is float32's smallest normal number, so `log(u)` stays
/// finite). The span `1 - tiny` rounds to 1, a power of two, so a traced
/// draw rounds as JAX's does too.
pub(crate) fn gumbel_value(src: &Source, shape: &[usize]) -> Result<Value> {
    let u = src.uniform(shape, f32::MIN_POSITIVE, 1.0)?;
    jops::neg(&jops::log(&jops::neg(&jops::log(&u)?)?)?)
}

/// `rademacher(key, shape, dtype)`: `2 * bernoulli(0.5) - 1`.
fn rademacher_value(src: &Source, shape: &[usize], dtype: DType) -> Result<Value> {
    let b = jops::astype(&src.fair_coin(shape)?, dtype)?;
    let two = crate::python::array::weak_scalar(2.0, DType::I32);
    let one = crate::python::array::weak_scalar(1.0, DType::I32);
    jops::astype(&jops::sub(&jops::mul(&two, &b)?, &one)?, dtype)
}

/// `maxwell(key, shape)`: the Euclidean norm of three standard normals.
fn maxwell_value(src: &Source, shape: &[usize]) -> Result<Value> {
    let mut full = shape.to_vec();
    full.push(3);
    let n = src.normal(&full)?;
    jops::sqrt(&jops::sum(&jops::mul(&n, &n)?, Some(&[-1]), false)?)
}

/// A distribution parameter: an array or number as float32 (strongly
/// typed, as `lax.convert_element_type` makes it), or `default`.
fn param(a: &Args, index: usize, name: &str, default: Option<f64>, func: &str) -> Result<Value> {
    let v = match (a.opt(Some(index), name), default) {
        (Some(o), _) => to_value(&o)?,
        (None, Some(d)) => return Ok(f(d)),
        (None, None) => to_value(&a.req(Some(index), name, func)?)?,
    };
    jops::astype(&v, DType::F32)
}

/// The sample shape: the `shape` argument, or the broadcast of the
/// parameters' shapes when it is None; the parameters must broadcast to it.
fn sample_shape(a: &Args, index: usize, params: &[&Value], func: &str) -> Result<Vec<usize>> {
    let mut joint: Vec<usize> = vec![];
    for p in params {
        joint = crate::array::broadcast_shapes(&joint, &p.shape())?;
    }
    match a.opt(Some(index), "shape") {
        None => Ok(joint),
        Some(o) => {
            let shape = super::numpy::shape_of(&o)?;
            if crate::array::broadcast_shapes(&shape, &joint)? != shape {
                bail!(
                    ValueError,
                    "{func} parameter shapes must be broadcast-compatible with shape argument, and the result of broadcasting the shapes must equal the shape argument, but got result {:?} for shape argument {:?}.",
                    crate::array::broadcast_shapes(&shape, &joint)?,
                    shape
                );
            }
            Ok(shape)
        }
    }
}

/// A sampler of `f(key, shape)` with no parameters (`shape` at position 1,
/// `dtype` at 2).
fn plain(
    name: &'static str,
    f: fn(&Source, &[usize]) -> Result<Value>,
) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    move |_, a| {
        let src = Source::of(&a.req(Some(0), "key", name)?, name)?;
        let shape = shape_arg(a.get(Some(1), "shape"))?;
        float_dtype(&a, 2, name)?;
        Ok(Obj::Array(f(&src, &shape)?))
    }
}

/// `laplace`: `sign(u) * log1p(-|u|)`, u uniform on `[-1 + epsneg, 1)`.
fn laplace_value(src: &Source, shape: &[usize]) -> Result<Value> {
    let epsneg = f32::EPSILON / 2.0;
    let u = src.uniform(shape, -1.0 + epsneg, 1.0)?;
    let tail = jops::unary(UnaryOp::Log1p, &jops::neg(&jops::abs(&u)?)?)?;
    jops::mul(&jops::sign(&u)?, &tail)
}

/// `logistic`: `log(u) - log1p(-u)`, u uniform on `[tiny, 1)`.
fn logistic_value(src: &Source, shape: &[usize]) -> Result<Value> {
    let u = src.uniform(shape, f32::MIN_POSITIVE, 1.0)?;
    jops::sub(
        &jops::log(&u)?,
        &jops::unary(UnaryOp::Log1p, &jops::neg(&u)?)?,
    )
}

/// `cauchy`: `tan(pi * (u - 0.5))`, u uniform on `[eps, 1)`.
fn cauchy_value(src: &Source, shape: &[usize]) -> Result<Value> {
    let u = src.uniform(shape, f32::EPSILON, 1.0)?;
    let centered = jops::sub(&u, &f(0.5))?;
    jops::unary(
        UnaryOp::Tan,
        &jops::mul(&f(std::f64::consts::PI), &centered)?,
    )
}

/// `lognormal(key, sigma=1, shape)`: `exp(normal * sigma)`.
fn lognormal(_: &mut Interp, a: Args) -> Result<Obj> {
    let src = Source::of(&a.req(Some(0), "key", "lognormal")?, "lognormal")?;
    let sigma = param(&a, 1, "sigma", Some(1.0), "lognormal")?;
    let shape = sample_shape(&a, 2, &[&sigma], "lognormal")?;
    float_dtype(&a, 3, "lognormal")?;
    let n = jops::mul(&src.normal(&shape)?, &sigma)?;
    Ok(Obj::Array(jops::exp(&n)?))
}

/// `rayleigh(key, scale, shape)`: `scale * sqrt(-2 log u)`.
fn rayleigh(_: &mut Interp, a: Args) -> Result<Obj> {
    let src = Source::of(&a.req(Some(0), "key", "rayleigh")?, "rayleigh")?;
    let scale = param(&a, 1, "scale", None, "rayleigh")?;
    let shape = sample_shape(&a, 2, &[&scale], "rayleigh")?;
    float_dtype(&a, 3, "rayleigh")?;
    let u = src.uniform(&shape, 0.0, 1.0)?;
    let scale = jops::broadcast_to(&scale, &shape)?;
    let root = jops::sqrt(&jops::mul(&jops::log(&u)?, &f(-2.0))?)?;
    Ok(Obj::Array(jops::mul(&scale, &root)?))
}

/// `pareto(key, b, shape)`: `exp(exponential / b)`.
fn pareto(_: &mut Interp, a: Args) -> Result<Obj> {
    let src = Source::of(&a.req(Some(0), "key", "pareto")?, "pareto")?;
    let b = param(&a, 1, "b", None, "pareto")?;
    let shape = sample_shape(&a, 2, &[&b], "pareto")?;
    float_dtype(&a, 3, "pareto")?;
    let e = exponential_value(&src, &shape)?;
    Ok(Obj::Array(jops::exp(&jops::div(&e, &b)?)?))
}

/// `weibull_min(key, scale, concentration, shape)`:
/// `(-log1p(-u)) ** (1 / concentration) * scale`.
fn weibull_min(_: &mut Interp, a: Args) -> Result<Obj> {
    let func = "weibull_min";
    let src = Source::of(&a.req(Some(0), "key", func)?, func)?;
    let scale = to_value(&a.req(Some(1), "scale", func)?)?;
    let conc = to_value(&a.req(Some(2), "concentration", func)?)?;
    let shape = shape_arg(a.get(Some(3), "shape"))?;
    float_dtype(&a, 4, func)?;
    let u = src.uniform(&shape, 0.0, 1.0)?;
    let e = jops::neg(&jops::unary(UnaryOp::Log1p, &jops::neg(&u)?)?)?;
    let power = jops::div(&c(1.0), &conc)?;
    Ok(Obj::Array(jops::mul(&jops::pow(&e, &power)?, &scale)?))
}

/// `double_sided_maxwell(key, loc, scale, shape)`: a Maxwell draw with a
/// random sign, scaled and shifted; the shape gains the parameters' shape.
fn double_sided_maxwell(_: &mut Interp, a: Args) -> Result<Obj> {
    let func = "double_sided_maxwell";
    let src = Source::of(&a.req(Some(0), "key", func)?, func)?;
    let loc = to_value(&a.req(Some(1), "loc", func)?)?;
    let scale = to_value(&a.req(Some(2), "scale", func)?)?;
    let mut shape = shape_arg(a.get(Some(3), "shape"))?;
    float_dtype(&a, 4, func)?;
    let params = crate::array::broadcast_shapes(&loc.shape(), &scale.shape())?;
    if shape.is_empty() {
        shape = params.clone();
    }
    shape.extend(params);
    let (km, kr) = src.split2()?;
    let m = maxwell_value(&km, &shape)?;
    let sign = rademacher_value(&kr, &shape, DType::F32)?;
    let out = jops::add(&jops::mul(&jops::mul(&sign, &m)?, &scale)?, &loc)?;
    Ok(Obj::Array(out))
}

fn rademacher(_: &mut Interp, a: Args) -> Result<Obj> {
    let src = Source::of(&a.req(Some(0), "key", "rademacher")?, "rademacher")?;
    let shape = shape_arg(a.get(Some(1), "shape"))?;
    let dtype = match a.opt(Some(2), "dtype") {
        Some(d) => super::numpy::dtype_of(&d)?,
        None => DType::I32,
    };
    Ok(Obj::Array(rademacher_value(&src, &shape, dtype)?))
}

/// `wald(key, mean, shape)`: Michael, Schucany and Haas's transformation
/// of a normal and a uniform draw, from the two halves of the key.
fn wald(_: &mut Interp, a: Args) -> Result<Obj> {
    let src = Source::of(&a.req(Some(0), "key", "wald")?, "wald")?;
    let mean = param(&a, 1, "mean", None, "wald")?;
    let shape = sample_shape(&a, 2, &[&mean], "wald")?;
    float_dtype(&a, 3, "wald")?;
    let (k1, k2) = src.split2()?;
    let mean = jops::broadcast_to(&mean, &shape)?;
    let v = k1.normal(&shape)?;
    let z = k2.uniform(&shape, 0.0, 1.0)?;
    let y = jops::integer_pow(&v, 2)?;
    let y_sq = jops::integer_pow(&y, 2)?;
    let mean_sq = jops::integer_pow(&mean, 2)?;
    let inner = jops::add(
        &jops::mul(&jops::mul(&c(4.0), &mean)?, &y)?,
        &jops::mul(&mean_sq, &y_sq)?,
    )?;
    let sqrt_term = jops::sqrt(&inner)?;
    let x = jops::sub(
        &jops::add(&mean, &jops::div(&jops::mul(&mean_sq, &y)?, &c(2.0))?)?,
        &jops::mul(&jops::div(&mean, &c(2.0))?, &sqrt_term)?,
    )?;
    let accept = jops::less_equal(&z, &jops::div(&mean, &jops::add(&mean, &x)?)?)?;
    let out = jops::select(&accept, &x, &jops::div(&mean_sq, &x)?)?;
    Ok(Obj::Array(out))
}

/// `geometric(key, p, shape, dtype=int32)`: `floor(log u / log1p(-p)) + 1`,
/// with a draw of exactly 0 taken as 1.
fn geometric(_: &mut Interp, a: Args) -> Result<Obj> {
    let src = Source::of(&a.req(Some(0), "key", "geometric")?, "geometric")?;
    let p = param(&a, 1, "p", None, "geometric")?;
    let shape = sample_shape(&a, 2, &[&p], "geometric")?;
    let dtype = match a.opt(Some(3), "dtype") {
        Some(d) => super::numpy::dtype_of(&d)?,
        None => DType::I32,
    };
    let u = src.uniform(&shape, 0.0, 1.0)?;
    let zero = jops::equal(&u, &c(0.0))?;
    let u = super::numpy::where_values(zero, c(1.0), u)?;
    let log_q = jops::broadcast_to(&jops::unary(UnaryOp::Log1p, &jops::neg(&p)?)?, &shape)?;
    let ratio = jops::unary(UnaryOp::Floor, &jops::div(&jops::log(&u)?, &log_q)?)?;
    let g = jops::add(&ratio, &c(1.0))?;
    Ok(Obj::Array(jops::astype(&g, dtype)?))
}

/// `triangular(key, left, mode, right, shape)`: the inverse CDF of the
/// triangular distribution at a uniform draw.
fn triangular(_: &mut Interp, a: Args) -> Result<Obj> {
    let func = "triangular";
    let src = Source::of(&a.req(Some(0), "key", func)?, func)?;
    let left = param(&a, 1, "left", None, func)?;
    let mode = param(&a, 2, "mode", None, func)?;
    let right = param(&a, 3, "right", None, func)?;
    let shape = sample_shape(&a, 4, &[&left, &mode, &right], func)?;
    float_dtype(&a, 5, func)?;
    let (l, m, r) = (
        jops::broadcast_to(&left, &shape)?,
        jops::broadcast_to(&mode, &shape)?,
        jops::broadcast_to(&right, &shape)?,
    );
    let width = jops::sub(&r, &l)?;
    let fc = jops::div(&jops::sub(&m, &l)?, &width)?;
    let u = src.uniform(&shape, 0.0, 1.0)?;
    let low = jops::mul(&jops::mul(&u, &width)?, &jops::sub(&m, &l)?)?;
    let out1 = jops::add(&l, &jops::sqrt(&low)?)?;
    let rest = jops::sub(&c(1.0), &u)?;
    let high = jops::mul(&jops::mul(&rest, &width)?, &jops::sub(&r, &m)?)?;
    let out2 = jops::sub(&r, &jops::sqrt(&high)?)?;
    Ok(Obj::Array(jops::select(
        &jops::less(&u, &fc)?,
        &out1,
        &out2,
    )?))
}

/// `categorical(key, logits, axis, shape)` with replacement: the argmax of
/// the logits plus Gumbel noise over the category axis.
fn categorical(_: &mut Interp, a: Args) -> Result<Obj> {
    let func = "categorical";
    let src = Source::of(&a.req(Some(0), "key", func)?, func)?;
    let logits = to_value(&a.req(Some(1), "logits", func)?)?;
    if logits.dtype() != DType::F32 {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.random.categorical of {} logits",
            logits.dtype().short_name()
        );
    }
    let axis = match a.opt(Some(2), "axis") {
        Some(o) => crate::python::builtins::to_int(&o)?,
        None => -1,
    };
    let replace = match a.get(Some(4), "replace") {
        Some(o) => crate::python::ops::truthy(&o, "replace")?,
        None => true,
    };
    if !replace || a.opt(Some(5), "mode").is_some() {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.random.categorical with replace=False or mode"
        );
    }
    let lshape = logits.shape();
    let ax = jops::norm_axis(axis, lshape.len())?;
    let mut batch = lshape.clone();
    batch.remove(ax);
    let shape = match a.opt(Some(3), "shape") {
        None => batch.clone(),
        Some(o) => super::numpy::shape_of(&o)?,
    };
    if shape.len() < batch.len() || shape[shape.len() - batch.len()..] != batch[..] {
        bail!(
            ValueError,
            "categorical parameter shapes must be broadcast-compatible with shape argument, and the result of broadcasting the shapes must equal the shape argument, but got result {:?} for shape argument {:?}.",
            batch,
            shape
        );
    }
    let prefix = shape.len() - batch.len();
    // The noise has the sample's leading axes, then the logits' axes.
    let mut noise_shape = shape.clone();
    noise_shape.insert(prefix + ax, lshape[ax]);
    let noise = gumbel_value(&src, &noise_shape)?;
    let lead: Vec<i64> = (0..prefix as i64).collect();
    let logits = jops::expand_dims_at(&logits, &lead)?;
    let scores = jops::add(&noise, &logits)?;
    let axis = (prefix + ax) as i64;
    let picked = jops::arg_reduce(&scores, Some(axis), false, false)?;
    Ok(Obj::Array(picked))
}

/// Adds the distributions to `jax.random`.
pub fn register(b: &mut Builder) {
    b.func("exponential", plain("exponential", exponential_value));
    b.func("laplace", plain("laplace", laplace_value));
    b.func("logistic", plain("logistic", logistic_value));
    b.func("cauchy", plain("cauchy", cauchy_value));
    b.func("maxwell", plain("maxwell", maxwell_value));
    b.func("lognormal", lognormal);
    b.func("rayleigh", rayleigh);
    b.func("pareto", pareto);
    b.func("weibull_min", weibull_min);
    b.func("double_sided_maxwell", double_sided_maxwell);
    b.func("rademacher", rademacher);
    b.func("wald", wald);
    b.func("geometric", geometric);
    b.func("triangular", triangular);
    b.func("categorical", categorical);
}
