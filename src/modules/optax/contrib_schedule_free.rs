//! `optax.contrib.schedule_free` and its `_sgd`/`_adamw` forms, with
//! `schedule_free_eval_params`.
//!
//! Schedule-free keeps two sequences, `z` (the base optimizer's iterates)
//! and the averaged `x`, and hands the program their interpolation `y`.
//! Optax writes each step as `jnp` arithmetic on Python scalars and arrays,
//! so the steps here go through the interpreter's operators and `jnp`
//! functions: weak types and promotion are then those of optax's code.

use rustpython_parser::ast::Operator;

use crate::bail;
use crate::error::Result;
use crate::python::array::to_value;
use crate::python::interp::Interp;
use crate::python::ops::{binop, getattr};
use crate::python::value::{Args, Obj};

use super::super::Builder;
use super::base::{
    call_init, call_update, field, is_callable, safe_increment, state, transformation,
};
use super::compose::{call, jnp, jnp_kw};
use super::tree::map_objs;

fn op(interp: &mut Interp, o: Operator, a: &Obj, b: &Obj) -> Result<Obj> {
    binop(interp, &o, a, b, false)
}

/// `(y - (1 - b1) * z) / b1`: the averaged iterate behind `y`.
fn x_of(interp: &mut Interp, b1: &Obj, y: &Obj, z: &Obj) -> Result<Obj> {
    let rest = op(interp, Operator::Sub, &Obj::Float(1.0), b1)?;
    let rz = op(interp, Operator::Mult, &rest, z)?;
    let d = op(interp, Operator::Sub, y, &rz)?;
    op(interp, Operator::Div, &d, b1)
}

/// `a * l + (1 - a) * r`.
fn mix(interp: &mut Interp, a: &Obj, l: &Obj, r: &Obj) -> Result<Obj> {
    let rest = op(interp, Operator::Sub, &Obj::Float(1.0), a)?;
    let al = op(interp, Operator::Mult, a, l)?;
    let rr = op(interp, Operator::Mult, &rest, r)?;
    op(interp, Operator::Add, &al, &rr)
}

fn eval_params(interp: &mut Interp, a: Args) -> Result<Obj> {
    let st = a.req(Some(0), "state", "schedule_free_eval_params")?;
    let params = a.req(Some(1), "params", "schedule_free_eval_params")?;
    let b1 = getattr(interp, &st, "b1")?;
    let z = getattr(interp, &st, "z")?;
    let (b1, z) = match (b1, z) {
        (Obj::None, _) | (_, Obj::None) => bail!(
            ValueError,
            "schedule_free_eval_params requires a ScheduleFreeState as input."
        ),
        found => found,
    };
    map_objs(interp, &[&params, &z], |i, l| x_of(i, &b1, &l[0], &l[1]))
}

/// `jnp.<name>([], dtype=dtype)`-like scalars of the state.
fn scalar(interp: &mut Interp, name: &str, dtype: &Obj) -> Result<Obj> {
    jnp_kw(
        interp,
        name,
        vec![Obj::list(vec![])],
        vec![("dtype", dtype.clone())],
    )
}

fn init(interp: &mut Interp, h: &Hypers, params: &Obj) -> Result<Obj> {
    let lowest = Obj::str("lowest");
    let dtype = call(
        interp,
        "optax.tree",
        "dtype",
        vec![params.clone(), lowest],
        vec![],
    )?;
    let z = match &h.state_dtype {
        Some(d) => call(
            interp,
            "optax.tree",
            "cast",
            vec![params.clone(), d.clone()],
            vec![],
        )?,
        None => params.clone(),
    };
    let z = map_objs(interp, &[&z], |i, l| {
        let copy = getattr(i, &l[0], "copy")?;
        i.call(&copy, Args::default())
    })?;
    let b1 = jnp_kw(
        interp,
        "asarray",
        vec![h.b1.clone()],
        vec![("dtype", dtype.clone())],
    )?;
    let weight_sum = scalar(interp, "zeros", &dtype)?;
    let jnp_module = super::super::import(interp, "jax.numpy")?;
    let int32 = getattr(interp, &jnp_module, "int32")?;
    let step_count = scalar(interp, "ones", &int32)?;
    let max_lr = scalar(interp, "zeros", &dtype)?;
    let base = call_init(interp, &h.base, params)?;
    Ok(free_state(b1, weight_sum, step_count, max_lr, base, z))
}

