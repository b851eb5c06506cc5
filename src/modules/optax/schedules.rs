//! The schedules: callables from a step count to a value (a learning rate,
//! a clipping norm), as optax 0.2.8 defines them.
//!
//! The count may be a Python int or an int32 array (traced under `jit`);
//! the arithmetic is float32 in optax's order, with Python-number
//! constants combined in double precision first where optax does so.

use std::rc::Rc;

use crate::array::{DType, UnaryOp};
use crate::error::Result;
use crate::python::array::to_value;
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};
use crate::trace::Value;
use crate::{bail, ops as jops};

use super::super::Builder;
use super::base::{schedule_at, Hyper};

/// A Python-number constant: weakly typed, as in optax's arithmetic, so
/// that a schedule of a Python-int count is weakly typed when JAX's is.
fn c(v: f64) -> Value {
    crate::python::array::weak_scalar(v, DType::F32)
}

/// A hyperparameter's value, weakly typed when it is a Python number.
fn hv(h: &Hyper) -> Value {
    match h {
        Hyper::Num(v) => c(*v),
        Hyper::Arr(v) => v.clone(),
    }
}

/// A constant of optax's own arrays (`jnp.stack` of the values), strongly
/// typed.
fn strong(v: f64) -> Value {
    jops::scalar(v, DType::F32)
}

fn f32(v: &Value) -> Result<Value> {
    jops::convert(v, DType::F32)
}

/// A schedule object computing on the count as an array.
pub(super) fn schedule(f: impl Fn(&mut Interp, &Value) -> Result<Value> + 'static) -> Obj {
    Obj::native("schedule", move |interp, a| {
        let count = to_value(&a.req(Some(0), "count", "schedule")?)?;
        Ok(Obj::Array(f(interp, &count)?))
    })
}

/// A schedule that always returns `value` itself (optax's
/// `lambda count: value`).
fn constant(value: Obj) -> Obj {
    Obj::native("schedule", move |_, _| Ok(value.clone()))
}

/// An integer argument.
pub(super) fn int_arg(
    a: &Args,
    index: Option<usize>,
    name: &str,
    default: Option<i64>,
    func: &str,
) -> Result<i64> {
    match a.opt(index, name) {
        Some(Obj::Int(i)) => Ok(i),
        Some(o) => match o.as_number() {
            Some(v) => Ok(v as i64),
            None => bail!(TypeError, "{func}: {name} must be an integer"),
        },
        None => default.ok_or_else(|| {
            crate::err!(
                TypeError,
                "{func}() missing 1 required positional argument: '{name}'"
            )
        }),
    }
}

/// `polynomial_schedule`: from `init` to `end` over `steps` steps after
/// `begin`, along `frac**power`.
fn polynomial(init: Hyper, end: Hyper, power: Obj, steps: i64, begin: i64) -> Obj {
    schedule(move |_, count| {
        let shifted = jops::sub(
            count,
            &crate::python::array::weak_scalar(begin as f64, count.dtype()),
        )?;
        let lo = crate::python::array::weak_scalar(0.0, count.dtype());
        let hi = crate::python::array::weak_scalar(steps as f64, count.dtype());
        let clipped = jops::minimum(&jops::maximum(&shifted, &lo)?, &hi)?;
        let frac = jops::sub(&c(1.0), &jops::div(&f32(&clipped)?, &c(steps as f64))?)?;
        let powered = match &power {
            Obj::Int(n) => jops::integer_pow(&frac, *n as i32)?,
            other => jops::pow(&frac, &f32(&to_value(other)?)?)?,
        };
        let span = match (&init, &end) {
            (Hyper::Num(a), Hyper::Num(b)) => c(a - b),
            _ => jops::sub(&hv(&init), &hv(&end))?,
        };
        jops::add(&jops::mul(&span, &powered)?, &hv(&end))
    })
}

fn polynomial_args(a: &Args, power: Option<Obj>, func: &str) -> Result<Obj> {
    let init_obj = a.req(Some(0), "init_value", func)?;
    let init = Hyper::from_obj(&init_obj, "init_value", func)?;
    let end = Hyper::arg(a, Some(1), "end_value", None, func)?;
    let (power, at) = match power {
        Some(p) => (p, 2),
        None => (a.req(Some(2), "power", func)?, 3),
    };
    let steps = int_arg(a, Some(at), "transition_steps", None, func)?;
    let begin = int_arg(a, Some(at + 1), "transition_begin", Some(0), func)?.max(0);
    if steps <= 0 {
        return Ok(constant(init_obj));
    }
    Ok(polynomial(init, end, power, steps, begin))
}

