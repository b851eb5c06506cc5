//! `optax.perturbations`: `make_perturbed_fun`, which turns a function of
//! a pytree (differentiable or not, an argmax or a ranking) into a
//! Monte-Carlo average over noisy copies of its input, and the two noise
//! distributions `Normal` and `Gumbel` (a `sample` and a `log_prob`).
//!
//! The average is written with the program's own operations (`jax.vmap`
//! over split keys, `jax.random` draws, Python operators on the leaves), so
//! it draws the same numbers as optax from the same key and traces under
//! `jax.jit` and `jax.grad` like any program code. Its derivatives come
//! from the score-function estimator: every sample is weighted by
//! `exp(l - stop_gradient(l))` for `l` the log-density of its noise, a
//! weight equal to 1 whose derivative is that of `l`.

use std::rc::Rc;

use rustpython_parser::ast::{Operator, UnaryOp as PyUnary};

use crate::error::Result;
use crate::python::interp::Interp;
use crate::python::ops::{binop, getattr, truthy, unaryop};
use crate::python::pytree::flatten;
use crate::python::value::{Args, Class, Obj};

use super::super::Builder;
use super::tree::{call_jax, map_objs, random_like_with};

/// `self` and the argument at `index` (after `self`) of a noise method.
fn method_arg(a: &Args, index: usize, name: &str, func: &str) -> Result<Obj> {
    a.req(Some(index), name, func)
}

/// `sample(self, key, sample_shape=(), dtype=float)`: the `jax.random`
/// sampler `sampler` (its default dtype is float32, what `float` means
/// without x64).
fn sample(interp: &mut Interp, a: &Args, sampler: &str) -> Result<Obj> {
    let key = method_arg(a, 1, "key", "sample")?;
    let shape = a.get(Some(2), "sample_shape").unwrap_or(Obj::tuple(vec![]));
    let mut pos = vec![key, shape];
    if let Some(d) = a.opt(Some(3), "dtype") {
        pos.push(d);
    }
    call_jax(interp, "jax.random", sampler, Args::new(pos))
}

/// `Normal.log_prob`: `-0.5 * x**2` (the density up to its constant).
fn normal_log_prob(interp: &mut Interp, a: Args) -> Result<Obj> {
    let x = method_arg(&a, 1, "inputs", "log_prob")?;
    let sq = binop(interp, &Operator::Pow, &x, &Obj::Int(2), false)?;
    binop(interp, &Operator::Mult, &Obj::Float(-0.5), &sq, false)
}

/// `Gumbel.log_prob`: `-x - exp(-x)`.
fn gumbel_log_prob(interp: &mut Interp, a: Args) -> Result<Obj> {
    let x = method_arg(&a, 1, "inputs", "log_prob")?;
    // `-x` twice, as two operations: the gradient adds their cotangents in
    // optax's order, which decides the sign of a zero.
    let neg = unaryop(&PyUnary::USub, &x)?;
    let inner = unaryop(&PyUnary::USub, &x)?;
    let e = call_jax(interp, "jax.numpy", "exp", Args::new(vec![inner]))?;
    binop(interp, &Operator::Sub, &neg, &e, false)
}

/// A noise class: `sample` draws with `jax.random.<sampler>`.
fn noise_class(
    name: &str,
    sampler: &'static str,
    log_prob: fn(&mut Interp, Args) -> Result<Obj>,
) -> Rc<Class> {
    let sample = Obj::native(format!("{name}.sample"), move |i, a| sample(i, &a, sampler));
    let log_prob = Obj::native(format!("{name}.log_prob"), log_prob);
    let module = Obj::str("optax.perturbations._make_pert");
    Rc::new(Class::new(
        name,
        vec![],
        vec![
            ("sample".into(), sample),
            ("log_prob".into(), log_prob),
            ("__module__".into(), module),
        ],
    ))
}

/// What `make_perturbed_fun` was given.
struct Perturbed {
    fun: Obj,
    num_samples: Obj,
    sigma: Obj,
    noise: Obj,
    use_baseline: bool,
}

fn op(interp: &mut Interp, o: Operator, a: &Obj, b: &Obj) -> Result<Obj> {
    binop(interp, &o, a, b, false)
}

fn stop_gradient(interp: &mut Interp, x: &Obj) -> Result<Obj> {
    call_jax(
        interp,
        "jax.lax",
        "stop_gradient",
        Args::new(vec![x.clone()]),
    )
}

/// The sum over every leaf of `log_prob(noise)`, added leaf by leaf onto
/// the integer 0 as `optax.tree.sum` does.
fn log_prob_sum(interp: &mut Interp, p: &Perturbed, noise: &Obj) -> Result<Obj> {
    let log_prob = getattr(interp, &p.noise, "log_prob")?;
    let (leaves, _) = flatten(interp, noise)?;
    let mut total = Obj::Int(0);
    for leaf in leaves {
        let l = interp.call(&log_prob, Args::new(vec![leaf]))?;
        let s = call_jax(interp, "jax.numpy", "sum", Args::new(vec![l]))?;
        total = op(interp, Operator::Add, &total, &s)?;
    }
    Ok(total)
}

