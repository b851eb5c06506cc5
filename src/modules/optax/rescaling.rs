//! Transformations that rescale updates by their signs, blocks or history:
//! `scale_by_sign`, `scale_by_rprop`, `scale_by_sm3`,
//! `scale_by_optimistic_gradient`, `scale_by_polyak`, `centralize`,
//! `scale_by_param_block_norm`, `scale_by_param_block_rms`,
//! `clip_by_block_rms`, `ema` and `add_noise`.

use crate::array::{Array, DType};
use crate::error::Result;
use crate::python::array::to_value;
use crate::python::interp::Interp;
use crate::python::ops::getitem;
use crate::python::pytree::unflatten;
use crate::python::value::{Args, Obj};
use crate::trace::Value;
use crate::{bail, ops as jops};

use super::super::Builder;
use super::base::{
    empty, field, flag, full_tree, hmul, leaves_of, safe_increment, state, stateless,
    transformation, tree_map, zero_count, zeros_tree, Hyper,
};
use super::transforms::{bias_correction, c, moment, safe_norm};
use super::tree::{call_jax, random_like_with};

pub(super) const NO_PARAMS: &str = "You are using a transformation that requires the current value of parameters, but you are not passing `params` when calling `update`.";

/// `scale_by_sign()`: the sign of every update.
pub(super) fn scale_by_sign() -> Obj {
    stateless(|interp, u, _| tree_map(interp, &[u], |x| jops::sign(x[0])))
}

/// The hyperparameters of `scale_by_rprop`.
#[derive(Clone)]
pub(super) struct Rprop {
    pub lr: f64,
    pub eta_minus: Hyper,
    pub eta_plus: Hyper,
    pub min_step: Hyper,
    pub max_step: Hyper,
}

/// `scale_by_rprop`: per-element step sizes that grow while the gradient
/// keeps its sign and shrink (skipping the step) when it flips.
pub(super) fn scale_by_rprop(h: Rprop) -> Obj {
    let lr = h.lr;
    transformation(
        move |interp, p| {
            Ok(state(
                "ScaleByRpropState",
                vec![
                    ("step_sizes", full_tree(interp, p, lr)?),
                    ("prev_updates", zeros_tree(interp, p)?),
                ],
            ))
        },
        move |interp, u, st, _, _| {
            let prev = field(st, "prev_updates")?;
            let sign = tree_map(interp, &[u, &prev], |x| jops::mul(x[0], x[1]))?;
            let steps = tree_map(interp, &[&sign, &field(st, "step_sizes")?], |x| {
                let grow = jops::greater(x[0], &c(0.0))?;
                let factor = jops::select(&grow, &h.eta_plus.value(), &h.eta_minus.value())?;
                let s = jops::mul(x[1], &factor)?;
                let s = jops::minimum(
                    &jops::maximum(&s, &h.min_step.value())?,
                    &h.max_step.value(),
                )?;
                jops::select(&jops::equal(x[0], &c(0.0))?, x[1], &s)
            })?;
            let flipped = |s: &Value| jops::less(s, &c(0.0));
            let new_prev = tree_map(interp, &[&sign, u, &steps], |x| {
                let step = jops::mul(x[2], &jops::sign(x[1])?)?;
                jops::select(&flipped(x[0])?, &jops::zeros_like(x[1]), &step)
            })?;
            // optax returns the previous step's updates (zero where the
            // gradient flipped), not the ones just computed.
            let out = tree_map(interp, &[&sign, &prev], |x| {
                jops::select(&flipped(x[0])?, &jops::zeros_like(x[1]), x[1])
            })?;
            let st = state(
                "ScaleByRpropState",
                vec![("step_sizes", steps), ("prev_updates", new_prev)],
            );
            Ok((out, st))
        },
    )
}

