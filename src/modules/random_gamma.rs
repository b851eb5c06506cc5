//! `jax.random.gamma` and the distributions JAX builds on it: `loggamma`,
//! `beta`, `dirichlet`, `t`, `chisquare`, `f`, `generalized_normal` and
//! `ball`.
//!
//! JAX draws each element with its own key (`split(key, size)`) by
//! Marsaglia and Tsang's rejection method, a `while_loop` whose number of
//! rounds depends on the bits drawn. shardlab runs that loop on the host,
//! element by element, with XLA's float32 operations (fused multiply-adds
//! where XLA fuses them), so the samples equal JAX's. A key or parameter
//! known only when a program runs (under `jit`, `vmap` or `grad`) would need
//! the loop in equations, which shardlab does not stage yet: those refuse.

use crate::array::{xla_math as xm, Array, DType};
use crate::error::Result;
use crate::ops as jops;
use crate::random::{distributions as dist, Key};
use crate::trace::Value;
use crate::{bail, err};

use super::random::{float_dtype, shape_arg, single_key};
use super::random_dists::Source;
use super::Builder;
use crate::python::array::to_value;
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};

/// One float32 from a scalar draw.
fn first(a: Array) -> f32 {
    a.get_f64(0) as f32
}

/// A uniform float32 on [0, 1) from `key`, as `uniform(key, ())`.
fn unit(key: Key) -> Result<f32> {
    Ok(first(dist::uniform(key, &[], 0.0, 1.0)?))
}

/// Rounds beyond which a draw is taken to loop forever (each round accepts
/// with probability above 0.95, so this is never reached by real draws).
const MAX_ROUNDS: usize = 100_000;

/// A normal draw `x` with `v = 1 + c x > 0`: the inner loop of
/// Marsaglia–Tsang, splitting `key` once per attempt.
fn positive_v(key: Key, c: f32) -> Result<(f32, f32)> {
    let (mut key, mut x, mut v) = (key, 0.0f32, -1.0f32);
    let mut rounds = 0;
    while v <= 0.0 {
        let keys = key.split(2)?;
        key = keys[0];
        x = first(dist::normal(keys[1], &[])?);
        v = x.mul_add(c, 1.0);
        rounds += 1;
        if rounds > MAX_ROUNDS {
            bail!(RuntimeError, "jax.random.gamma did not converge");
        }
    }
    Ok((x, v))
}

/// One gamma sample of shape `alpha` from `key` (JAX's `_gamma_one`),
/// or its logarithm when `log_space`.
fn gamma_one(key: Key, alpha: f32, log_space: bool) -> Result<f32> {
    let third = 1.0f32 / 3.0;
    let boosted = alpha >= 1.0;
    let a = if boosted { alpha } else { alpha + 1.0 };
    let d = a - third;
    let c = third / xm::sqrt(d);
    let keys = key.split(2)?;
    let (mut key, subkey) = (keys[0], keys[1]);
    let (mut x2, mut v3, mut u) = (0.0f32, 1.0f32, 2.0f32);
    let mut rounds = 0;
    // Keep drawing while the candidate is rejected (both squeeze and log
    // tests fail); the initial state is rejected by construction.
    loop {
        let squeeze = u >= (-0.0331f32).mul_add(x2 * x2, 1.0);
        let log_test = xm::log(u) >= d.mul_add((1.0 - v3) + xm::log(v3), x2 * 0.5);
        if !(squeeze && log_test) {
            break;
        }
        let k3 = key.split(3)?;
        key = k3[0];
        let (x, v) = positive_v(k3[1], c)?;
        x2 = x * x;
        v3 = (v * v) * v;
        u = unit(k3[2])?;
        rounds += 1;
        if rounds > MAX_ROUNDS {
            bail!(RuntimeError, "jax.random.gamma did not converge");
        }
    }
    let draw = unit(subkey)?;
    if log_space {
        // -exponential(subkey) = log1p(-u).
        let log_sample = xm::log1p(-draw);
        let boost = if boosted || log_sample == 0.0 {
            0.0
        } else {
            log_sample * (1.0 / alpha)
        };
        Ok((xm::log(d) + xm::log(v3)) + boost)
    } else {
        let sample = 1.0 - draw;
        let boost = if boosted {
            1.0
        } else {
            xm::pow(sample, 1.0 / alpha)
        };
        Ok((d * v3) * boost)
    }
}

/// Gamma samples of shapes `alpha` (already of the sample's shape), one
/// key of `split(key, size)` per element.
fn gamma_array(key: Key, alpha: &Array, log_space: bool) -> Result<Array> {
    let n = alpha.size();
    let keys = key.split(n)?;
    let out = keys
        .iter()
        .enumerate()
        .map(|(i, &k)| gamma_one(k, alpha.get_f64(i) as f32, log_space))
        .collect::<Result<Vec<f32>>>()?;
    Array::from_f32(alpha.shape(), out)
}