/// One sample's estimate: `fun` at `x + sigma * z` (the input held
/// constant), weighted by the magic box of the noise's log-density, and,
/// with a baseline, `(1 - box) * fun(x)` added.
fn one_sample(
    interp: &mut Interp,
    p: &Perturbed,
    key: &Obj,
    x: &Obj,
    baseline: &Obj,
) -> Result<Obj> {
    let sampler = getattr(interp, &p.noise, "sample")?;
    let z = random_like_with(interp, key, x, &sampler, None)?;
    let sigma = p.sigma.clone();
    let shifted = map_objs(interp, &[x, &z], |i, l| {
        let sz = op(i, Operator::Mult, &sigma, &l[1])?;
        op(i, Operator::Add, &l[0], &sz)
    })?;
    let shifted = stop_gradient(interp, &shifted)?;
    // The noise again, now as a function of x: its log-density carries
    // the derivative.
    let z = map_objs(interp, &[x, &shifted], |i, l| {
        let d = op(i, Operator::Sub, &l[1], &l[0])?;
        op(i, Operator::Div, &d, &sigma)
    })?;
    let lp = log_prob_sum(interp, p, &z)?;
    let held = stop_gradient(interp, &lp)?;
    let diff = op(interp, Operator::Sub, &lp, &held)?;
    let weight = call_jax(interp, "jax.numpy", "exp", Args::new(vec![diff]))?;
    let y = interp.call(&p.fun, Args::new(vec![shifted]))?;
    let out = map_objs(interp, &[&y], |i, l| op(i, Operator::Mult, &weight, &l[0]))?;
    if !p.use_baseline {
        return Ok(out);
    }
    let rest = op(interp, Operator::Sub, &Obj::Int(1), &weight)?;
    let rest = call_jax(interp, "jax.numpy", "asarray", Args::new(vec![rest]))?;
    map_objs(interp, &[&out, baseline], |i, l| {
        let ry = op(i, Operator::Mult, &rest, &l[1])?;
        op(i, Operator::Add, &l[0], &ry)
    })
}

/// The perturbed function's value at `(key, x)`: the mean over
/// `num_samples` keys split from `key` of [`one_sample`], mapped with
/// `jax.vmap` over the keys.
fn estimate(interp: &mut Interp, p: &Rc<Perturbed>, key: Obj, x: Obj) -> Result<Obj> {
    let baseline = if p.use_baseline {
        let held = stop_gradient(interp, &x)?;
        interp.call(&p.fun, Args::new(vec![held]))?
    } else {
        Obj::None
    };
    let keys = call_jax(
        interp,
        "jax.random",
        "split",
        Args::new(vec![key, p.num_samples.clone()]),
    )?;
    let inner = p.clone();
    let per_key = Obj::native("stoch_estimator", move |i, a| {
        let key = a.req(Some(0), "key", "stoch_estimator")?;
        let x = a.req(Some(1), "x", "stoch_estimator")?;
        let baseline = a.get(Some(2), "baseline").unwrap_or(Obj::None);
        one_sample(i, &inner, &key, &x, &baseline)
    });
    let in_axes = Obj::tuple(vec![Obj::Int(0), Obj::None, Obj::None]);
    let mapped = call_jax(
        interp,
        "jax",
        "vmap",
        Args::with(
            vec![per_key],
            vec![
                ("in_axes".into(), in_axes),
                ("out_axes".into(), Obj::Int(0)),
            ],
        ),
    )?;
    let out = interp.call(&mapped, Args::new(vec![keys, x, baseline]))?;
    map_objs(interp, &[&out], |i, l| {
        let args = Args::with(vec![l[0].clone()], vec![("axis".into(), Obj::Int(0))]);
        call_jax(i, "jax.numpy", "mean", args)
    })
}

/// `make_perturbed_fun(fun, num_samples=1000, sigma=0.1, noise=Gumbel(),
/// use_baseline=True)`: a function of `(key, x)`.
fn make_perturbed_fun(a: Args, default_noise: &Obj) -> Result<Obj> {
    let func = "make_perturbed_fun";
    let use_baseline = match a.get(Some(4), "use_baseline") {
        Some(o) => truthy(&o, "use_baseline")?,
        None => true,
    };
    let p = Rc::new(Perturbed {
        fun: a.req(Some(0), "fun", func)?,
        num_samples: a.get(Some(1), "num_samples").unwrap_or(Obj::Int(1000)),
        sigma: a.get(Some(2), "sigma").unwrap_or(Obj::Float(0.1)),
        noise: a.get(Some(3), "noise").unwrap_or(default_noise.clone()),
        use_baseline,
    });
    Ok(Obj::native("mc_estimator", move |interp, a| {
        let key = a.req(Some(0), "key", "mc_estimator")?;
        let x = a.req(Some(1), "x", "mc_estimator")?;
        estimate(interp, &p, key, x)
    }))
}

/// The `optax.perturbations` module.
pub(super) fn module(interp: &mut Interp) -> Result<Obj> {
    let normal = noise_class("Normal", "normal", normal_log_prob);
    let gumbel = noise_class("Gumbel", "gumbel", gumbel_log_prob);
    // The default noise is one instance, made when the module is, as a
    // default argument is.
    let default_noise = interp.call(&Obj::Class(gumbel.clone()), Args::new(vec![]))?;
    let mut b = Builder::new("optax.perturbations");
    b.attr("Normal", Obj::Class(normal));
    b.attr("Gumbel", Obj::Class(gumbel));
    b.func("make_perturbed_fun", move |_, a| {
        make_perturbed_fun(a, &default_noise)
    });
    Ok(b.build())
}