fn free_state(b1: Obj, ws: Obj, count: Obj, max_lr: Obj, base: Obj, z: Obj) -> Obj {
    state(
        "ScheduleFreeState",
        vec![
            ("b1", b1),
            ("weight_sum", ws),
            ("step_count", count),
            ("max_lr", max_lr),
            ("base_optimizer_state", base),
            ("z", z),
        ],
    )
}

/// `weight / total`, NaN when either is NaN, and 0 for `0 / 0`.
fn interpolation_weight(interp: &mut Interp, weight: &Obj, total: &Obj) -> Result<Obj> {
    let nan_w = jnp(interp, "isnan", vec![weight.clone()])?;
    let nan_t = jnp(interp, "isnan", vec![total.clone()])?;
    let either = jnp(interp, "logical_or", vec![nan_w, nan_t])?;
    let shape = getattr(interp, weight, "shape")?;
    let nans = jnp(interp, "full", vec![shape, Obj::Float(f64::NAN)])?;
    let ratio = op(interp, Operator::Div, weight, total)?;
    let kw = vec![
        ("nan", Obj::Float(0.0)),
        ("posinf", Obj::Float(f64::INFINITY)),
    ];
    let ratio = jnp_kw(interp, "nan_to_num", vec![ratio], kw)?;
    jnp(interp, "where", vec![either, nans, ratio])
}

fn update(
    interp: &mut Interp,
    h: &Hypers,
    grads: &Obj,
    st: &Obj,
    params: &Obj,
    extra: &[(String, Obj)],
) -> Result<(Obj, Obj)> {
    let max_lr = field(st, "max_lr")?;
    let count = field(st, "step_count")?;
    let lr = if is_callable(&h.learning_rate) {
        let v = interp.call(&h.learning_rate, Args::new(vec![count.clone()]))?;
        let dt = getattr(interp, &max_lr, "dtype")?;
        jnp_kw(interp, "asarray", vec![v], vec![("dtype", dt)])?
    } else {
        h.learning_rate.clone()
    };
    let max_lr = jnp(interp, "maximum", vec![max_lr, lr])?;
    let next_count = Obj::Array(safe_increment(&to_value(&count)?)?);
    let weight = op(interp, Operator::Pow, &max_lr, &h.weight_lr_power)?;
    let total = op(interp, Operator::Add, &field(st, "weight_sum")?, &weight)?;
    let ck = interpolation_weight(interp, &weight, &total)?;
    let base_st = field(st, "base_optimizer_state")?;
    let (base_u, base_st) = call_update(interp, &h.base, grads, &base_st, Some(params), extra)?;
    let old_z = field(st, "z")?;
    let z = map_objs(interp, &[&old_z, &base_u], |i, l| {
        let s = op(i, Operator::Add, &l[0], &l[1])?;
        let s = jnp(i, "asarray", vec![s])?;
        let own = jnp(i, "asarray", vec![l[0].clone()])?;
        let dt = getattr(i, &own, "dtype")?;
        let astype = getattr(i, &s, "astype")?;
        i.call(&astype, Args::new(vec![dt]))
    })?;
    let prev_x = map_objs(interp, &[params, &old_z], |i, l| {
        x_of(i, &h.b1, &l[0], &l[1])
    })?;
    let x = map_objs(interp, &[&prev_x, &z], |i, l| {
        // (1 - ck) * x + ck * z, in optax's order of terms.
        let rest = op(i, Operator::Sub, &Obj::Float(1.0), &ck)?;
        let a = op(i, Operator::Mult, &rest, &l[0])?;
        let b = op(i, Operator::Mult, &ck, &l[1])?;
        op(i, Operator::Add, &a, &b)
    })?;
    let new_params = map_objs(interp, &[&x, &z], |i, l| mix(i, &h.b1, &l[0], &l[1]))?;
    let updates = map_objs(interp, &[&new_params, params], |i, l| {
        op(i, Operator::Sub, &l[0], &l[1])
    })?;
    let next = free_state(field(st, "b1")?, total, next_count, max_lr, base_st, z);
    Ok((updates, next))
}