/// SM3's accumulator of one leaf: `g**2` plus the smallest of the
/// per-axis maxima broadcast back over the leaf.
fn sm3_accum(g: &Value, mus: &[Value], b2: f64) -> Result<Value> {
    let shape = g.shape();
    let mut best: Option<Value> = None;
    for (i, m) in mus.iter().enumerate() {
        let mut to = vec![1; shape.len()];
        to[i] = shape[i];
        let m = jops::reshape(m, &to)?;
        best = Some(match best {
            None => m,
            Some(b) => jops::minimum(&b, &m)?,
        });
    }
    let Some(v) = best else {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: optax.scale_by_sm3 on a scalar parameter"
        );
    };
    let k0 = if b2 != 1.0 { 1.0 - b2 } else { 1.0 };
    let g2 = jops::integer_pow(g, 2)?;
    jops::add(&jops::mul_scalar(&g2, k0)?, &jops::mul_scalar(&v, b2)?)
}

/// Each axis's maxima of `accum` over the other axes (the leaf itself for
/// rank below 2).
fn sm3_maxima(accum: &Value) -> Result<Vec<Value>> {
    let nd = accum.ndim();
    if nd < 2 {
        return Ok(vec![accum.clone(); nd]);
    }
    (0..nd)
        .map(|i| {
            let axes: Vec<i64> = (0..nd as i64).filter(|&k| k != i as i64).collect();
            jops::reduce(crate::array::ReduceOp::Max, accum, Some(&axes), false)
        })
        .collect()
}

/// The SM3 accumulators of `state.mu`, grouped by leaf (each leaf has one
/// per axis).
fn sm3_groups(interp: &mut Interp, mu: &Obj, leaves: &[Value]) -> Result<Vec<Vec<Value>>> {
    let (flat, _) = leaves_of(interp, mu)?;
    let mut it = flat.into_iter();
    Ok(leaves
        .iter()
        .map(|g| it.by_ref().take(g.ndim()).collect())
        .collect())
}

/// `scale_by_sm3(b1, b2, eps)`: Adagrad with memory of one vector per
/// axis, then momentum.
pub(super) fn scale_by_sm3(b1: Hyper, b2: f64, eps: Hyper) -> Obj {
    transformation(
        |interp, p| {
            let (leaves, def) = leaves_of(interp, p)?;
            let mut mus = vec![];
            for x in &leaves {
                let shape = x.shape();
                let axes: Vec<Obj> = shape
                    .iter()
                    .map(|&n| Obj::Array(Value::Concrete(Array::zeros(&[n], x.dtype()))))
                    .collect();
                mus.push(Obj::list(axes));
            }
            let mu = unflatten(interp, &def, &mus)?;
            Ok(state(
                "ScaleBySM3State",
                vec![("mu", mu), ("nu", zeros_tree(interp, p)?)],
            ))
        },
        move |interp, u, st, _, _| {
            let (leaves, def) = leaves_of(interp, u)?;
            let groups = sm3_groups(interp, &field(st, "mu")?, &leaves)?;
            let mut ups = vec![];
            let mut mus = vec![];
            for (g, m) in leaves.iter().zip(&groups) {
                let accum = sm3_accum(g, m, b2)?;
                let pos = jops::greater(&accum, &c(0.0))?;
                let r = jops::unary(
                    crate::array::UnaryOp::Rsqrt,
                    &jops::add(&accum, &eps.value())?,
                )?;
                ups.push(jops::mul(
                    g,
                    &jops::select(&pos, &r, &jops::zeros_like(&r))?,
                )?);
                let maxima = sm3_maxima(&accum)?;
                mus.push(Obj::list(maxima.into_iter().map(Obj::Array).collect()));
            }
            let up = super::base::rebuild(interp, &def, ups)?;
            let nu = tree_map(interp, &[&up, &field(st, "nu")?], |x| {
                moment(x[0], x[1], &b1, 1)
            })?;
            let mu = unflatten(interp, &def, &mus)?;
            Ok((
                nu.clone(),
                state("ScaleBySM3State", vec![("mu", mu), ("nu", nu)]),
            ))
        },
    )
}

