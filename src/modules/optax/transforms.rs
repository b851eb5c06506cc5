//! The gradient transformations: scalings (`scale`, `scale_by_schedule`,
//! `scale_by_learning_rate`), moment estimates (`trace`, `scale_by_adam`,
//! `scale_by_rms`, `scale_by_rss`, `scale_by_lion`, `scale_by_belief`),
//! clipping, weight decay, `chain` and the trivial ones.
//!
//! Each update is written leaf by leaf with float32 operations in optax's
//! order, so that training runs match optax step for step.

use crate::array::DType;
use crate::error::Result;
use crate::python::array::to_value;
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};
use crate::trace::Value;
use crate::{bail, ops as jops};

use super::super::Builder;
use super::base::{
    call_init, call_update, field, flag, global_norm, hmul, initial_tree, leaves_of,
    safe_increment, schedule_at, state, stateless, transformation, tree_map, zero_count,
    zeros_tree, Hyper, Rate,
};

pub(super) fn c(v: f64) -> Value {
    jops::scalar(v, DType::F32)
}

/// `scale(step_size)`: `step_size * g`.
pub(super) fn scale(h: Hyper) -> Obj {
    stateless(move |interp, u, _| tree_map(interp, &[u], |x| hmul(&h, x[0])))
}

/// `scale_by_schedule(fn)`: `fn(count) * g`, counting the updates.
pub(super) fn scale_by_schedule(schedule: Obj) -> Obj {
    transformation(
        |_, _| Ok(state("ScaleByScheduleState", vec![("count", zero_count())])),
        move |interp, u, st, _, _| {
            let count = to_value(&field(st, "count")?)?;
            let step = schedule_at(interp, &schedule, &count)?;
            let out = tree_map(interp, &[u], |x| {
                jops::mul(&jops::convert(&step, x[0].dtype())?, x[0])
            })?;
            let st = state(
                "ScaleByScheduleState",
                vec![("count", Obj::Array(safe_increment(&count)?))],
            );
            Ok((out, st))
        },
    )
}

/// `scale_by_learning_rate(lr, flip_sign)`: a scaling by `-lr` (or `lr`),
/// through `scale_by_schedule` when the rate is a schedule.
pub(super) fn scale_by_learning_rate(lr: Rate, flip: bool) -> Result<Obj> {
    Ok(match lr {
        Rate::Fixed(h) => scale(if flip { h.neg()? } else { h }),
        Rate::Schedule(s) => {
            let sched = Obj::native("schedule", move |interp, a| {
                let v = interp.call(&s, a)?;
                let v = to_value(&v)?;
                Ok(Obj::Array(if flip { jops::neg(&v)? } else { v }))
            });
            scale_by_schedule(sched)
        }
    })
}

/// `trace(decay, nesterov)` (momentum): `t = g + decay * t`; the update is
/// `t`, or with Nesterov `g + decay * t`.
pub(super) fn trace(decay: Hyper, nesterov: bool) -> Obj {
    transformation(
        |interp, p| Ok(state("TraceState", vec![("trace", zeros_tree(interp, p)?)])),
        move |interp, u, st, _, _| {
            let f = |g: &Value, t: &Value| jops::add(g, &hmul(&decay, t)?);
            let t = tree_map(interp, &[u, &field(st, "trace")?], |x| f(x[0], x[1]))?;
            let out = if nesterov {
                tree_map(interp, &[u, &t], |x| f(x[0], x[1]))?
            } else {
                t.clone()
            };
            Ok((out, state("TraceState", vec![("trace", t)])))
        },
    )
}

/// `add_decayed_weights(weight_decay)`: `g + weight_decay * params`.
pub(super) fn add_decayed_weights(wd: Hyper) -> Obj {
    stateless(move |interp, u, p| {
        let Some(p) = p else {
            bail!(
                ValueError,
                "You are using a transformation that requires the current value of parameters, but you are not passing `params` when calling `update`."
            );
        };
        // optax leaves the updates untouched for a constant zero decay.
        if wd.num() == Some(0.0) {
            return Ok(u.clone());
        }
        tree_map(interp, &[u, p], |x| jops::add(x[0], &hmul(&wd, x[1])?))
    })
}

