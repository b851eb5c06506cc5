//! More transformations built around others or around the gradients of a
//! batch: `lookahead` (with `LookaheadParams`), `monitor`,
//! `per_example_global_norm_clip`, `per_example_layer_norm_clip` and
//! `scale_by_stddev` (the centred RMSProp).

use std::cell::RefCell;
use std::rc::Rc;

use crate::array::DType;
use crate::error::Result;
use crate::python::array::to_value;
use crate::python::interp::Interp;
use crate::python::value::{Args, Dict, Obj};
use crate::trace::Value;
use crate::{bail, ops as jops};

use super::super::Builder;
use super::base::{
    call_init, call_update, field, flag, hmul, initial_tree, is_callable, leaves_of, rebuild,
    safe_increment, state, transformation, tree_map, zero_count, zeros_tree, Hyper,
};
use super::transforms::{bias_correction, c, moment};

fn lookahead_params(fast: Obj, slow: Obj) -> Obj {
    state("LookaheadParams", vec![("fast", fast), ("slow", slow)])
}

/// The fast parameters of `LookaheadParams`, or the parameters themselves
/// when they are plain parameters.
fn fast_of(p: &Obj) -> Obj {
    match p {
        Obj::Instance(i) => i.get("fast").unwrap_or_else(|| p.clone()),
        _ => p.clone(),
    }
}

/// The updates of one lookahead step: the fast updates, pulled back
/// towards the slow parameters on a synchronising step, and the slow
/// updates, which move only then.
fn lookahead_updates(
    interp: &mut Interp,
    u: &Obj,
    params: &Obj,
    sync: &Value,
    slow_step: &Hyper,
) -> Result<Obj> {
    let fast = field(params, "fast")?;
    let slow = field(params, "slow")?;
    let diff = tree_map(interp, &[&fast, u, &slow], |x| {
        jops::sub(&jops::add(x[0], x[1])?, x[2])
    })?;
    let sync_f = jops::convert(sync, DType::F32)?;
    let slow_u = tree_map(interp, &[&diff], |x| {
        jops::mul(&hmul(slow_step, &sync_f)?, x[0])
    })?;
    let pull = jops::mul(&sync_f, &slow_step.one_minus()?.value())?;
    let fast_u = tree_map(interp, &[u, &diff], |x| {
        jops::sub(x[0], &jops::mul(&pull, x[1])?)
    })?;
    Ok(lookahead_params(fast_u, slow_u))
}

/// `lookahead(fast_optimizer, sync_period, slow_step_size, reset_state)`.
fn lookahead(a: &Args) -> Result<Obj> {
    let f = "lookahead";
    let fast = a.req(Some(0), "fast_optimizer", f)?;
    let period = match a.req(Some(1), "sync_period", f)? {
        Obj::Int(n) => n,
        o => bail!(
            NotImplementedError,
            "not supported by shardlab yet: optax.lookahead with sync_period={}",
            crate::python::format::repr_of(&o)
        ),
    };
    if period < 1 {
        bail!(ValueError, "Synchronization period must be >= 1.");
    }
    let slow_step = Hyper::arg(a, Some(2), "slow_step_size", None, f)?;
    let reset = flag(a, Some(3), "reset_state", false)?;
    let fast2 = fast.clone();
    Ok(transformation(
        move |interp, p| {
            let st = call_init(interp, &fast, &fast_of(p))?;
            Ok(lookahead_state(st, zero_count()))
        },
        move |interp, u, st, p, _| {
            let Some(p) = p else {
                bail!(ValueError, "{}", super::rescaling::NO_PARAMS);
            };
            let fast_p = field(p, "fast")?;
            let (u, mut fast_st) = call_update(
                interp,
                &fast2,
                u,
                &field(st, "fast_state")?,
                Some(&fast_p),
                &[],
            )?;
            let steps = to_value(&field(st, "steps_since_sync")?)?;
            let last = jops::scalar((period - 1) as f64, DType::I32);
            let sync = jops::equal(&steps, &last)?;
            let out = lookahead_updates(interp, &u, p, &sync, &slow_step)?;
            if reset {
                let fresh = call_init(interp, &fast2, &fast_p)?;
                fast_st = tree_map(interp, &[&fast_st, &fresh], |x| {
                    let s = jops::convert(&sync, x[0].dtype())?;
                    let keep = jops::sub(&jops::scalar(1.0, x[0].dtype()), &s)?;
                    jops::add(&jops::mul(&keep, x[0])?, &jops::mul(&s, x[1])?)
                })?;
            }
            let next = jops::add(&steps, &jops::scalar(1.0, DType::I32))?;
            let next = jops::binary(
                crate::array::BinaryOp::Rem,
                &next,
                &jops::scalar(period as f64, DType::I32),
            )?;
            Ok((out, lookahead_state(fast_st, Obj::Array(next))))
        },
    ))
}