/// `scale_by_optimistic_gradient(alpha, beta)`: `(alpha + beta) g - beta
/// g_prev`, with `g_prev = g` on the first step.
pub(super) fn scale_by_optimistic_gradient(alpha: Hyper, beta: Hyper) -> Obj {
    transformation(
        |interp, p| {
            Ok(state(
                "ScaleByOptimisticGradientState",
                vec![
                    (
                        "is_initial_step",
                        Obj::Array(jops::scalar(1.0, DType::Bool)),
                    ),
                    ("previous_gradient", zeros_tree(interp, p)?),
                ],
            ))
        },
        move |interp, u, st, _, _| {
            let initial = to_value(&field(st, "is_initial_step")?)?;
            let sum = match (&alpha, &beta) {
                (Hyper::Num(a), Hyper::Num(b)) => Hyper::Num(a + b),
                _ => Hyper::Arr(jops::add(&alpha.value(), &beta.value())?),
            };
            let out = tree_map(interp, &[u, &field(st, "previous_gradient")?], |x| {
                let prev = jops::select(&initial, x[0], x[1])?;
                jops::sub(&hmul(&sum, x[0])?, &hmul(&beta, &prev)?)
            })?;
            let st = state(
                "ScaleByOptimisticGradientState",
                vec![
                    (
                        "is_initial_step",
                        Obj::Array(jops::scalar(0.0, DType::Bool)),
                    ),
                    ("previous_gradient", u.clone()),
                ],
            );
            Ok((out, st))
        },
    )
}

/// The sum over leaves of the sums of squares (`optax.tree.norm(t,
/// squared=True)`).
fn squared_norm(leaves: &[Value]) -> Result<Value> {
    let mut total = c(0.0);
    for (i, x) in leaves.iter().enumerate() {
        let s = jops::sum(&jops::integer_pow(x, 2)?, None, false)?;
        total = if i == 0 { s } else { jops::add(&total, &s)? };
    }
    Ok(total)
}

/// `scale_by_polyak(f_min, max_learning_rate, eps, variant)`: the Polyak
/// step `(f - f_min) / |g|^2`, capped, from the `value=` the update is
/// given.
pub(super) fn scale_by_polyak(f_min: Hyper, max_lr: Hyper, eps: Hyper, plus: bool) -> Obj {
    transformation(
        |_, _| Ok(empty()),
        move |interp, u, st, _, extra| {
            let Some((_, value)) = extra.iter().find(|(k, _)| k == "value") else {
                bail!(
                    TypeError,
                    "update_fn() missing 1 required keyword-only argument: 'value'"
                );
            };
            let (leaves, _) = leaves_of(interp, u)?;
            let sq = squared_norm(&leaves)?;
            let v = to_value(value)?;
            let gap = jops::convert(&jops::sub(&v, &f_min.value())?, sq.dtype())?;
            let gap = if plus {
                jops::maximum(&gap, &c(0.0))?
            } else {
                gap
            };
            let denom = jops::add(&sq, &eps.value())?;
            let tiny = jops::less_equal(&denom, &c(f64::EPSILON))?;
            let step = jops::minimum(&jops::div(&gap, &denom)?, &max_lr.value())?;
            let step = jops::select(&tiny, &c(0.0), &step)?;
            let out = tree_map(interp, &[u], |x| jops::mul(&step, x[0]))?;
            Ok((out, st.clone()))
        },
    )
}

/// `centralize()`: every leaf of rank 2 or more minus its mean over all
/// axes but the first.
pub(super) fn centralize() -> Obj {
    stateless(|interp, u, _| {
        tree_map(interp, &[u], |x| {
            let nd = x[0].ndim() as i64;
            if nd < 2 {
                return Ok(x[0].clone());
            }
            let axes: Vec<i64> = (1..nd).collect();
            jops::sub(x[0], &jops::mean(x[0], Some(&axes), true)?)
        })
    })
}