/// `(1 - decay) * g**order + decay * t`.
pub(super) fn moment(g: &Value, t: &Value, decay: &Hyper, order: i32) -> Result<Value> {
    // A boolean measure (under `measure_with_ema`) meets the Python-number
    // decay as JAX promotes them: to a weakly typed float.
    if let (DType::Bool, Some(d)) = (g.dtype(), decay.num()) {
        let weak = |v: f64| crate::python::array::weak_scalar(v, DType::F32);
        return jops::add(&jops::mul(&weak(1.0 - d), g)?, &jops::mul(&weak(d), t)?);
    }
    let gp = if order == 1 {
        g.clone()
    } else {
        jops::integer_pow(g, order)?
    };
    jops::add(&hmul(&decay.one_minus()?, &gp)?, &hmul(decay, t)?)
}

/// `t / (1 - decay**count)`.
pub(super) fn bias_correction(t: &Value, decay: &Hyper, count: &Value) -> Result<Value> {
    let cf = jops::convert(count, DType::F32)?;
    let bc = jops::sub(&c(1.0), &jops::pow(&decay.value(), &cf)?)?;
    jops::div(t, &bc)
}

/// The hyperparameters of `scale_by_adam`, `scale_by_belief` and the
/// Adam-like estimators of [`super::adaptive`].
#[derive(Clone)]
pub(super) struct AdamHyper {
    pub b1: Hyper,
    pub b2: Hyper,
    pub eps: Hyper,
    pub eps_root: Hyper,
    pub nesterov: bool,
}

impl AdamHyper {
    /// From `b1, b2, eps, eps_root` at positions `first..` and `nesterov`.
    pub(super) fn parse(
        a: &Args,
        first: usize,
        eps: f64,
        eps_root: f64,
        func: &str,
    ) -> Result<AdamHyper> {
        Ok(AdamHyper {
            b1: Hyper::arg(a, Some(first), "b1", Some(0.9), func)?,
            b2: Hyper::arg(a, Some(first + 1), "b2", Some(0.999), func)?,
            eps: Hyper::arg(a, Some(first + 2), "eps", Some(eps), func)?,
            eps_root: Hyper::arg(a, Some(first + 3), "eps_root", Some(eps_root), func)?,
            nesterov: flag(a, None, "nesterov", false)?,
        })
    }
}

impl AdamHyper {
    /// From positions `first..first + 4` of `a` (`b1, b2, eps, eps_root`)
    /// with the given defaults, without Nesterov's look-ahead (the
    /// estimators beyond Adam).
    pub(super) fn with_defaults(
        a: &Args,
        first: usize,
        d: [f64; 4],
        func: &str,
    ) -> Result<AdamHyper> {
        let h = |i: usize, n: &str| Hyper::arg(a, Some(first + i), n, Some(d[i]), func);
        Ok(AdamHyper {
            b1: h(0, "b1")?,
            b2: h(1, "b2")?,
            eps: h(2, "eps")?,
            eps_root: h(3, "eps_root")?,
            nesterov: false,
        })
    }

    /// `m / (sqrt(v + eps_root) + eps)`.
    pub(super) fn ratio(&self, m: &Value, v: &Value) -> Result<Value> {
        let root = jops::sqrt(&jops::add(v, &self.eps_root.value())?)?;
        jops::div(m, &jops::add(&root, &self.eps.value())?)
    }
}

pub(super) fn moments_state(name: &str, interp: &mut Interp, p: &Obj) -> Result<Obj> {
    Ok(state(
        name,
        vec![
            ("count", zero_count()),
            ("mu", zeros_tree(interp, p)?),
            ("nu", zeros_tree(interp, p)?),
        ],
    ))
}

/// The bias-corrected first moment, with Nesterov's look-ahead when asked.
fn mu_hat(h: &AdamHyper, m: &Value, g: &Value, count: &Value) -> Result<Value> {
    if !h.nesterov {
        return bias_correction(m, &h.b1, count);
    }
    let next = safe_increment(count)?;
    let m = bias_correction(m, &h.b1, &next)?;
    let g = bias_correction(g, &h.b1, count)?;
    jops::add(&hmul(&h.b1, &m)?, &hmul(&h.b1.one_minus()?, &g)?)
}

/// Adam's first and second moments (`mu`, `nu`) of the updates `u`,
/// moved from those in the state `st` with decays `b1` and `b2`.
pub(super) fn adam_moments(
    interp: &mut Interp,
    u: &Obj,
    st: &Obj,
    b1: &Hyper,
    b2: &Hyper,
) -> Result<(Obj, Obj)> {
    let mu = tree_map(interp, &[u, &field(st, "mu")?], |x| {
        moment(x[0], x[1], b1, 1)
    })?;
    let nu = tree_map(interp, &[u, &field(st, "nu")?], |x| {
        moment(x[0], x[1], b2, 2)
    })?;
    Ok((mu, nu))
}