fn lookahead_state(fast: Obj, steps: Obj) -> Obj {
    state(
        "LookaheadState",
        vec![("fast_state", fast), ("steps_since_sync", steps)],
    )
}

/// What the `LookaheadParams(fast, slow)` class has beyond its fields:
/// `init_synced(params)`, both copies the same parameters.
pub(super) fn lookahead_params_extras() -> Vec<(String, Obj)> {
    let synced = Obj::native("LookaheadParams.init_synced", |_, a| {
        let p = a.req(Some(0), "params", "init_synced")?;
        Ok(lookahead_params(p.clone(), p))
    });
    vec![("init_synced".into(), synced)]
}

/// `monitor(measures)`: the updates pass unchanged; each measure (a
/// transformation, or a function of the updates) is kept in the state.
fn monitor(a: &Args) -> Result<Obj> {
    let measures = match a.req(Some(0), "measures", "monitor")? {
        Obj::Dict(d) => d.borrow().items.clone(),
        other => bail!(
            TypeError,
            "monitor: measures must be a dict, got {}",
            other.type_name()
        ),
    };
    let measures: Vec<(Obj, Obj)> = measures
        .into_iter()
        .map(|(k, m)| {
            let tx = if is_callable(&m) {
                super::base::stateless(move |interp, u, _| {
                    interp.call(&m, Args::new(vec![u.clone()]))
                })
            } else {
                m
            };
            (k, tx)
        })
        .collect();
    let m2 = measures.clone();
    Ok(transformation(
        move |interp, p| {
            let states = measures
                .iter()
                .map(|(_, tx)| call_init(interp, tx, p))
                .collect::<Result<_>>()?;
            Ok(monitor_state(vec![], states))
        },
        move |interp, u, st, p, extra| {
            let old = match field(st, "measure_states")? {
                Obj::Tuple(t) => t.to_vec(),
                other => bail!(TypeError, "expected a tuple, got {}", other.type_name()),
            };
            let mut found = vec![];
            let mut states = vec![];
            for ((k, tx), s) in m2.iter().zip(&old) {
                let (m, ns) = call_update(interp, tx, u, s, p, extra)?;
                found.push((k.clone(), m));
                states.push(ns);
            }
            Ok((u.clone(), monitor_state(found, states)))
        },
    ))
}

fn monitor_state(measurements: Vec<(Obj, Obj)>, states: Vec<Obj>) -> Obj {
    let mut d = Dict::default();
    for (k, v) in measurements {
        d.set(k, v);
    }
    state(
        "MonitorState",
        vec![
            ("measurements", Obj::Dict(Rc::new(RefCell::new(d)))),
            ("measure_states", Obj::tuple(states)),
        ],
    )
}

/// `measure_with_ema(measure, decay, debias)`: the measure of the updates,
/// averaged over the steps by `ema` (whose state is shaped as the measure
/// of the parameters).
fn measure_with_ema(a: &Args) -> Result<Obj> {
    let f = "measure_with_ema";
    super::alias::refuse(a, Some(3), "accumulator_dtype", f)?;
    let measure = a.req(Some(0), "measure", f)?;
    let decay = Hyper::arg(a, Some(1), "decay", None, f)?;
    let base = super::rescaling::ema(decay, flag(a, Some(2), "debias", true)?);
    let (m1, m2, b2) = (measure.clone(), measure, base.clone());
    let averaged = transformation(
        move |interp, p| {
            let m = interp.call(&m1, Args::new(vec![p.clone()]))?;
            call_init(interp, &base, &m)
        },
        move |interp, u, st, p, extra| call_update(interp, &b2, u, st, p, extra),
    );
    let measured =
        super::base::stateless(move |interp, u, _| interp.call(&m2, Args::new(vec![u.clone()])));
    Ok(super::transforms::chain(vec![measured, averaged]))
}