/// `sqrt(mean(x * x))`, or `min_rms` when that is not larger (optax's
/// `safe_root_mean_squares`).
fn safe_rms(x: &Value, min_rms: f64) -> Result<Value> {
    let rms = |x: &Value| jops::sqrt(&jops::mean(&jops::mul(x, x)?, None, false)?);
    let r = rms(x)?;
    let small = jops::less_equal(&r, &c(min_rms))?;
    let ones = jops::broadcast_to(&jops::scalar(1.0, x.dtype()), &x.shape())?;
    let safe = jops::select(&jops::broadcast_to(&small, &x.shape())?, &ones, x)?;
    jops::select(&small, &c(min_rms), &rms(&safe)?)
}

/// `scale_by_param_block_norm` (`rms=false`) or `scale_by_param_block_rms`:
/// each update leaf times its parameter leaf's norm or RMS.
pub(super) fn scale_by_param_block(min_scale: f64, rms: bool) -> Obj {
    stateless(move |interp, u, p| {
        let Some(p) = p else {
            bail!(ValueError, "{NO_PARAMS}")
        };
        tree_map(interp, &[u, p], |x| {
            let s = if rms {
                safe_rms(x[1], min_scale)?
            } else {
                safe_norm(x[1], min_scale)?
            };
            jops::mul(x[0], &s)
        })
    })
}

/// `clip_by_block_rms(threshold)`: each leaf divided by `max(1, rms /
/// threshold)`.
pub(super) fn clip_by_block_rms(threshold: Hyper) -> Obj {
    stateless(move |interp, u, _| {
        tree_map(interp, &[u], |x| {
            let rms = jops::sqrt(&jops::mean(&jops::mul(x[0], x[0])?, None, false)?)?;
            let d = jops::maximum(&c(1.0), &jops::div(&rms, &threshold.value())?)?;
            jops::div(x[0], &d)
        })
    })
}

/// `ema(decay, debias)`: the exponential moving average of the updates,
/// bias-corrected when asked.
pub(super) fn ema(decay: Hyper, debias: bool) -> Obj {
    transformation(
        |interp, p| {
            Ok(state(
                "EmaState",
                vec![("count", zero_count()), ("ema", zeros_tree(interp, p)?)],
            ))
        },
        move |interp, u, st, _, _| {
            let new = tree_map(interp, &[u, &field(st, "ema")?], |x| {
                moment(x[0], x[1], &decay, 1)
            })?;
            let count = safe_increment(&to_value(&field(st, "count")?)?)?;
            let out = if debias {
                tree_map(interp, &[&new], |x| bias_correction(x[0], &decay, &count))?
            } else {
                new.clone()
            };
            Ok((
                out,
                state("EmaState", vec![("count", Obj::Array(count)), ("ema", new)]),
            ))
        },
    )
}

/// A key from a key or an integer seed (optax's `canonicalize_key`).
fn canonical_key(interp: &mut Interp, key: &Obj) -> Result<Obj> {
    match key {
        Obj::Int(_) => call_jax(interp, "jax.random", "key", Args::new(vec![key.clone()])),
        other => Ok(other.clone()),
    }
}

/// `add_noise(eta, gamma, key)`: Gaussian noise of variance `eta /
/// t**gamma` added to the updates, from a key split at every step.
pub(super) fn add_noise(interp: &mut Interp, eta: Hyper, gamma: Hyper, key: Obj) -> Result<Obj> {
    let key = canonical_key(interp, &key)?;
    Ok(transformation(
        move |_, _| {
            Ok(state(
                "AddNoiseState",
                vec![("count", zero_count()), ("rng_key", key.clone())],
            ))
        },
        move |interp, u, st, _, _| {
            let count = safe_increment(&to_value(&field(st, "count")?)?)?;
            let t = jops::pow(&jops::convert(&count, DType::F32)?, &gamma.value())?;
            let std = jops::sqrt(&jops::div(&eta.value(), &t)?)?;
            let keys = call_jax(
                interp,
                "jax.random",
                "split",
                Args::new(vec![field(st, "rng_key")?]),
            )?;
            let next = getitem(interp, &keys, &Obj::Int(0))?;
            let sample = getitem(interp, &keys, &Obj::Int(1))?;
            let normal = call_jax_attr(interp, "jax.random", "normal")?;
            let noise = random_like_with(interp, &sample, u, &normal, None)?;
            let out = tree_map(interp, &[u, &noise], |x| {
                jops::add(x[0], &jops::mul(&std, x[1])?)
            })?;
            let st = state(
                "AddNoiseState",
                vec![("count", Obj::Array(count)), ("rng_key", next)],
            );
            Ok((out, st))
        },
    ))
}