/// `scale_by_adam`: the moment estimates, bias-corrected with the
/// incremented count.
pub(super) fn scale_by_adam(h: AdamHyper) -> Obj {
    transformation(
        |interp, p| moments_state("ScaleByAdamState", interp, p),
        move |interp, u, st, _, _| {
            let (mu, nu) = adam_moments(interp, u, st, &h.b1, &h.b2)?;
            let count = safe_increment(&to_value(&field(st, "count")?)?)?;
            let out = tree_map(interp, &[&mu, &nu, u], |x| {
                let m = mu_hat(&h, x[0], x[2], &count)?;
                h.ratio(&m, &bias_correction(x[1], &h.b2, &count)?)
            })?;
            let st = state(
                "ScaleByAdamState",
                vec![("count", Obj::Array(count)), ("mu", mu), ("nu", nu)],
            );
            Ok((out, st))
        },
    )
}

/// `scale_by_belief` (AdaBelief): Adam with the second moment of the
/// prediction error `g - mu`.
pub(super) fn scale_by_belief(h: AdamHyper) -> Obj {
    transformation(
        |interp, p| moments_state("ScaleByBeliefState", interp, p),
        move |interp, u, st, _, _| {
            let mu = tree_map(interp, &[u, &field(st, "mu")?], |x| {
                moment(x[0], x[1], &h.b1, 1)
            })?;
            let nu = tree_map(interp, &[u, &mu, &field(st, "nu")?], |x| {
                let err = jops::sub(x[0], x[1])?;
                jops::add(&moment(&err, x[2], &h.b2, 2)?, &h.eps_root.value())
            })?;
            let count = safe_increment(&to_value(&field(st, "count")?)?)?;
            let out = tree_map(interp, &[&mu, &nu, u], |x| {
                let m = mu_hat(&h, x[0], x[2], &count)?;
                let v = bias_correction(x[1], &h.b2, &count)?;
                jops::div(&m, &jops::add(&jops::sqrt(&v)?, &h.eps.value())?)
            })?;
            let st = state(
                "ScaleByBeliefState",
                vec![("count", Obj::Array(count)), ("mu", mu), ("nu", nu)],
            );
            Ok((out, st))
        },
    )
}

/// `scale_by_rms(decay, eps, initial_scale, eps_in_sqrt, bias_correction)`:
/// `g` over the root of the moving average of `g**2`, that average
/// bias-corrected with a step count when asked (the state then keeps the
/// count, as `ScaleByRmsWithCountState`).
pub(super) fn scale_by_rms(
    decay: Hyper,
    eps: Hyper,
    initial: Hyper,
    eps_in_sqrt: bool,
    corrected: bool,
) -> Obj {
    let name = match corrected {
        true => "ScaleByRmsWithCountState",
        false => "ScaleByRmsState",
    };
    transformation(
        move |interp, p| {
            let nu = initial_tree(interp, p, &initial, "scale_by_rms")?;
            Ok(match corrected {
                true => state(name, vec![("count", zero_count()), ("nu", nu)]),
                false => state(name, vec![("nu", nu)]),
            })
        },
        move |interp, u, st, _, _| {
            let nu = tree_map(interp, &[u, &field(st, "nu")?], |x| {
                moment(x[0], x[1], &decay, 2)
            })?;
            let count = match corrected {
                true => Some(safe_increment(&to_value(&field(st, "count")?)?)?),
                false => None,
            };
            let out = tree_map(interp, &[&nu, u], |x| {
                let n = match &count {
                    Some(k) => bias_correction(x[0], &decay, k)?,
                    None => x[0].clone(),
                };
                let s = if eps_in_sqrt {
                    jops::unary(crate::array::UnaryOp::Rsqrt, &jops::add(&n, &eps.value())?)?
                } else {
                    jops::div(&c(1.0), &jops::add(&jops::sqrt(&n)?, &eps.value())?)?
                };
                jops::mul(&s, x[1])
            })?;
            let st = match count {
                Some(k) => state(name, vec![("count", Obj::Array(k)), ("nu", nu)]),
                None => state(name, vec![("nu", nu)]),
            };
            Ok((out, st))
        },
    )
}

