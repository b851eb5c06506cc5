//! Transformations made from other transformations: `inject_hyperparams`
//! (hyperparameters kept in the state, schedules evaluated each step) and
//! `MultiSteps` (gradient accumulation over several mini-steps).

use std::cell::RefCell;
use std::rc::Rc;

use crate::array::DType;
use crate::error::Result;
use crate::python::array::to_value;
use crate::python::interp::Interp;
use crate::python::pytree::{flatten, flatten_up_to, unflatten, TreeDef};
use crate::python::value::{Args, Dict, Instance, Obj};
use crate::trace::Value;
use crate::{bail, err, ops as jops};

use super::super::Builder;
use super::alias::{Param, SIGNATURES};
use super::base::{
    call_init, call_update, field, is_callable, leaves_of, rebuild, safe_increment, schedule_at,
    state, state_class, transformation, tree_map, zero_count, zeros_tree,
};

/// The hyperparameters of one `inject_hyperparams` call, sorted as optax
/// sorts them.
#[derive(Clone, Default)]
struct Hyperparams {
    /// Numbers and arrays, kept in the state.
    numeric: Vec<(String, Obj)>,
    /// Schedules, evaluated at the state's count.
    scheduled: Vec<(String, Obj)>,
    /// Everything else (flags, None), passed through unchanged.
    other: Vec<(String, Obj)>,
}

/// Binds a call's arguments to the factory's parameters, with defaults,
/// and sorts them.
fn bind(name: &str, sig: &[(&str, Param)], a: &Args) -> Result<Hyperparams> {
    let mut h = Hyperparams::default();
    for (i, (p, default)) in sig.iter().enumerate() {
        let v = match a.get(Some(i), p) {
            Some(v) => v,
            None => match default {
                Param::Required => bail!(TypeError, "missing a required argument: '{p}'"),
                Param::Num(v) => Obj::Float(*v),
                Param::None => Obj::None,
                Param::Flag(b) => Obj::Bool(*b),
            },
        };
        let slot = match &v {
            Obj::Bool(_) | Obj::None => &mut h.other,
            Obj::Int(_) | Obj::Float(_) | Obj::Array(_) => &mut h.numeric,
            o if is_callable(o) => &mut h.scheduled,
            _ => bail!(
                NotImplementedError,
                "not supported by shardlab yet: optax.inject_hyperparams({name}) with {p}"
            ),
        };
        slot.push((p.to_string(), v));
    }
    Ok(h)
}

/// A hyperparameter as the array the state keeps: floats as float32.
fn as_array(v: &Obj) -> Result<Obj> {
    let x = to_value(v)?;
    Ok(Obj::Array(match v {
        Obj::Int(_) => x,
        _ if x.dtype() == DType::I32 => x,
        _ => jops::astype(&x, DType::F32)?,
    }))
}

fn dict(items: Vec<(String, Obj)>) -> Obj {
    let mut d = Dict::default();
    for (k, v) in items {
        d.set(Obj::str(k), v);
    }
    Obj::Dict(Rc::new(RefCell::new(d)))
}

fn dict_get(d: &Obj, k: &str) -> Result<Obj> {
    match d {
        Obj::Dict(d) => d
            .borrow()
            .get(&Obj::str(k))
            .ok_or_else(|| err!(KeyError, "'{k}'")),
        other => bail!(TypeError, "expected a dict, got {}", other.type_name()),
    }
}

fn schedule_state(count: Value) -> Obj {
    state("WrappedScheduleState", vec![("count", Obj::Array(count))])
}

/// The hyperparameter values at `counts` (one per schedule), numbers first.
fn values(
    interp: &mut Interp,
    h: &Hyperparams,
    numeric: Vec<(String, Obj)>,
    counts: &[Value],
) -> Result<Vec<(String, Obj)>> {
    let mut out = numeric;
    for ((k, s), count) in h.scheduled.iter().zip(counts) {
        let v = schedule_at(interp, s, count)?;
        out.push((k.clone(), as_array(&Obj::Array(v))?));
    }
    Ok(out)
}

/// The inner transformation built with the given hyperparameter values.
fn inner(interp: &mut Interp, factory: &Obj, h: &Hyperparams, hp: &[(String, Obj)]) -> Result<Obj> {
    let mut kw: Vec<(String, Obj)> = h.other.clone();
    kw.extend(hp.iter().cloned());
    interp.call(factory, Args::with(vec![], kw))
}