/// `snapshot(measure_name, measure)`: the updates pass unchanged; the
/// state holds `{measure_name: measure(updates)}`.
fn snapshot(a: &Args) -> Result<Obj> {
    let name = a.req(Some(0), "measure_name", "snapshot")?;
    let measure = a.req(Some(1), "measure", "snapshot")?;
    let (n2, m2) = (name.clone(), measure.clone());
    let make = |name: &Obj, m: Obj| {
        let mut d = Dict::default();
        d.set(name.clone(), m);
        state(
            "SnapshotState",
            vec![("measurement", Obj::Dict(Rc::new(RefCell::new(d))))],
        )
    };
    Ok(transformation(
        move |interp, p| {
            let m = interp.call(&measure, Args::new(vec![p.clone()]))?;
            Ok(make(&name, m))
        },
        move |interp, u, _, _, _| {
            let m = interp.call(&m2, Args::new(vec![u.clone()]))?;
            Ok((u.clone(), make(&n2, m)))
        },
    ))
}

/// Fails unless every leaf has the first one's leading (batch) axis.
fn check_batch(leaves: &[Value], func: &str, interp: &mut Interp, grads: &Obj) -> Result<()> {
    let b = leaves.first().and_then(|x| x.shape().first().copied());
    let ok = leaves
        .iter()
        .all(|x| x.ndim() >= 1 && Some(x.shape()[0]) == b);
    if ok {
        return Ok(());
    }
    if func == "per_example_global_norm_clip" {
        bail!(ValueError, "Unlike other transforms, `per_example_global_norm_clip` expects `grads` to have a batch dimension in the 0th axis.");
    }
    let shapes = tree_map(interp, &[grads], |x| Ok(x[0].clone()))?;
    bail!(
        ValueError,
        "Unlike other transforms, `per_example_layer_norm_clip` expects `grads` to have a batch dimension in the 0th axis; got shapes: {}.",
        crate::python::format::repr_of(&shapes)
    )
}

/// The per-example gradients clipped to a global norm and summed over the
/// batch, and how many examples were clipped.
fn global_clip(leaves: &[Value], clip: &Value) -> Result<(Vec<Value>, Value)> {
    let mut total: Option<Value> = None;
    for x in leaves {
        let axes: Vec<i64> = (1..x.ndim() as i64).collect();
        let s = jops::sum(&jops::mul(x, x)?, Some(&axes), false)?;
        total = Some(match total {
            None => s,
            Some(t) => jops::add(&t, &s)?,
        });
    }
    let Some(total) = total else {
        bail!(ValueError, "per_example_global_norm_clip of an empty tree");
    };
    let norms = jops::sqrt(&total)?;
    let m = jops::minimum(&jops::div(clip, &norms)?, &c(1.0))?;
    let m = jops::select(
        &jops::not_equal(&m, &m)?,
        &jops::broadcast_to(&c(1.0), &m.shape())?,
        &m,
    )?;
    let clipped = jops::convert(&jops::less(&m, &c(1.0))?, DType::I32)?;
    let count = jops::sum(&clipped, None, false)?;
    let sums = leaves
        .iter()
        .map(|g| jops::dot_general(&m, g, (&[0], &[0]), (&[], &[])))
        .collect::<Result<_>>()?;
    Ok((sums, count))
}

fn per_example_global_norm_clip(interp: &mut Interp, a: Args) -> Result<Obj> {
    let f = "per_example_global_norm_clip";
    let grads = a.req(Some(0), "grads", f)?;
    let clip = Hyper::arg(&a, Some(1), "l2_norm_clip", None, f)?.value();
    let (leaves, def) = leaves_of(interp, &grads)?;
    check_batch(&leaves, f, interp, &grads)?;
    let (sums, count) = global_clip(&leaves, &clip)?;
    Ok(Obj::tuple(vec![
        rebuild(interp, &def, sums)?,
        Obj::Array(count),
    ]))
}