/// `scale_by_rss(initial_accumulator_value, eps)` (Adagrad): `g` over the
/// root of the running sum of `g**2`.
pub(super) fn scale_by_rss(initial: Hyper, eps: Hyper) -> Obj {
    transformation(
        move |interp, p| {
            let s = initial_tree(interp, p, &initial, "scale_by_rss")?;
            Ok(state("ScaleByRssState", vec![("sum_of_squares", s)]))
        },
        move |interp, u, st, _, _| {
            let sos = tree_map(interp, &[u, &field(st, "sum_of_squares")?], |x| {
                jops::add(&jops::integer_pow(x[0], 2)?, x[1])
            })?;
            let out = tree_map(interp, &[&sos, u], |x| {
                let r = jops::unary(
                    crate::array::UnaryOp::Rsqrt,
                    &jops::add(x[0], &eps.value())?,
                )?;
                let pos = jops::greater(x[0], &c(0.0))?;
                let inv = jops::select(&pos, &r, &jops::zeros_like(&r))?;
                jops::mul(&inv, x[1])
            })?;
            Ok((out, state("ScaleByRssState", vec![("sum_of_squares", sos)])))
        },
    )
}

/// `scale_by_lion(b1, b2)`: the sign of an interpolation of the gradient
/// and the moment.
pub(super) fn scale_by_lion(b1: Hyper, b2: Hyper) -> Obj {
    transformation(
        |interp, p| {
            let mu = zeros_tree(interp, p)?;
            Ok(state(
                "ScaleByLionState",
                vec![("count", zero_count()), ("mu", mu)],
            ))
        },
        move |interp, u, st, _, _| {
            let mu0 = field(st, "mu")?;
            let out = tree_map(interp, &[u, &mu0], |x| {
                let v = jops::add(&hmul(&b1.one_minus()?, x[0])?, &hmul(&b1, x[1])?)?;
                jops::sign(&v)
            })?;
            let mu = tree_map(interp, &[u, &mu0], |x| moment(x[0], x[1], &b2, 1))?;
            let count = safe_increment(&to_value(&field(st, "count")?)?)?;
            let st = state(
                "ScaleByLionState",
                vec![("count", Obj::Array(count)), ("mu", mu)],
            );
            Ok((out, st))
        },
    )
}

/// `sqrt(sum(x * x))`, or `min_norm` when that is not larger (optax's
/// `safe_norm`, whose gradient stays finite at zero).
pub(super) fn safe_norm(x: &Value, min_norm: f64) -> Result<Value> {
    let norm = |x: &Value| jops::sqrt(&jops::sum(&jops::mul(x, x)?, None, false)?);
    let n = norm(x)?;
    let small = jops::less_equal(&n, &c(min_norm))?;
    let ones = jops::broadcast_to(&jops::scalar(1.0, x.dtype()), &x.shape())?;
    let safe_x = jops::select(&jops::broadcast_to(&small, &x.shape())?, &ones, x)?;
    jops::select(&small, &c(min_norm), &norm(&safe_x)?)
}

/// `scale_by_trust_ratio(min_norm, trust_coefficient, eps)`: each leaf
/// scaled by `|param| / |update|` (LAMB's layer-wise trust ratio).
pub(super) fn scale_by_trust_ratio(min_norm: f64, coef: Hyper, eps: Hyper) -> Obj {
    stateless(move |interp, u, p| {
        let Some(p) = p else {
            bail!(
                ValueError,
                "You are using a transformation that requires the current value of parameters, but you are not passing `params` when calling `update`."
            );
        };
        tree_map(interp, &[u, p], |x| {
            let pn = safe_norm(x[1], min_norm)?;
            let un = safe_norm(x[0], min_norm)?;
            let ratio = jops::div(&hmul(&coef, &pn)?, &jops::add(&un, &eps.value())?)?;
            let zero = jops::binary(
                crate::array::BinaryOp::Or,
                &jops::equal(&pn, &c(0.0))?,
                &jops::equal(&un, &c(0.0))?,
            )?;
            jops::mul(x[0], &jops::select(&zero, &c(1.0), &ratio)?)
        })
    })
}