/// `piecewise_constant_schedule`: `init` scaled by each boundary's factor
/// once the count reaches it.
fn piecewise_constant(a: &Args) -> Result<Obj> {
    let f = "piecewise_constant_schedule";
    let init = Hyper::arg(a, Some(0), "init_value", None, f)?;
    let mut bounds: Vec<(i64, f64)> = vec![];
    if let Some(Obj::Dict(d)) = a.opt(Some(1), "boundaries_and_scales") {
        for (k, v) in &d.borrow().items {
            let (Some(k), Some(v)) = (k.as_number(), v.as_number()) else {
                bail!(
                    NotImplementedError,
                    "not supported by shardlab yet: optax.{f} with array boundaries"
                );
            };
            if v < 0.0 {
                bail!(
                    ValueError,
                    "`piecewise_constant_schedule` expects non-negative scale factors"
                );
            }
            bounds.push((k as i64, v));
        }
    }
    bounds.sort_by_key(|b| b.0);
    Ok(schedule(move |_, count| {
        let mut v = hv(&init);
        for (threshold, scale) in &bounds {
            let diff = jops::sub(
                &crate::python::array::weak_scalar(*threshold as f64, count.dtype()),
                count,
            )?;
            let ind = jops::maximum(&c(0.0), &jops::sign(&diff)?)?;
            let kept = jops::mul(&v, &ind)?;
            let scaled = jops::mul(&jops::mul(&jops::sub(&c(1.0), &ind)?, &c(*scale))?, &v)?;
            v = jops::add(&kept, &scaled)?;
        }
        Ok(v)
    }))
}

/// `exponential_decay`: `init * rate**((count - begin) / steps)`, floored
/// with `staircase`, bounded by `end_value`.
fn exponential_decay(a: &Args, first: usize, func: &str) -> Result<Obj> {
    let init_obj = a.req(Some(first), "init_value", func)?;
    let init = Hyper::from_obj(&init_obj, "init_value", func)?;
    let steps = int_arg(a, Some(first + 1), "transition_steps", None, func)?;
    let rate = Hyper::arg(a, Some(first + 2), "decay_rate", None, func)?;
    let begin = int_arg(a, Some(first + 3), "transition_begin", Some(0), func)?.max(0);
    let staircase = super::base::flag(a, Some(first + 4), "staircase", false)?;
    let end = match a.opt(Some(first + 5), "end_value") {
        Some(o) => Some(Hyper::from_obj(&o, "end_value", func)?),
        None => None,
    };
    if steps <= 0 || rate.num() == Some(0.0) {
        return Ok(constant(init_obj));
    }
    let shrinking = rate.num().is_some_and(|r| r < 1.0);
    Ok(schedule(move |_, count| {
        let dec = jops::sub(
            count,
            &crate::python::array::weak_scalar(begin as f64, count.dtype()),
        )?;
        let mut p = jops::div(&f32(&dec)?, &c(steps as f64))?;
        if staircase {
            p = jops::unary(UnaryOp::Floor, &p)?;
        }
        let decayed = jops::mul(&hv(&init), &jops::pow(&hv(&rate), &p)?)?;
        let started = jops::less_equal(&dec, &crate::python::array::weak_scalar(0.0, dec.dtype()))?;
        let v = jops::select(
            &started,
            &jops::broadcast_to(&hv(&init), &decayed.shape())?,
            &decayed,
        )?;
        Ok(match &end {
            Some(e) if shrinking => jops::maximum(&v, &hv(e))?,
            Some(e) => jops::minimum(&v, &hv(e))?,
            None => v,
        })
    }))
}

/// `cosine_decay_schedule`: `init * ((1 - alpha) * cos_decay**exponent +
/// alpha)` over `decay_steps`.
fn cosine_decay(init: Hyper, steps: i64, alpha: f64, exponent: f64) -> Result<Obj> {
    if steps <= 0 {
        bail!(
            ValueError,
            "The cosine_decay_schedule requires positive decay_steps, got decay_steps={steps}."
        );
    }
    Ok(schedule(move |_, count| {
        // An int32 count meets a Python float: a weakly typed float32, as
        // in JAX's promotion.
        let n = jops::minimum(count, &c(steps as f64))?;
        let angle = jops::div(&jops::mul(&c(std::f64::consts::PI), &n)?, &c(steps as f64))?;
        let cosine = jops::mul(&c(0.5), &jops::add(&c(1.0), &jops::cos(&angle)?)?)?;
        let powered = jops::pow(&cosine, &c(exponent))?;
        let decayed = jops::add(&jops::mul(&c(1.0 - alpha), &powered)?, &c(alpha))?;
        jops::mul(&hv(&init), &decayed)
    }))
}