fn inject_state(count: Obj, hp: Vec<(String, Obj)>, sched: Vec<(String, Obj)>, inner: Obj) -> Obj {
    state(
        "InjectStatefulHyperparamsState",
        vec![
            ("count", count),
            ("hyperparams", dict(hp)),
            ("hyperparams_states", dict(sched)),
            ("inner_state", inner),
        ],
    )
}

/// `inject_hyperparams(factory)(*args, **kwargs)`.
fn injected(factory: Obj, h: Hyperparams) -> Obj {
    let (f1, h1) = (factory.clone(), h.clone());
    transformation(
        move |interp, p| {
            let numeric = h1
                .numeric
                .iter()
                .map(|(k, v)| Ok((k.clone(), as_array(v)?)))
                .collect::<Result<_>>()?;
            let zeros: Vec<Value> = h1
                .scheduled
                .iter()
                .map(|_| jops::scalar(0.0, DType::I32))
                .collect();
            let hp = values(interp, &h1, numeric, &zeros)?;
            let tx = inner(interp, &f1, &h1, &hp)?;
            let inner_state = call_init(interp, &tx, p)?;
            let sched = h1
                .scheduled
                .iter()
                .map(|(k, _)| (k.clone(), schedule_state(zeros[0].clone())))
                .collect();
            Ok(inject_state(zero_count(), hp, sched, inner_state))
        },
        move |interp, u, st, p, extra| {
            let old = field(st, "hyperparams")?;
            let numeric = h
                .numeric
                .iter()
                .map(|(k, _)| Ok((k.clone(), dict_get(&old, k)?)))
                .collect::<Result<_>>()?;
            let states = field(st, "hyperparams_states")?;
            let counts: Vec<Value> = h
                .scheduled
                .iter()
                .map(|(k, _)| to_value(&field(&dict_get(&states, k)?, "count")?))
                .collect::<Result<_>>()?;
            let hp = values(interp, &h, numeric, &counts)?;
            let tx = inner(interp, &factory, &h, &hp)?;
            let (u, inner_state) =
                call_update(interp, &tx, u, &field(st, "inner_state")?, p, extra)?;
            let sched = h
                .scheduled
                .iter()
                .zip(&counts)
                .map(|((k, _), c)| Ok((k.clone(), schedule_state(safe_increment(c)?))))
                .collect::<Result<_>>()?;
            let count = safe_increment(&to_value(&field(st, "count")?)?)?;
            Ok((u, inject_state(Obj::Array(count), hp, sched, inner_state)))
        },
    )
}

fn inject_hyperparams(_: &mut Interp, a: Args) -> Result<Obj> {
    let factory = a.req(Some(0), "inner_factory", "inject_hyperparams")?;
    if a.opt(Some(1), "static_args").is_some() || a.opt(Some(2), "hyperparam_dtype").is_some() {
        bail!(NotImplementedError, "not supported by shardlab yet: optax.inject_hyperparams with static_args or hyperparam_dtype");
    }
    let name = match &factory {
        Obj::Native(n) => n.name.trim_start_matches("optax.").to_string(),
        other => bail!(
            NotImplementedError,
            "not supported by shardlab yet: optax.inject_hyperparams of {}",
            other.type_name()
        ),
    };
    let Some((_, sig)) = SIGNATURES.iter().find(|(n, _)| *n == name) else {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: optax.inject_hyperparams({name})"
        );
    };
    Ok(Obj::native(
        format!("optax.inject_hyperparams({name})"),
        move |_, a| {
            let h = bind(&name, sig, &a)?;
            Ok(injected(factory.clone(), h))
        },
    ))
}