/// `clip(max_delta)`: each element clipped to `[-max_delta, max_delta]`.
pub(super) fn clip(max: Hyper) -> Obj {
    stateless(move |interp, u, _| {
        tree_map(interp, &[u], |x| {
            let hi = max.value();
            let lo = jops::neg(&hi)?;
            jops::minimum(&jops::maximum(x[0], &lo)?, &hi)
        })
    })
}

/// `clip_by_global_norm(max_norm)`: every leaf scaled by
/// `max_norm / global_norm` when the norm exceeds `max_norm`.
pub(super) fn clip_by_global_norm(max: Hyper) -> Obj {
    stateless(move |interp, u, _| {
        let (leaves, _) = leaves_of(interp, u)?;
        let norm = global_norm(&leaves)?;
        let keep = jops::less(&norm, &max.value())?;
        tree_map(interp, &[u], |x| {
            let clipped = hmul(&max, &jops::div(x[0], &norm)?)?;
            jops::select(&keep, x[0], &clipped)
        })
    })
}

/// `chain(*transforms)`: the transformations one after the other; the
/// state is the tuple of their states.
pub(super) fn chain(txs: Vec<Obj>) -> Obj {
    let txs2 = txs.clone();
    transformation(
        move |interp, p| {
            let states = txs
                .iter()
                .map(|t| call_init(interp, t, p))
                .collect::<Result<_>>()?;
            Ok(Obj::tuple(states))
        },
        move |interp, u, st, p, extra| {
            let states = match st {
                Obj::Tuple(t) if t.len() == txs2.len() => t.to_vec(),
                other => bail!(
                    ValueError,
                    "expected the state of a chain of {} transformations, got {}",
                    txs2.len(),
                    crate::python::format::repr_of(other)
                ),
            };
            let mut u = u.clone();
            let mut new = vec![];
            for (t, s) in txs2.iter().zip(&states) {
                let (nu, ns) = call_update(interp, t, &u, s, p, extra)?;
                u = nu;
                new.push(ns);
            }
            Ok((u, Obj::tuple(new)))
        },
    )
}

/// `zero_nans()`: NaNs in the updates replaced by zeros, with a flag per
/// leaf saying whether one was found.
fn zero_nans() -> Obj {
    transformation(
        |interp, p| {
            let flags = tree_map(interp, &[p], |_| Ok(jops::scalar(0.0, DType::Bool)))?;
            Ok(state("ZeroNansState", vec![("found_nan", flags)]))
        },
        |interp, u, _, _, _| {
            let flags = tree_map(interp, &[u], |x| {
                let nan = jops::not_equal(x[0], x[0])?;
                jops::reduce(crate::array::ReduceOp::Any, &nan, None, false)
            })?;
            let out = tree_map(interp, &[u], |x| {
                let nan = jops::not_equal(x[0], x[0])?;
                jops::select(&nan, &jops::zeros_like(x[0]), x[0])
            })?;
            Ok((out, state("ZeroNansState", vec![("found_nan", flags)])))
        },
    )
}

/// Registers the transformations on the `optax` module.
pub(super) fn register(b: &mut Builder) {
    register_scaling(b);
    register_scale_by_statistics(b);
    register_misc(b);
}

/// Registers the scalings by a step size, a schedule or a learning rate,
/// momentum (`trace`) and weight decay.
fn register_scaling(b: &mut Builder) {
    b.func("scale", |_, a| {
        Ok(scale(Hyper::arg(&a, Some(0), "step_size", None, "scale")?))
    });
    b.func("scale_by_schedule", |_, a| {
        Ok(scale_by_schedule(a.req(
            Some(0),
            "step_size_fn",
            "scale_by_schedule",
        )?))
    });
    b.func("scale_by_learning_rate", |_, a| {
        let lr = Rate::arg(&a, Some(0), "learning_rate", None, "scale_by_learning_rate")?;
        scale_by_learning_rate(lr, flag(&a, Some(1), "flip_sign", true)?)
    });
    b.func("trace", |_, a| {
        let decay = Hyper::arg(&a, Some(0), "decay", None, "trace")?;
        Ok(trace(decay, flag(&a, Some(1), "nesterov", false)?))
    });
    b.func("add_decayed_weights", |_, a| {
        let wd = Hyper::arg(
            &a,
            Some(0),
            "weight_decay",
            Some(0.0),
            "add_decayed_weights",
        )?;
        Ok(match a.opt(Some(1), "mask") {
            Some(m) if !matches!(m, Obj::None) => {
                super::wrappers::masked(add_decayed_weights(wd), m)
            }
            _ => add_decayed_weights(wd),
        })
    });
}