/// `module.name`.
fn call_jax_attr(interp: &mut Interp, module: &str, name: &str) -> Result<Obj> {
    let m = crate::modules::import(interp, module)?;
    crate::python::ops::getattr(interp, &m, name)
}

/// `safe_increment(count)`: `count + 1`, staying at the dtype's largest
/// value instead of overflowing.
fn safe_increment_any(a: Args) -> Result<Obj> {
    let count = to_value(&a.req(Some(0), "count", "safe_increment")?)?;
    let max = match count.dtype() {
        DType::I32 => i32::MAX as f64,
        DType::F32 => f32::MAX as f64,
        other if other.is_float() || other.is_int() => bail!(
            NotImplementedError,
            "not supported by shardlab yet: optax.safe_increment of {}",
            other.name()
        ),
        other => bail!(
            ValueError,
            "Cannot safely increment count with dtype {}, valid dtypes are subdtypes of \"jnp.integer\" or \"jnp.floating\".",
            other.name()
        ),
    };
    let max = jops::scalar(max, count.dtype());
    let inc = jops::add(&count, &jops::scalar(1.0, count.dtype()))?;
    Ok(Obj::Array(jops::select(
        &jops::less(&count, &max)?,
        &inc,
        &max,
    )?))
}

/// Registers the transformations on the `optax` module.
pub(super) fn register(b: &mut Builder) {
    register_rescalings(b);
    register_block_scalings(b);
}

/// Registers the rescalings by sign, centring, Rprop, SM3, optimism and
/// Polyak's step, and the safe counters.
fn register_rescalings(b: &mut Builder) {
    b.func("scale_by_sign", |_, _| Ok(scale_by_sign()));
    b.func("centralize", |_, _| Ok(centralize()));
    b.func("safe_increment", |_, a| safe_increment_any(a));
    b.func("safe_int32_increment", |_, a| safe_increment_any(a));
    b.func("scale_by_rprop", |_, a| {
        Ok(scale_by_rprop(rprop_args(&a, "scale_by_rprop")?))
    });
    b.func("scale_by_sm3", |_, a| {
        let f = "scale_by_sm3";
        let b1 = Hyper::arg(&a, Some(0), "b1", Some(0.9), f)?;
        let b2 = Hyper::arg(&a, Some(1), "b2", Some(1.0), f)?;
        let Some(b2) = b2.num() else {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: optax.scale_by_sm3 with an array b2"
            );
        };
        Ok(scale_by_sm3(
            b1,
            b2,
            Hyper::arg(&a, Some(2), "eps", Some(1e-8), f)?,
        ))
    });
    b.func("scale_by_optimistic_gradient", |_, a| {
        let f = "scale_by_optimistic_gradient";
        let alpha = Hyper::arg(&a, Some(0), "alpha", Some(1.0), f)?;
        Ok(scale_by_optimistic_gradient(
            alpha,
            Hyper::arg(&a, Some(1), "beta", Some(1.0), f)?,
        ))
    });
    b.func("scale_by_polyak", |_, a| {
        polyak_args(&a, 0, "scale_by_polyak")
    });
}