/// `MultiSteps(opt, every_k_schedule)`: gradients averaged (or summed)
/// over `k` mini-steps; the inner optimizer's update is emitted on the
/// last of them and zeros before.
fn multi_steps(_: &mut Interp, a: Args) -> Result<Obj> {
    let f = "MultiSteps";
    let opt = a.req(Some(0), "opt", f)?;
    let k = a.req(Some(1), "every_k_schedule", f)?;
    let mean = super::base::flag(&a, Some(2), "use_grad_mean", true)?;
    if a.opt(Some(3), "should_skip_update_fn").is_some()
        || a.opt(Some(4), "accumulator_dtype").is_some()
    {
        bail!(NotImplementedError, "not supported by shardlab yet: optax.MultiSteps with should_skip_update_fn or accumulator_dtype");
    }
    let opt2 = opt.clone();
    let tx = transformation(
        move |interp, p| {
            let inner = call_init(interp, &opt, p)?;
            let acc = zeros_tree(interp, p)?;
            Ok(multi_state(zero_count(), zero_count(), inner, acc))
        },
        move |interp, u, st, p, extra| multi_update(interp, &opt2, &k, mean, (u, st, p), extra),
    );
    let Obj::Instance(i) = &tx else { return Ok(tx) };
    let attrs = i.attrs.borrow().clone();
    let gt = tx.clone();
    let mut attrs = attrs;
    attrs.push((
        "gradient_transformation".into(),
        Obj::native("gradient_transformation", move |_, _| Ok(gt.clone())),
    ));
    Ok(Obj::Instance(Rc::new(Instance::with_attrs(
        state_class("MultiSteps", &[]),
        attrs,
    ))))
}

fn multi_state(mini: Obj, step: Obj, inner: Obj, acc: Obj) -> Obj {
    state(
        "MultiStepsState",
        vec![
            ("mini_step", mini),
            ("gradient_step", step),
            ("inner_opt_state", inner),
            ("acc_grads", acc),
            ("skip_state", Obj::tuple(vec![])),
        ],
    )
}

/// One mini-step of `MultiSteps`.
fn multi_update(
    interp: &mut Interp,
    opt: &Obj,
    k: &Obj,
    mean: bool,
    (u, st, p): (&Obj, &Obj, Option<&Obj>),
    extra: &[(String, Obj)],
) -> Result<(Obj, Obj)> {
    let mini = to_value(&field(st, "mini_step")?)?;
    let step = to_value(&field(st, "gradient_step")?)?;
    let k = match k {
        Obj::Int(n) => jops::scalar(*n as f64, DType::I32),
        s => schedule_at(interp, s, &step)?,
    };
    let n1 = jops::add(&mini, &jops::scalar(1.0, DType::I32))?;
    let acc = tree_map(interp, &[u, &field(st, "acc_grads")?], |x| {
        if mean {
            let d = jops::div(&jops::sub(x[0], x[1])?, &jops::convert(&n1, x[0].dtype())?)?;
            jops::add(x[1], &d)
        } else {
            jops::add(x[0], x[1])
        }
    })?;
    let inner_old = field(st, "inner_opt_state")?;
    let (out, inner_new) = call_update(interp, opt, &acc, &inner_old, p, extra)?;
    let last = jops::sub(&k, &jops::scalar(1.0, k.dtype()))?;
    let emit = jops::equal(&mini, &jops::convert(&last, DType::I32)?)?;
    let emit_i = jops::convert(&emit, DType::I32)?;
    let mini_next = rem(&safe_increment(&mini)?, &jops::convert(&k, DType::I32)?)?;
    let step_next = jops::add(
        &jops::mul(&emit_i, &safe_increment(&step)?)?,
        &jops::mul(&jops::sub(&jops::scalar(1.0, DType::I32), &emit_i)?, &step)?,
    )?;
    let inner = tree_map(interp, &[&inner_old, &inner_new], |x| {
        jops::convert(&jops::select(&emit, x[1], x[0])?, x[0].dtype())
    })?;
    let keep = jops::sub(&jops::scalar(1.0, DType::I32), &emit_i)?;
    let acc = tree_map(interp, &[&acc], |x| {
        jops::convert(
            &jops::mul(&jops::convert(&keep, x[0].dtype())?, x[0])?,
            DType::F32,
        )
    })?;
    let out = tree_map(interp, &[&out], |x| {
        jops::mul(&jops::convert(&emit, x[0].dtype())?, x[0])
    })?;
    let st = multi_state(Obj::Array(mini_next), Obj::Array(step_next), inner, acc);
    Ok((out, st))
}

/// Python's `%` on non-negative int32 values.
fn rem(a: &Value, b: &Value) -> Result<Value> {
    jops::binary(crate::array::BinaryOp::Rem, a, b)
}

/// All leaves of a pytree raveled and concatenated into one vector.
fn ravel(interp: &mut Interp, tree: &Obj) -> Result<Value> {
    let (leaves, _) = leaves_of(interp, tree)?;
    let flat: Vec<Value> = leaves
        .iter()
        .map(|l| jops::reshape(l, &[l.shape().iter().product()]))
        .collect::<Result<_>>()?;
    jops::concatenate(&flat, 0)
}