/// Registers the scalings by statistics of the gradients (Adam's moments,
/// RMS, the trust ratio, Lion's sign).
fn register_scale_by_statistics(b: &mut Builder) {
    b.func("scale_by_adam", |_, a| {
        Ok(scale_by_adam(AdamHyper::parse(
            &a,
            0,
            1e-8,
            0.0,
            "scale_by_adam",
        )?))
    });
    b.func("scale_by_belief", |_, a| {
        Ok(scale_by_belief(AdamHyper::parse(
            &a,
            0,
            1e-16,
            1e-16,
            "scale_by_belief",
        )?))
    });
    b.func("scale_by_rms", |_, a| {
        let f = "scale_by_rms";
        let decay = Hyper::arg(&a, Some(0), "decay", Some(0.9), f)?;
        let eps = Hyper::arg(&a, Some(1), "eps", Some(1e-8), f)?;
        let init = Hyper::arg(&a, Some(2), "initial_scale", Some(0.0), f)?;
        Ok(scale_by_rms(
            decay,
            eps,
            init,
            flag(&a, Some(3), "eps_in_sqrt", true)?,
            flag(&a, Some(4), "bias_correction", false)?,
        ))
    });
    b.func("scale_by_trust_ratio", |_, a| {
        let f = "scale_by_trust_ratio";
        let min_norm = Hyper::arg(&a, Some(0), "min_norm", Some(0.0), f)?;
        let coef = Hyper::arg(&a, Some(1), "trust_coefficient", Some(1.0), f)?;
        let eps = Hyper::arg(&a, Some(2), "eps", Some(0.0), f)?;
        Ok(scale_by_trust_ratio(
            min_norm.fixed("min_norm", f)?,
            coef,
            eps,
        ))
    });
    b.func("scale_by_rss", |_, a| {
        let init = Hyper::arg(
            &a,
            Some(0),
            "initial_accumulator_value",
            Some(0.1),
            "scale_by_rss",
        )?;
        let eps = Hyper::arg(&a, Some(1), "eps", Some(1e-7), "scale_by_rss")?;
        Ok(scale_by_rss(init, eps))
    });
    b.func("scale_by_lion", |_, a| {
        let b1 = Hyper::arg(&a, Some(0), "b1", Some(0.9), "scale_by_lion")?;
        Ok(scale_by_lion(
            b1,
            Hyper::arg(&a, Some(1), "b2", Some(0.99), "scale_by_lion")?,
        ))
    });
}

/// Registers clipping, the trivial transformations, `chain`,
/// `apply_updates` and the constructors of transformation objects.
fn register_misc(b: &mut Builder) {
    b.func("clip", |_, a| {
        Ok(clip(Hyper::arg(&a, Some(0), "max_delta", None, "clip")?))
    });
    b.func("clip_by_global_norm", |_, a| {
        Ok(clip_by_global_norm(Hyper::arg(
            &a,
            Some(0),
            "max_norm",
            None,
            "clip_by_global_norm",
        )?))
    });
    b.func("identity", |_, _| Ok(stateless(|_, u, _| Ok(u.clone()))));
    b.func("set_to_zero", |_, _| Ok(set_to_zero()));
    b.func("zero_nans", |_, _| Ok(zero_nans()));
    b.func("chain", |_, a| Ok(chain(a.pos.clone())));
    b.func("global_norm", |interp, a| {
        let (leaves, _) = leaves_of(interp, &a.req(Some(0), "updates", "global_norm")?)?;
        Ok(Obj::Array(global_norm(&leaves)?))
    });
    b.func("apply_updates", apply_updates);
}

/// `set_to_zero()`: every update zero.
pub(super) fn set_to_zero() -> Obj {
    stateless(|interp, u, _| tree_map(interp, &[u], |x| Ok(jops::zeros_like(x[0]))))
}

/// `apply_updates(params, updates)`: `p + u` in the parameters' dtype.
fn apply_updates(interp: &mut Interp, a: Args) -> Result<Obj> {
    let params = a.req(Some(0), "params", "apply_updates")?;
    let updates = a.req(Some(1), "updates", "apply_updates")?;
    tree_map(interp, &[&params, &updates], |x| {
        jops::convert(&jops::add(x[0], x[1])?, x[0].dtype())
    })
}