/// `join_schedules(schedules, boundaries)`: each schedule from its
/// boundary on, called with the steps since that boundary.
pub(super) fn join(schedules: Vec<Obj>, boundaries: Vec<i64>) -> Obj {
    let schedules = Rc::new(schedules);
    schedule(move |interp, count| {
        let mut out = schedule_at(interp, &schedules[0], count)?;
        for (b, s) in boundaries.iter().zip(&schedules[1..]) {
            let bv = crate::python::array::weak_scalar(*b as f64, count.dtype());
            let next = schedule_at(interp, s, &jops::sub(count, &bv)?)?;
            let before = jops::less(count, &bv)?;
            let dtype = out.dtype().promote(next.dtype());
            out = jops::select(
                &before,
                &jops::convert(&out, dtype)?,
                &jops::convert(&next, dtype)?,
            )?;
        }
        Ok(out)
    })
}

fn ints(o: &Obj) -> Result<Vec<i64>> {
    crate::python::ops::iterate(o)?
        .iter()
        .map(|x| match x.as_number() {
            Some(v) => Ok(v as i64),
            None => bail!(TypeError, "schedule boundaries must be integers"),
        })
        .collect()
}

pub(super) fn warmup_cosine(a: &Args) -> Result<Obj> {
    let f = "warmup_cosine_decay_schedule";
    let init = Hyper::arg(a, Some(0), "init_value", None, f)?;
    let peak = Hyper::arg(a, Some(1), "peak_value", None, f)?;
    let warmup = int_arg(a, Some(2), "warmup_steps", None, f)?;
    let decay = int_arg(a, Some(3), "decay_steps", None, f)?;
    let end = Hyper::arg(a, Some(4), "end_value", Some(0.0), f)?;
    let exponent = Hyper::arg(a, Some(5), "exponent", Some(1.0), f)?;
    let (Some(p), Some(e), Some(x)) = (peak.num(), end.num(), exponent.num()) else {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: optax.{f} with array values"
        );
    };
    let alpha = if p == 0.0 { 0.0 } else { e / p };
    let warm = polynomial(init, peak.clone(), Obj::Int(1), warmup.max(1), 0);
    let warm = if warmup <= 0 {
        constant(Obj::Float(p))
    } else {
        warm
    };
    let cos = cosine_decay(peak, decay - warmup, alpha, x)?;
    Ok(join(vec![warm, cos], vec![warmup]))
}

fn warmup_exponential(a: &Args) -> Result<Obj> {
    let f = "warmup_exponential_decay_schedule";
    let init_obj = a.req(Some(0), "init_value", f)?;
    let init = Hyper::from_obj(&init_obj, "init_value", f)?;
    let peak_obj = a.req(Some(1), "peak_value", f)?;
    let peak = Hyper::from_obj(&peak_obj, "peak_value", f)?;
    let warmup = int_arg(a, Some(2), "warmup_steps", None, f)?;
    let warm = if warmup <= 0 {
        constant(init_obj)
    } else {
        polynomial(init, peak, Obj::Int(1), warmup, 0)
    };
    let mut kw: Vec<(String, Obj)> =
        a.kw.iter()
            .filter(|(k, _)| k != "init_value" && k != "peak_value" && k != "warmup_steps")
            .cloned()
            .collect();
    kw.push(("init_value".into(), peak_obj));
    let decay_args = Args::with(a.pos.iter().skip(3).cloned().collect(), kw);
    let decay = exponential_decay_kw(&decay_args)?;
    Ok(join(vec![warm, decay], vec![warmup]))
}

/// `exponential_decay` with `init_value` by keyword and the other
/// parameters from `transition_steps` on.
fn exponential_decay_kw(a: &Args) -> Result<Obj> {
    let mut named = Args::with(vec![], a.kw.clone());
    let names = [
        "transition_steps",
        "decay_rate",
        "transition_begin",
        "staircase",
        "end_value",
    ];
    for (n, v) in names.iter().zip(&a.pos) {
        named.kw.push((n.to_string(), v.clone()));
    }
    exponential_decay(&named, 0, "warmup_exponential_decay_schedule")
}