/// Registers the scalings and clipping by parameter blocks, the moving
/// average and the gradient noise.
fn register_block_scalings(b: &mut Builder) {
    b.func("scale_by_param_block_norm", |_, a| {
        let m = Hyper::arg(
            &a,
            Some(0),
            "min_scale",
            Some(1e-3),
            "scale_by_param_block_norm",
        )?;
        Ok(scale_by_param_block(
            m.fixed("min_scale", "scale_by_param_block_norm")?,
            false,
        ))
    });
    b.func("scale_by_param_block_rms", |_, a| {
        let m = Hyper::arg(
            &a,
            Some(0),
            "min_scale",
            Some(1e-3),
            "scale_by_param_block_rms",
        )?;
        Ok(scale_by_param_block(
            m.fixed("min_scale", "scale_by_param_block_rms")?,
            true,
        ))
    });
    b.func("clip_by_block_rms", |_, a| {
        Ok(clip_by_block_rms(Hyper::arg(
            &a,
            Some(0),
            "threshold",
            None,
            "clip_by_block_rms",
        )?))
    });
    b.func("ema", |_, a| {
        super::alias::refuse(&a, Some(2), "accumulator_dtype", "ema")?;
        let decay = Hyper::arg(&a, Some(0), "decay", None, "ema")?;
        Ok(ema(decay, flag(&a, Some(1), "debias", true)?))
    });
    b.func("add_noise", |interp, a| {
        let f = "add_noise";
        let eta = Hyper::arg(&a, Some(0), "eta", None, f)?;
        let gamma = Hyper::arg(&a, Some(1), "gamma", None, f)?;
        let key = noise_key(&a, Some(2))?;
        add_noise(interp, eta, gamma, key)
    });
}

/// The `key=` of `add_noise` or `noisy_sgd` (or the deprecated `seed=`,
/// or 0).
pub(super) fn noise_key(a: &Args, index: Option<usize>) -> Result<Obj> {
    let key = a.opt(index, "key");
    let seed = a.opt(None, "seed");
    match (key, seed) {
        (Some(_), Some(_)) => bail!(ValueError, "Only one of seed or key can be specified."),
        (Some(k), None) | (None, Some(k)) => Ok(k),
        (None, None) => Ok(Obj::Int(0)),
    }
}

/// The arguments of `scale_by_rprop` or `rprop`.
pub(super) fn rprop_args(a: &Args, f: &str) -> Result<Rprop> {
    let lr = Hyper::arg(a, Some(0), "learning_rate", None, f)?;
    let Some(lr) = lr.num() else {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: optax.{f} with an array learning_rate"
        );
    };
    let h = |i, n, d| Hyper::arg(a, Some(i), n, Some(d), f);
    Ok(Rprop {
        lr,
        eta_minus: h(1, "eta_minus", 0.5)?,
        eta_plus: h(2, "eta_plus", 1.2)?,
        min_step: h(3, "min_step_size", 1e-6)?,
        max_step: h(4, "max_step_size", 50.0)?,
    })
}

/// `scale_by_polyak(f_min, max_learning_rate, eps, variant)` with its
/// arguments from position `first` (`polyak_sgd` orders them otherwise).
pub(super) fn polyak_args(a: &Args, first: usize, f: &str) -> Result<Obj> {
    let f_min = Hyper::arg(a, Some(first), "f_min", Some(0.0), f)?;
    let max_lr = Hyper::arg(a, Some(first + 1), "max_learning_rate", Some(1.0), f)?;
    let eps = Hyper::arg(a, Some(first + 2), "eps", Some(0.0), f)?;
    let variant = match a.opt(Some(first + 3), "variant") {
        Some(v) => crate::python::format::str_of(&v),
        None => "sps".into(),
    };
    let plus = match variant.as_str() {
        "sps" => false,
        "sps+" => true,
        v => bail!(
            ValueError,
            "Invalid argument value for Polyak SGD: variant='{v}'"
        ),
    };
    Ok(scale_by_polyak(f_min, max_lr, eps, plus))
}
