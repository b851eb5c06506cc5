//! Transformations that apply another one only on some steps:
//! `apply_if_finite` (skips updates with a NaN or infinity, until too many
//! come in a row), `conditionally_transform` and `conditionally_mask` (a
//! function of the step count decides), and `apply_every` (accumulates `k`
//! steps' updates and emits their sum on the last).
//!
//! Optax chooses between the inner update and the rejected one with
//! `lax.cond`; so does shardlab, through the interpreter, so that under
//! `jit` the choice is staged as optax stages it and both branches must
//! agree on their types as JAX requires.

use crate::array::Array;
use crate::error::Result;
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};
use crate::trace::Value;

use super::super::Builder;
use super::base::{
    call_init, call_update, field, leaves_of, safe_increment, state, transformation, zero_count,
};
use super::compose::{call, jnp, tree};

/// The inner transformation's update, or the rejected pair, as
/// `lax.cond(pred, ...)` chooses.
fn cond_update(
    interp: &mut Interp,
    pred: Obj,
    inner: &Obj,
    (u, inner_state, p): (&Obj, &Obj, Option<&Obj>),
    extra: &[(String, Obj)],
    rejected: Obj,
) -> Result<(Obj, Obj)> {
    let (inner, u2, s2) = (inner.clone(), u.clone(), inner_state.clone());
    let (p, extra) = (p.cloned(), extra.to_vec());
    let taken = Obj::native("do_update", move |interp, _| {
        let (u, s) = call_update(interp, &inner, &u2, &s2, p.as_ref(), &extra)?;
        Ok(Obj::tuple(vec![u, s]))
    });
    let rejected = Obj::native("reject_update", move |_, _| Ok(rejected.clone()));
    let out = call(
        interp,
        "jax.lax",
        "cond",
        vec![pred, taken, rejected],
        vec![],
    )?;
    match out {
        Obj::Tuple(t) if t.len() == 2 => Ok((t[0].clone(), t[1].clone())),
        other => crate::bail!(
            TypeError,
            "update must return (updates, state), got {}",
            other.type_name()
        ),
    }
}

/// Whether every element of every leaf of `updates` is finite.
fn all_finite(interp: &mut Interp, updates: &Obj) -> Result<Obj> {
    let (leaves, _) = leaves_of(interp, updates)?;
    let mut flags = vec![];
    for x in leaves {
        let f = jnp(interp, "isfinite", vec![Obj::Array(x)])?;
        flags.push(jnp(interp, "all", vec![f])?);
    }
    let flags = jnp(interp, "array", vec![Obj::list(flags)])?;
    jnp(interp, "all", vec![flags])
}

fn where_i32(flag: &Obj, a: Value, b: Value) -> Result<Obj> {
    let flag = crate::python::array::to_value(flag)?;
    Ok(Obj::Array(crate::ops::select(&flag, &a, &b)?))
}

fn count_of(st: &Obj, name: &str) -> Result<Value> {
    crate::python::array::to_value(&field(st, name)?)
}

/// `apply_if_finite(inner, max_consecutive_errors)`.
fn apply_if_finite(a: &Args) -> Result<Obj> {
    let f = "apply_if_finite";
    let inner = a.req(Some(0), "inner", f)?;
    let max = a.req(Some(1), "max_consecutive_errors", f)?;
    let inner2 = inner.clone();
    Ok(transformation(
        move |interp, p| {
            let inner_state = call_init(interp, &inner, p)?;
            Ok(finite_state(
                zero_count(),
                Obj::Array(Value::Concrete(Array::scalar_bool(true))),
                zero_count(),
                inner_state,
            ))
        },
        move |interp, u, st, p, extra| {
            let finite = all_finite(interp, u)?;
            let zero = Value::Concrete(Array::scalar_i32(0));
            let bad = count_of(st, "notfinite_count")?;
            let bad = where_i32(&finite, zero, safe_increment(&bad)?)?;
            let over = jnp(interp, "greater", vec![bad.clone(), max.clone()])?;
            let pred = jnp(interp, "logical_or", vec![finite.clone(), over])?;
            let inner_state = field(st, "inner_state")?;
            let zeros = tree(interp, "zeros_like", vec![u.clone()], vec![])?;
            let rejected = Obj::tuple(vec![zeros, inner_state.clone()]);
            let (u, s) = cond_update(interp, pred, &inner2, (u, &inner_state, p), extra, rejected)?;
            let total = count_of(st, "total_notfinite")?;
            let total = where_i32(&finite, total.clone(), safe_increment(&total)?)?;
            Ok((u, finite_state(bad, finite, total, s)))
        },
    ))
}