fn per_example_layer_norm_clip(interp: &mut Interp, a: Args) -> Result<Obj> {
    let f = "per_example_layer_norm_clip";
    let grads = a.req(Some(0), "grads", f)?;
    let clip = Hyper::arg(&a, Some(1), "global_l2_norm_clip", None, f)?;
    let uniform = flag(&a, Some(2), "uniform", true)?;
    let (leaves, def) = leaves_of(interp, &grads)?;
    check_batch(&leaves, f, interp, &grads)?;
    let sizes: Vec<usize> = leaves
        .iter()
        .map(|x| x.shape()[1..].iter().product())
        .collect();
    let total: usize = sizes.iter().sum();
    let mut sums = vec![];
    let mut counts = vec![];
    for (x, size) in leaves.iter().zip(&sizes) {
        // The share of the clip norm is a Python number in optax.
        let share = if uniform {
            (1.0 / leaves.len() as f64).powf(0.5)
        } else {
            (*size as f64 / total as f64).powf(0.5)
        };
        let layer_clip = clip.map(|v| v * share, |v| jops::mul(v, &c(share)))?;
        let (s, n) = global_clip(std::slice::from_ref(x), &layer_clip.value())?;
        sums.extend(s);
        counts.push(n);
    }
    Ok(Obj::tuple(vec![
        rebuild(interp, &def, sums)?,
        rebuild(interp, &def, counts)?,
    ]))
}

/// `scale_by_stddev(decay, eps, initial_scale, eps_in_sqrt,
/// bias_correction)`: `g` over the root of the moving variance of `g`.
pub(super) fn scale_by_stddev(
    decay: Hyper,
    eps: Hyper,
    initial: Hyper,
    eps_in_sqrt: bool,
    debias: bool,
) -> Obj {
    let name = if debias {
        "ScaleByRStdDevWithCountState"
    } else {
        "ScaleByRStdDevState"
    };
    let make = move |count: Option<Obj>, mu: Obj, nu: Obj| {
        let mut fields = vec![];
        if let Some(count) = count {
            fields.push(("count", count));
        }
        fields.extend([("mu", mu), ("nu", nu)]);
        state(name, fields)
    };
    transformation(
        move |interp, p| {
            let count = debias.then(zero_count);
            Ok(make(
                count,
                zeros_tree(interp, p)?,
                initial_tree(interp, p, &initial, "scale_by_stddev")?,
            ))
        },
        move |interp, u, st, _, _| {
            let mu = tree_map(interp, &[u, &field(st, "mu")?], |x| {
                moment(x[0], x[1], &decay, 1)
            })?;
            let nu = tree_map(interp, &[u, &field(st, "nu")?], |x| {
                moment(x[0], x[1], &decay, 2)
            })?;
            let count = match debias {
                true => Some(safe_increment(&to_value(&field(st, "count")?)?)?),
                false => None,
            };
            let out = tree_map(interp, &[&mu, &nu, u], |x| {
                let (m, n) = match &count {
                    Some(k) => (
                        bias_correction(x[0], &decay, k)?,
                        bias_correction(x[1], &decay, k)?,
                    ),
                    None => (x[0].clone(), x[1].clone()),
                };
                let var = jops::sub(&n, &jops::mul(&m, &m)?)?;
                let s = if eps_in_sqrt {
                    jops::unary(
                        crate::array::UnaryOp::Rsqrt,
                        &jops::add(&var, &eps.value())?,
                    )?
                } else {
                    jops::div(&c(1.0), &jops::add(&jops::sqrt(&var)?, &eps.value())?)?
                };
                jops::mul(&s, x[2])
            })?;
            Ok((out, make(count.map(Obj::Array), mu, nu)))
        },
    )
}

/// Registers the transformations and functions on `optax`.
pub(super) fn register(b: &mut Builder) {
    b.func("lookahead", |_, a| lookahead(&a));
    b.func("monitor", |_, a| monitor(&a));
    b.func("measure_with_ema", |_, a| measure_with_ema(&a));
    b.func("snapshot", |_, a| snapshot(&a));
    b.func("per_example_global_norm_clip", per_example_global_norm_clip);
    b.func("per_example_layer_norm_clip", per_example_layer_norm_clip);
    b.func("scale_by_stddev", |_, a| {
        let f = "scale_by_stddev";
        let decay = Hyper::arg(&a, Some(0), "decay", Some(0.9), f)?;
        let eps = Hyper::arg(&a, Some(1), "eps", Some(1e-8), f)?;
        let init = Hyper::arg(&a, Some(2), "initial_scale", Some(0.0), f)?;
        Ok(scale_by_stddev(
            decay,
            eps,
            init,
            flag(&a, Some(3), "eps_in_sqrt", true)?,
            flag(&a, Some(4), "bias_correction", false)?,
        ))
    });
}