/// The vector `flat` cut back into leaves shaped like those of `like`.
fn unravel(interp: &mut Interp, like: &Obj, flat: &Value) -> Result<Obj> {
    let (leaves, def) = leaves_of(interp, like)?;
    let mut at = 0;
    let mut out = vec![];
    for l in &leaves {
        let n: usize = l.shape().iter().product();
        let part = jops::slice(flat, &[at], &[at + n], &[1])?;
        out.push(jops::reshape(&part, &l.shape())?);
        at += n;
    }
    rebuild(interp, &def, out)
}

/// `flatten(inner)`: the inner transformation applied to one vector of
/// all the leaves.
fn flatten_transform(_: &mut Interp, a: Args) -> Result<Obj> {
    let inner = a.req(Some(0), "inner", "flatten")?;
    let inner2 = inner.clone();
    Ok(transformation(
        move |interp, p| {
            let flat = Obj::Array(ravel(interp, p)?);
            call_init(interp, &inner, &flat)
        },
        move |interp, u, st, p, extra| {
            let p = match p {
                Some(p) => Some(Obj::Array(ravel(interp, p)?)),
                None => None,
            };
            let flat = Obj::Array(ravel(interp, u)?);
            let (out, st) = call_update(interp, &inner2, &flat, st, p.as_ref(), extra)?;
            Ok((unravel(interp, u, &to_value(&out)?)?, st))
        },
    ))
}

/// Registers the wrappers on the `optax` module.
pub(super) fn register(b: &mut Builder) {
    b.func("flatten", flatten_transform);
    b.func("inject_hyperparams", inject_hyperparams);
    b.func("MultiSteps", multi_steps);
}

/// `MaskedNode()`: what a masked transformation sees in place of a leaf
/// it must leave alone (a pytree node without children).
fn masked_node() -> Obj {
    state("MaskedNode", vec![])
}

/// The mask's flags and structure: a flag for each subtree of `tree` at a
/// leaf of the mask, which is a prefix of `tree` (a callable mask is
/// called with the tree).
fn mask_flags(interp: &mut Interp, mask: &Obj, tree: &Obj) -> Result<(Vec<bool>, TreeDef)> {
    let m = if is_callable(mask) {
        interp.call(mask, Args::new(vec![tree.clone()]))?
    } else {
        mask.clone()
    };
    let (flags, def) = flatten(interp, &m)?;
    let flags = flags
        .iter()
        .map(|f| crate::python::ops::truthy(f, "mask"))
        .collect::<Result<Vec<bool>>>()?;
    Ok((flags, def))
}

/// `tree` with the subtrees whose flag is false replaced by `MaskedNode()`.
fn hide(interp: &mut Interp, tree: &Obj, (flags, def): &(Vec<bool>, TreeDef)) -> Result<Obj> {
    let parts = flatten_up_to(interp, def, tree)?;
    let shown: Vec<Obj> = parts
        .into_iter()
        .zip(flags)
        .map(|(l, f)| if *f { l } else { masked_node() })
        .collect();
    unflatten(interp, def, &shown)
}

/// `masked(inner, mask)`: `inner` applied to the subtrees the mask
/// selects; the other updates pass through unchanged.
pub(super) fn masked(inner: Obj, mask: Obj) -> Obj {
    let (inner2, mask2) = (inner.clone(), mask.clone());
    transformation(
        move |interp, p| {
            let flags = mask_flags(interp, &mask, p)?;
            let shown = hide(interp, p, &flags)?;
            let st = call_init(interp, &inner, &shown)?;
            Ok(state("MaskedState", vec![("inner_state", st)]))
        },
        move |interp, u, st, p, extra| {
            let flags = mask_flags(interp, &mask2, u)?;
            let shown_u = hide(interp, u, &flags)?;
            let shown_p = match p {
                Some(p) => Some(hide(interp, p, &flags)?),
                None => None,
            };
            let inner_st = field(st, "inner_state")?;
            let (new_u, new_st) = call_update(
                interp,
                &inner2,
                &shown_u,
                &inner_st,
                shown_p.as_ref(),
                extra,
            )?;
            let (on, def) = &flags;
            let orig = flatten_up_to(interp, def, u)?;
            let fresh = flatten_up_to(interp, def, &new_u)?;
            let merged: Vec<Obj> = orig
                .into_iter()
                .zip(fresh)
                .zip(on)
                .map(|((o, n), f)| if *f { n } else { o })
                .collect();
            let out = unflatten(interp, def, &merged)?;
            Ok((out, state("MaskedState", vec![("inner_state", new_st)])))
        },
    )
}