/// `cosine_onecycle_schedule`: up from `peak / div_factor` to the peak
/// over the first `pct_start` of the steps, then down to
/// `peak / (div_factor * final_div_factor)`, both along half cosines.
fn cosine_onecycle(a: &Args) -> Result<Obj> {
    let f = "cosine_onecycle_schedule";
    let steps = int_arg(a, Some(0), "transition_steps", None, f)?;
    let num = |i, n, d| Hyper::arg(a, Some(i), n, d, f).map(|h| h.num());
    let (Some(peak), Some(pct), Some(div), Some(fin)) = (
        num(1, "peak_value", None)?,
        num(2, "pct_start", Some(0.3))?,
        num(3, "div_factor", Some(25.0))?,
        num(4, "final_div_factor", Some(1e4))?,
    ) else {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: optax.{f} with array values"
        );
    };
    if steps <= 0 {
        bail!(
            ValueError,
            "A linear onecycle schedule was set with a non-positive `transition_steps`"
        );
    }
    let mut bounds = [
        (0, peak / div),
        ((pct * steps as f64) as i64, div),
        (steps, 1.0 / (div * fin)),
    ];
    bounds.sort_by_key(|b| b.0);
    // The values are the running products of the scales, in float32.
    let mut values = vec![];
    let mut v = strong(bounds[0].1);
    for (i, (_, s)) in bounds.iter().enumerate() {
        if i > 0 {
            v = jops::mul(&v, &strong(*s))?;
        }
        values.push(v.clone());
    }
    let ends: Vec<i64> = bounds.iter().map(|b| b.0).collect();
    Ok(schedule(move |_, count| {
        let cf = f32(count)?;
        let mut total = strong(0.0);
        for i in 0..ends.len() - 1 {
            let (lo, hi) = (ends[i] as f64, ends[i + 1] as f64);
            let inside = jops::binary(
                crate::array::BinaryOp::And,
                &jops::less_equal(&strong(lo), &cf)?,
                &jops::less(&cf, &strong(hi))?,
            )?;
            let pct = jops::div(&jops::sub(&cf, &strong(lo))?, &strong((hi - lo).max(1.0)))?;
            let wave = jops::add(
                &jops::cos(&jops::mul(&strong(std::f64::consts::PI), &pct)?)?,
                &strong(1.0),
            )?;
            let half = jops::div(&jops::sub(&values[i], &values[i + 1])?, &strong(2.0))?;
            let val = jops::add(&values[i + 1], &jops::mul(&half, &wave)?)?;
            total = jops::add(&total, &jops::mul(&f32(&inside)?, &val)?)?;
        }
        let last = ends[ends.len() - 1] as f64;
        let after = f32(&jops::less_equal(&strong(last), &cf)?)?;
        jops::add(&total, &jops::mul(&after, &values[values.len() - 1])?)
    }))
}

/// `linear_schedule(init_value, end_value, transition_steps,
/// transition_begin)`.
pub(super) fn linear_args(a: &Args) -> Result<Obj> {
    polynomial_args(a, Some(Obj::Int(1)), "linear_schedule")
}

/// Registers the schedules on `b` (the `optax` module or
/// `optax.schedules`).
pub(super) fn register(b: &mut Builder) {
    super::schedules_more::register(b);
    b.func("constant_schedule", |_, a| {
        Ok(constant(a.req(Some(0), "value", "constant_schedule")?))
    });
    b.func("polynomial_schedule", |_, a| {
        polynomial_args(&a, None, "polynomial_schedule")
    });
    b.func("linear_schedule", |_, a| {
        polynomial_args(&a, Some(Obj::Int(1)), "linear_schedule")
    });
    b.func("piecewise_constant_schedule", |_, a| piecewise_constant(&a));
    b.func("exponential_decay", |_, a| {
        exponential_decay(&a, 0, "exponential_decay")
    });
    b.func("cosine_decay_schedule", |_, a| {
        let f = "cosine_decay_schedule";
        let init = Hyper::arg(&a, Some(0), "init_value", None, f)?;
        let steps = int_arg(&a, Some(1), "decay_steps", None, f)?;
        let alpha = Hyper::arg(&a, Some(2), "alpha", Some(0.0), f)?
            .num()
            .unwrap_or(0.0);
        let exponent = Hyper::arg(&a, Some(3), "exponent", Some(1.0), f)?
            .num()
            .unwrap_or(1.0);
        cosine_decay(init, steps, alpha, exponent)
    });
    b.func("warmup_cosine_decay_schedule", |_, a| warmup_cosine(&a));
    b.func("warmup_exponential_decay_schedule", |_, a| {
        warmup_exponential(&a)
    });
    b.func("cosine_onecycle_schedule", |_, a| cosine_onecycle(&a));
    b.func("join_schedules", |_, a| {
        let s = crate::python::ops::iterate(&a.req(Some(0), "schedules", "join_schedules")?)?;
        let bounds = ints(&a.req(Some(1), "boundaries", "join_schedules")?)?;
        Ok(join(s, bounds))
    });
}