fn finite_state(bad: Obj, last: Obj, total: Obj, inner: Obj) -> Obj {
    state(
        "ApplyIfFiniteState",
        vec![
            ("notfinite_count", bad),
            ("last_finite", last),
            ("total_notfinite", total),
            ("inner_state", inner),
        ],
    )
}

/// `conditionally_transform(inner, should_transform_fn,
/// forward_extra_args=False)` or, with `mask`, `conditionally_mask`: the
/// inner update on the steps `should_transform_fn(step)` chooses; on the
/// others the updates pass unchanged (or as zeros for `mask`).
fn conditionally(a: &Args, mask: bool) -> Result<Obj> {
    let f = match mask {
        true => "conditionally_mask",
        false => "conditionally_transform",
    };
    let inner = a.req(Some(0), "inner", f)?;
    let should = a.req(Some(1), "should_transform_fn", f)?;
    let forward = super::base::flag(a, Some(2), "forward_extra_args", false)?;
    let inner2 = inner.clone();
    Ok(transformation(
        move |interp, p| {
            let inner_state = call_init(interp, &inner, p)?;
            Ok(conditional_state(mask, zero_count(), inner_state))
        },
        move |interp, u, st, p, extra| {
            let step = field(st, "step")?;
            let kw = if forward { extra.to_vec() } else { vec![] };
            let pred = interp.call(&should, Args::with(vec![step.clone()], kw))?;
            let inner_state = field(st, "inner_state")?;
            let passed = match mask {
                true => tree(interp, "zeros_like", vec![u.clone()], vec![])?,
                false => u.clone(),
            };
            let rejected = Obj::tuple(vec![passed, inner_state.clone()]);
            let (u, s) = cond_update(interp, pred, &inner2, (u, &inner_state, p), extra, rejected)?;
            let next = safe_increment(&crate::python::array::to_value(&step)?)?;
            Ok((u, conditional_state(mask, Obj::Array(next), s)))
        },
    ))
}

fn conditional_state(mask: bool, step: Obj, inner: Obj) -> Obj {
    match mask {
        true => state(
            "ConditionallyMaskState",
            vec![("step", step), ("inner_state", inner)],
        ),
        false => state(
            "ConditionallyTransformState",
            vec![("inner_state", inner), ("step", step)],
        ),
    }
}

/// `apply_every(k=1)`: the updates summed over `k` steps, emitted on the
/// last of them (zeros before).
fn apply_every(a: &Args) -> Result<Obj> {
    let k2 = a.opt(Some(0), "k").unwrap_or(Obj::Int(1));
    Ok(transformation(
        |interp, p| {
            let acc = tree(interp, "zeros_like", vec![p.clone()], vec![])?;
            Ok(every_state(zero_count(), acc))
        },
        move |interp, u, st, _, _| {
            let count = field(st, "count")?;
            let c = jnp(interp, "remainder", vec![count.clone(), k2.clone()])?;
            let acc = jnp(interp, "not_equal", vec![c.clone(), Obj::Int(0)])?;
            let last = super::compose::sub(interp, &k2, &Obj::Int(1))?;
            let emit = jnp(interp, "equal", vec![c, last])?;
            let (gs, def) = crate::python::pytree::flatten(interp, u)?;
            let (accs, _) = crate::python::pytree::flatten(interp, &field(st, "grad_acc")?)?;
            let (mut sums, mut outs) = (vec![], vec![]);
            for (g, ga) in gs.iter().zip(&accs) {
                let kept = super::compose::mul(interp, &acc, ga)?;
                let s = super::compose::add(interp, &kept, g)?;
                outs.push(super::compose::mul(interp, &emit, &s)?);
                sums.push(s);
            }
            let sums = crate::python::pytree::unflatten(interp, &def, &sums)?;
            let outs = crate::python::pytree::unflatten(interp, &def, &outs)?;
            let next = safe_increment(&crate::python::array::to_value(&count)?)?;
            let next = jnp(interp, "remainder", vec![Obj::Array(next), k2.clone()])?;
            Ok((outs, every_state(next, sums)))
        },
    ))
}