/// A concrete float32 parameter, broadcast to `shape`.
fn host_param(v: &Value, shape: &[usize], func: &str) -> Result<Array> {
    let Value::Concrete(_) = v else {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.random.{func} with a traced parameter (under jit, vmap or grad)"
        );
    };
    let b = jops::broadcast_to(&jops::astype(v, DType::F32)?, shape)?;
    Ok(b.concrete(func)?.clone())
}

/// A required array parameter.
fn arg(a: &Args, index: usize, name: &str, func: &str) -> Result<Value> {
    to_value(&a.req(Some(index), name, func)?)
}

/// The sample shape: the `shape` argument or, when None, `default`.
fn shape_or(a: &Args, index: usize, default: Vec<usize>) -> Result<Vec<usize>> {
    match a.opt(Some(index), "shape") {
        Some(o) => shape_arg(Some(o)),
        None => Ok(default),
    }
}

/// `gamma(key, a, shape)` or `loggamma`, as a value, for sampler `func`.
fn gamma_value(key: Key, a: &Value, shape: &[usize], log_space: bool, func: &str) -> Result<Value> {
    let alpha = host_param(a, shape, func)?;
    Ok(Value::Concrete(gamma_array(key, &alpha, log_space)?))
}

fn gamma_call(log_space: bool) -> impl Fn(&mut Interp, Args) -> Result<Obj> {
    let func = if log_space { "loggamma" } else { "gamma" };
    move |_, a| {
        let key = single_key(&a.req(Some(0), "key", func)?, func)?;
        let alpha = arg(&a, 1, "a", func)?;
        let shape = shape_or(&a, 2, alpha.shape())?;
        float_dtype(&a, 3, func)?;
        Ok(Obj::Array(gamma_value(
            key, &alpha, &shape, log_space, func,
        )?))
    }
}

/// `beta(key, a, b, shape)`: two log-gamma draws from the key's halves,
/// normalised against their maximum so that neither underflows.
fn beta(_: &mut Interp, a: Args) -> Result<Obj> {
    let key = single_key(&a.req(Some(0), "key", "beta")?, "beta")?;
    let (pa, pb) = (arg(&a, 1, "a", "beta")?, arg(&a, 2, "b", "beta")?);
    let joint = crate::array::broadcast_shapes(&pa.shape(), &pb.shape())?;
    let shape = shape_or(&a, 3, joint)?;
    float_dtype(&a, 4, "beta")?;
    let keys = key.split(2)?;
    let ga = gamma_value(keys[0], &pa, &shape, true, "beta")?;
    let gb = gamma_value(keys[1], &pb, &shape, true, "beta")?;
    let top = jops::maximum(&ga, &gb)?;
    let sa = jops::exp(&jops::sub(&ga, &top)?)?;
    let sb = jops::exp(&jops::sub(&gb, &top)?)?;
    Ok(Obj::Array(jops::div(&sa, &jops::add(&sa, &sb)?)?))
}

/// `dirichlet(key, alpha, shape)`: the softmax of log-gamma draws over the
/// last axis.
fn dirichlet(_: &mut Interp, a: Args) -> Result<Obj> {
    let key = single_key(&a.req(Some(0), "key", "dirichlet")?, "dirichlet")?;
    let alpha = arg(&a, 1, "alpha", "dirichlet")?;
    let ashape = alpha.shape();
    let Some((&k, batch)) = ashape.split_last() else {
        bail!(
            ValueError,
            "dirichlet requires alpha.ndim >= 1, got alpha.ndim == 0"
        );
    };
    let mut shape = shape_or(&a, 2, batch.to_vec())?;
    float_dtype(&a, 3, "dirichlet")?;
    shape.push(k);
    let g = gamma_value(key, &alpha, &shape, true, "dirichlet")?;
    Ok(Obj::Array(super::nn::softmax(&g, &[-1])?))
}

/// `t(key, df, shape)`: `normal * sqrt((df / 2) / gamma(df / 2))`.
fn student_t(_: &mut Interp, a: Args) -> Result<Obj> {
    let k = a.req(Some(0), "key", "t")?;
    let key = single_key(&k, "t")?;
    let df = jops::astype(&arg(&a, 1, "df", "t")?, DType::F32)?;
    let shape = shape_or(&a, 2, df.shape())?;
    float_dtype(&a, 3, "t")?;
    let keys = key.split(2)?;
    let n = Source::Host(keys[0]).normal(&shape)?;
    let half = jops::div(&df, &jops::scalar(2.0, DType::F32))?;
    let g = gamma_value(keys[1], &half, &shape, false, "t")?;
    let root = jops::sqrt(&jops::div(&half, &g)?)?;
    Ok(Obj::Array(jops::mul(&n, &root)?))
}

/// `chisquare(key, df, shape)` as a value: `2 exp(loggamma(df / 2))`.
fn chisquare_value(key: Key, df: &Value, shape: &[usize], func: &str) -> Result<Value> {
    let two = jops::scalar(2.0, DType::F32);
    let half = jops::div(&jops::astype(df, DType::F32)?, &two)?;
    let g = gamma_value(key, &half, shape, true, func)?;
    jops::mul(&jops::exp(&g)?, &two)
}