/// `partition(transforms, param_labels)` (also `multi_transform`): each
/// labelled transformation masked to the leaves with its label.
fn partition(interp: &mut Interp, a: Args) -> Result<Obj> {
    let txs = a.req(Some(0), "transforms", "partition")?;
    let labels = a.req(Some(1), "param_labels", "partition")?;
    let Obj::Dict(d) = &txs else {
        bail!(
            TypeError,
            "partition: transforms must be a dict of labels to transformations"
        );
    };
    let mut parts: Vec<(Obj, Obj)> = vec![];
    for (label, tx) in d.borrow().items.clone() {
        let (l2, lab) = (label.clone(), labels.clone());
        let mask = Obj::native("mask", move |interp, a| {
            let tree = a.req(Some(0), "params", "mask")?;
            let l = if is_callable(&lab) {
                interp.call(&lab, Args::new(vec![tree.clone()]))?
            } else {
                lab.clone()
            };
            let (leaves, def) = flatten(interp, &l)?;
            let flags: Vec<Obj> = leaves
                .iter()
                .map(|x| Obj::Bool(crate::python::value::key_eq(x, &l2)))
                .collect();
            unflatten(interp, &def, &flags)
        });
        parts.push((label, masked(tx, mask)));
    }
    let _ = interp;
    let parts2 = parts.clone();
    Ok(transformation(
        move |interp, p| {
            let mut states = vec![];
            for (label, tx) in &parts {
                states.push((label.clone(), call_init(interp, tx, p)?));
            }
            Ok(partition_state(states))
        },
        move |interp, u, st, p, extra| {
            let inner = field(st, "inner_states")?;
            let mut u = u.clone();
            let mut states = vec![];
            for (label, tx) in &parts2 {
                let s = match &inner {
                    Obj::Dict(d) => d
                        .borrow()
                        .get(label)
                        .ok_or_else(|| err!(KeyError, "missing state"))?,
                    _ => bail!(TypeError, "expected a PartitionState"),
                };
                let (nu, ns) = call_update(interp, tx, &u, &s, p, extra)?;
                u = nu;
                states.push((label.clone(), ns));
            }
            Ok((u, partition_state(states)))
        },
    ))
}

fn partition_state(states: Vec<(Obj, Obj)>) -> Obj {
    let mut d = Dict::default();
    for (k, v) in states {
        d.set(k, v);
    }
    let d = Obj::Dict(Rc::new(RefCell::new(d)));
    state("PartitionState", vec![("inner_states", d)])
}

/// `selective_transform(optimizer, *, freeze_mask)`: the optimizer on the
/// leaves the mask leaves free, zero updates on those it freezes: a
/// partition labelled "train" and "freeze", as optax builds it.
fn selective_transform(interp: &mut Interp, a: Args) -> Result<Obj> {
    let optimizer = a.req(Some(0), "optimizer", "selective_transform")?;
    let mask = a.req(None, "freeze_mask", "selective_transform")?;
    let (flags, def) = flatten(interp, &mask)?;
    let labels: Vec<Obj> = flags
        .iter()
        .map(|f| {
            let frozen = crate::python::ops::truthy(f, "freeze_mask")?;
            Ok(Obj::str(if frozen { "freeze" } else { "train" }))
        })
        .collect::<Result<_>>()?;
    let labels = unflatten(interp, &def, &labels)?;
    let mut txs = Dict::default();
    txs.set(Obj::str("train"), optimizer);
    txs.set(Obj::str("freeze"), super::transforms::set_to_zero());
    let txs = Obj::Dict(Rc::new(RefCell::new(txs)));
    partition(interp, Args::new(vec![txs, labels]))
}

/// Registers `masked`, `partition`, `multi_transform`, `freeze` and
/// `selective_transform`.
pub(super) fn register_masking(b: &mut Builder) {
    b.func("freeze", |_, a| {
        Ok(masked(
            super::transforms::set_to_zero(),
            a.req(Some(0), "mask", "freeze")?,
        ))
    });
    b.func("selective_transform", selective_transform);
    b.func("masked", |_, a| {
        Ok(masked(
            a.req(Some(0), "inner", "masked")?,
            a.req(Some(1), "mask", "masked")?,
        ))
    });
    b.func("partition", partition);
    b.func("multi_transform", partition);
}