fn every_state(count: Obj, acc: Obj) -> Obj {
    state("ApplyEvery", vec![("count", count), ("grad_acc", acc)])
}

/// `skip_not_finite(updates, gradient_step, params)`: whether to skip a
/// step whose updates hold a NaN or infinity, with how many there are.
fn skip_not_finite(interp: &mut Interp, a: Args) -> Result<Obj> {
    let u = a.req(Some(0), "updates", "skip_not_finite")?;
    let (leaves, _) = leaves_of(interp, &u)?;
    let mut counts = vec![];
    for x in leaves {
        let fin = jnp(interp, "isfinite", vec![Obj::Array(x)])?;
        let not = jnp(interp, "logical_not", vec![fin])?;
        counts.push(jnp(interp, "sum", vec![not])?);
    }
    let counts = jnp(interp, "array", vec![Obj::list(counts)])?;
    let n = jnp(interp, "sum", vec![counts])?;
    let skip = jnp(interp, "greater", vec![n.clone(), Obj::Int(0)])?;
    Ok(skip_result(skip, "num_not_finite", n))
}

/// `skip_large_updates(updates, gradient_step, params, max_squared_norm)`:
/// whether to skip a step whose updates' squared norm is not below the
/// bound, with that norm.
fn skip_large_updates(interp: &mut Interp, a: Args) -> Result<Obj> {
    let f = "skip_large_updates";
    let u = a.req(Some(0), "updates", f)?;
    let max = a.req(Some(3), "max_squared_norm", f)?;
    let (leaves, _) = leaves_of(interp, &u)?;
    let mut sums = vec![];
    for x in leaves {
        let sq = jnp(interp, "power", vec![Obj::Array(x), Obj::Int(2)])?;
        sums.push(jnp(interp, "sum", vec![sq])?);
    }
    let sums = jnp(interp, "array", vec![Obj::list(sums)])?;
    let n = jnp(interp, "sum", vec![sums])?;
    let below = jnp(interp, "less", vec![n.clone(), max])?;
    let skip = jnp(interp, "logical_not", vec![below])?;
    Ok(skip_result(skip, "norm_squared", n))
}

fn skip_result(skip: Obj, name: &str, n: Obj) -> Obj {
    let mut d = crate::python::value::Dict::default();
    d.set(Obj::str("should_skip"), skip.clone());
    d.set(Obj::str(name), n);
    let d = Obj::Dict(std::rc::Rc::new(std::cell::RefCell::new(d)));
    Obj::tuple(vec![skip, d])
}

/// `periodic_update(new_tensors, old_tensors, steps, update_period)`: the
/// new tensors on the steps that are multiples of the period, else the old.
fn periodic_update(interp: &mut Interp, a: Args) -> Result<Obj> {
    let f = "periodic_update";
    let new = a.req(Some(0), "new_tensors", f)?;
    let old = a.req(Some(1), "old_tensors", f)?;
    let steps = a.req(Some(2), "steps", f)?;
    let period = a.req(Some(3), "update_period", f)?;
    let m = jnp(interp, "mod", vec![steps, period])?;
    let due = jnp(interp, "equal", vec![m, Obj::Int(0)])?;
    let take_new = Obj::native("new", move |_, _| Ok(new.clone()));
    let keep_old = Obj::native("old", move |_, _| Ok(old.clone()));
    let none = Obj::None;
    call(
        interp,
        "jax.lax",
        "cond",
        vec![due, take_new, keep_old, none],
        vec![],
    )
}

/// Registers the transformations on `optax`.
pub(super) fn register(b: &mut Builder) {
    b.func("apply_if_finite", |_, a| apply_if_finite(&a));
    b.func("conditionally_transform", |_, a| conditionally(&a, false));
    b.func("conditionally_mask", |_, a| conditionally(&a, true));
    b.func("apply_every", |_, a| apply_every(&a));
    b.func("skip_not_finite", skip_not_finite);
    b.func("skip_large_updates", skip_large_updates);
    b.func("periodic_update", periodic_update);
}