fn chisquare(_: &mut Interp, a: Args) -> Result<Obj> {
    let key = single_key(&a.req(Some(0), "key", "chisquare")?, "chisquare")?;
    let df = arg(&a, 1, "df", "chisquare")?;
    let shape = shape_or(&a, 2, df.shape())?;
    float_dtype(&a, 3, "chisquare")?;
    Ok(Obj::Array(chisquare_value(key, &df, &shape, "chisquare")?))
}

/// `f(key, dfnum, dfden, shape)`: the ratio of two chi-square draws, each
/// divided by its degrees of freedom.
fn f_dist(_: &mut Interp, a: Args) -> Result<Obj> {
    let key = single_key(&a.req(Some(0), "key", "f")?, "f")?;
    let num = jops::astype(&arg(&a, 1, "dfnum", "f")?, DType::F32)?;
    let den = jops::astype(&arg(&a, 2, "dfden", "f")?, DType::F32)?;
    let joint = crate::array::broadcast_shapes(&num.shape(), &den.shape())?;
    let shape = shape_or(&a, 3, joint)?;
    float_dtype(&a, 4, "f")?;
    let keys = key.split(2)?;
    let chi_den = chisquare_value(keys[0], &den, &shape, "f")?;
    let chi_num = chisquare_value(keys[1], &num, &shape, "f")?;
    let ratio = jops::div(&jops::div(&chi_num, &num)?, &jops::div(&chi_den, &den)?)?;
    Ok(Obj::Array(ratio))
}

/// `generalized_normal(key, p, shape)` as a value: a gamma draw of shape
/// `1/p` raised to `1/p`, with a random sign.
fn generalized_normal_value(key: Key, p: f64, shape: &[usize]) -> Result<Value> {
    let keys = key.split(2)?;
    let inv = crate::python::array::weak_scalar(1.0 / p, DType::F32);
    let g = gamma_value(keys[0], &inv, shape, false, "generalized_normal")?;
    let coin = Value::Concrete(dist::bernoulli(keys[1], 0.5, shape)?);
    let sign = jops::sub(
        &jops::mul(
            &jops::scalar(2.0, DType::F32),
            &jops::astype(&coin, DType::F32)?,
        )?,
        &jops::scalar(1.0, DType::F32),
    )?;
    jops::mul(&sign, &jops::pow(&g, &inv)?)
}

/// A Python-number parameter.
fn number(a: &Args, index: usize, name: &str, default: Option<f64>, func: &str) -> Result<f64> {
    let o = match (a.opt(Some(index), name), default) {
        (Some(o), _) => o,
        (None, Some(d)) => return Ok(d),
        (None, None) => a.req(Some(index), name, func)?,
    };
    match &o {
        Obj::Array(Value::Concrete(x)) if x.size() == 1 => Ok(x.get_f64(0)),
        o => o
            .as_number()
            .ok_or_else(|| err!(TypeError, "{name} must be a number, got {}", o.type_name())),
    }
}

fn generalized_normal(_: &mut Interp, a: Args) -> Result<Obj> {
    let func = "generalized_normal";
    let key = single_key(&a.req(Some(0), "key", func)?, func)?;
    let p = number(&a, 1, "p", None, func)?;
    let shape = shape_arg(a.get(Some(2), "shape"))?;
    float_dtype(&a, 3, func)?;
    Ok(Obj::Array(generalized_normal_value(key, p, &shape)?))
}

/// `ball(key, d, p, shape)`: a generalized normal point of dimension `d`
/// scaled by its p-norm, pushed inward by an exponential draw.
fn ball(_: &mut Interp, a: Args) -> Result<Obj> {
    let key = single_key(&a.req(Some(0), "key", "ball")?, "ball")?;
    let d = crate::python::builtins::to_int(&a.req(Some(1), "d", "ball")?)?;
    let p = number(&a, 2, "p", Some(2.0), "ball")?;
    let shape = shape_arg(a.get(Some(3), "shape"))?;
    float_dtype(&a, 4, "ball")?;
    let keys = key.split(2)?;
    let mut full = shape.clone();
    full.push(d.max(0) as usize);
    let g = generalized_normal_value(keys[0], p, &full)?;
    let e = super::random_dists::exponential_value(&Source::Host(keys[1]), &shape)?;
    let pw = crate::python::array::weak_scalar(p, DType::F32);
    let norm = jops::sum(&jops::pow(&jops::abs(&g)?, &pw)?, Some(&[-1]), false)?;
    let inv = crate::python::array::weak_scalar(1.0 / p, DType::F32);
    let radius = jops::pow(&jops::add(&norm, &e)?, &inv)?;
    let radius = jops::expand_dims(&radius, -1)?;
    Ok(Obj::Array(jops::div(&g, &radius)?))
}

/// Adds the gamma family to `jax.random`.
pub fn register(b: &mut Builder) {
    b.func("gamma", gamma_call(false));
    b.func("loggamma", gamma_call(true));
    b.func("beta", beta);
    b.func("dirichlet", dirichlet);
    b.func("t", student_t);
    b.func("chisquare", chisquare);
    b.func("f", f_dist);
    b.func("generalized_normal", generalized_normal);
    b.func("ball", ball);
}