/// The arguments of `schedule_free`.
#[derive(Clone)]
struct Hypers {
    base: Obj,
    learning_rate: Obj,
    b1: Obj,
    weight_lr_power: Obj,
    state_dtype: Option<Obj>,
}

fn schedule_free(h: Hypers) -> Obj {
    let h2 = h.clone();
    transformation(
        move |interp, p| init(interp, &h, p),
        move |interp, u, st, p, extra| {
            let Some(p) = p else {
                bail!(
                    TypeError,
                    "unsupported operand type(s) for -: 'NoneType' and 'float'"
                );
            };
            update(interp, &h2, u, st, p, extra)
        },
    )
}

/// The learning rate, warmed up from 0 over `warmup_steps` when given.
fn warmed_up(interp: &mut Interp, a: &Args, lr: Obj) -> Result<Obj> {
    match a.opt(Some(1), "warmup_steps") {
        None => Ok(lr),
        Some(steps) => call(
            interp,
            "optax",
            "warmup_constant_schedule",
            vec![],
            vec![
                ("init_value", Obj::Int(0)),
                ("peak_value", lr),
                ("warmup_steps", steps),
            ],
        ),
    }
}

fn num_or(a: &Args, i: usize, name: &str, default: f64) -> Obj {
    a.opt(Some(i), name).unwrap_or(Obj::Float(default))
}

/// The arguments `b1`, `weight_lr_power` and `state_dtype`, at the
/// positions `at` of the function they are given to.
fn hypers(a: &Args, base: Obj, learning_rate: Obj, at: [usize; 3]) -> Hypers {
    Hypers {
        base,
        learning_rate,
        b1: num_or(a, at[0], "b1", 0.9),
        weight_lr_power: num_or(a, at[1], "weight_lr_power", 2.0),
        state_dtype: a.opt(Some(at[2]), "state_dtype"),
    }
}

fn schedule_free_sgd(interp: &mut Interp, a: Args) -> Result<Obj> {
    let lr = num_or(&a, 0, "learning_rate", 1.0);
    let lr = warmed_up(interp, &a, lr)?;
    let mut base = call(interp, "optax", "sgd", vec![lr.clone()], vec![])?;
    if let Some(wd) = a.opt(Some(3), "weight_decay") {
        let decay = call(interp, "optax", "add_decayed_weights", vec![wd], vec![])?;
        base = call(interp, "optax", "chain", vec![decay, base], vec![])?;
    }
    Ok(schedule_free(hypers(&a, base, lr, [2, 4, 5])))
}

fn schedule_free_adamw(interp: &mut Interp, a: Args) -> Result<Obj> {
    let lr = num_or(&a, 0, "learning_rate", 0.0025);
    let lr = warmed_up(interp, &a, lr)?;
    let rms = call(
        interp,
        "optax",
        "scale_by_rms",
        vec![],
        vec![
            ("decay", num_or(&a, 3, "b2", 0.999)),
            ("eps", num_or(&a, 4, "eps", 1e-8)),
            ("eps_in_sqrt", Obj::Bool(false)),
            ("bias_correction", Obj::Bool(true)),
        ],
    )?;
    let wd = num_or(&a, 5, "weight_decay", 0.0);
    let decay = call(interp, "optax", "add_decayed_weights", vec![wd], vec![])?;
    let scale = call(
        interp,
        "optax",
        "scale_by_learning_rate",
        vec![lr.clone()],
        vec![],
    )?;
    let base = call(interp, "optax", "chain", vec![rms, decay, scale], vec![])?;
    Ok(schedule_free(hypers(&a, base, lr, [2, 6, 7])))
}

fn schedule_free_fn(_: &mut Interp, a: Args) -> Result<Obj> {
    let f = "schedule_free";
    let base = a.req(Some(0), "base_optimizer", f)?;
    let lr = a.req(Some(1), "learning_rate", f)?;
    Ok(schedule_free(hypers(&a, base, lr, [2, 3, 4])))
}

/// Registers the functions in `optax.contrib`.
pub(super) fn register(b: &mut Builder) {
    b.func("schedule_free", schedule_free_fn);
    b.func("schedule_free_sgd", schedule_free_sgd);
    b.func("schedule_free_adamw", schedule_free_adamw);
    b.func("schedule_free_eval_params", eval_params);
}
