//! The interpolating schedules: `piecewise_interpolate_schedule` (linear
//! or cosine between boundaries), `linear_onecycle_schedule`,
//! `warmup_constant_schedule` and `sgdr_schedule`.

use crate::array::{BinaryOp, DType};
use crate::error::Result;
use crate::python::value::{Args, Obj};
use crate::trace::Value;
use crate::{bail, ops as jops};

use super::super::Builder;
use super::base::Hyper;
use super::schedules::{int_arg, join, schedule, warmup_cosine};

fn c(v: f64) -> Value {
    jops::scalar(v, DType::F32)
}

/// `start + (end - start) * pct` or the half-cosine between the two.
fn interpolate(cosine: bool, start: &Value, end: &Value, pct: &Value) -> Result<Value> {
    if !cosine {
        return jops::add(&jops::mul(&jops::sub(end, start)?, pct)?, start);
    }
    let half = jops::div(&jops::sub(start, end)?, &c(2.0))?;
    let wave = jops::add(
        &jops::cos(&jops::mul(&c(std::f64::consts::PI), pct)?)?,
        &c(1.0),
    )?;
    jops::add(end, &jops::mul(&half, &wave)?)
}

/// A schedule through the values `init * scale_1 * ... * scale_k` (running
/// products in float32, as `jnp.cumprod` gives them) at the sorted
/// boundaries, interpolated between them and constant after the last.
fn piecewise(cosine: bool, init: f64, mut bounds: Vec<(i64, f64)>) -> Result<Obj> {
    if bounds.iter().any(|b| b.1 < 0.0) {
        bail!(
            ValueError,
            "`piecewise_interpolate_schedule` expects non-negative scale factors"
        );
    }
    bounds.sort_by_key(|b| b.0);
    let mut ends = vec![0];
    let mut values = vec![c(init)];
    for (b, s) in &bounds {
        ends.push(*b);
        let last = values[values.len() - 1].clone();
        values.push(jops::mul(&last, &c(*s))?);
    }
    Ok(schedule(move |_, count| {
        check_scalar(count, ends.len() - 1)?;
        let cf = jops::convert(count, DType::F32)?;
        let mut total = c(0.0);
        for i in 0..ends.len() - 1 {
            let (lo, hi) = (ends[i] as f64, ends[i + 1] as f64);
            let inside = jops::binary(
                BinaryOp::And,
                &jops::less_equal(&c(lo), &cf)?,
                &jops::less(&cf, &c(hi))?,
            )?;
            let pct = jops::div(&jops::sub(&cf, &c(lo))?, &c((hi - lo).max(1.0)))?;
            let val = interpolate(cosine, &values[i], &values[i + 1], &pct)?;
            let term = jops::mul(&jops::convert(&inside, DType::F32)?, &val)?;
            total = if i == 0 {
                term
            } else {
                jops::add(&total, &term)?
            };
        }
        let last = ends[ends.len() - 1] as f64;
        let after = jops::convert(&jops::less_equal(&c(last), &cf)?, DType::F32)?;
        jops::add(&total, &jops::mul(&after, &values[values.len() - 1])?)
    }))
}

/// optax compares the count with the vector of interval starts, so a count
/// of another shape fails as JAX's broadcasting does.
fn check_scalar(count: &Value, intervals: usize) -> Result<()> {
    let shape = count.shape();
    if shape.is_empty() {
        return Ok(());
    }
    if shape != [intervals] && intervals != 1 {
        let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
        let tail = if dims.len() == 1 { "," } else { "" };
        bail!(
            TypeError,
            "le got incompatible shapes for broadcasting: ({intervals},), ({}{tail}).",
            dims.join(", ")
        );
    }
    bail!(
        NotImplementedError,
        "not supported by shardlab yet: optax.piecewise_interpolate_schedule of a count that is not a scalar"
    )
}

/// The `{boundary: scale}` dict of a piecewise schedule.
fn boundaries(o: Option<Obj>, f: &str) -> Result<Vec<(i64, f64)>> {
    let mut out = vec![];
    match o {
        None | Some(Obj::None) => {}
        Some(Obj::Dict(d)) => {
            for (k, v) in &d.borrow().items {
                let (Some(k), Some(v)) = (k.as_number(), v.as_number()) else {
                    bail!(
                        NotImplementedError,
                        "not supported by shardlab yet: optax.{f} with array boundaries"
                    );
                };
                out.push((k as i64, v));
            }
        }
        Some(other) => bail!(
            NotImplementedError,
            "not supported by shardlab yet: optax.{f} with boundaries_and_scales of type {}",
            other.type_name()
        ),
    }
    Ok(out)
}

fn number(a: &Args, i: usize, name: &str, default: Option<f64>, f: &str) -> Result<f64> {
    match Hyper::arg(a, Some(i), name, default, f)? {
        Hyper::Num(v) => Ok(v),
        Hyper::Arr(_) => bail!(
            NotImplementedError,
            "not supported by shardlab yet: optax.{f} with an array {name}"
        ),
    }
}

fn piecewise_interpolate(a: &Args) -> Result<Obj> {
    let f = "piecewise_interpolate_schedule";
    let kind = crate::python::format::str_of(&a.req(Some(0), "interpolate_type", f)?);
    let cosine = match kind.as_str() {
        "linear" => false,
        "cosine" => true,
        _ => bail!(
            ValueError,
            "`interpolate_type` must be either 'cosine' or 'linear'"
        ),
    };
    let init = number(a, 1, "init_value", None, f)?;
    piecewise(
        cosine,
        init,
        boundaries(a.opt(Some(2), "boundaries_and_scales"), f)?,
    )
}

fn linear_onecycle(a: &Args) -> Result<Obj> {
    let f = "linear_onecycle_schedule";
    let steps = int_arg(a, Some(0), "transition_steps", None, f)?;
    let peak = number(a, 1, "peak_value", None, f)?;
    let pct_start = number(a, 2, "pct_start", Some(0.3), f)?;
    let pct_final = number(a, 3, "pct_final", Some(0.85), f)?;
    let div = number(a, 4, "div_factor", Some(25.0), f)?;
    let fin = number(a, 5, "final_div_factor", Some(1e4), f)?;
    if steps <= 0 {
        bail!(
            ValueError,
            "A linear onecycle schedule was set with a non-positive `transition_steps`"
        );
    }
    // A dict: a later boundary equal to an earlier one replaces its scale.
    let mut bounds: Vec<(i64, f64)> = vec![];
    for (b, s) in [
        ((pct_start * steps as f64) as i64, div),
        ((pct_final * steps as f64) as i64, 1.0 / div),
        (steps, 1.0 / fin),
    ] {
        match bounds.iter_mut().find(|x| x.0 == b) {
            Some(x) => x.1 = s,
            None => bounds.push((b, s)),
        }
    }
    piecewise(false, peak / div, bounds)
}

/// `sgdr_schedule(cosine_kwargs)`: warmup-cosine cycles one after another.
fn sgdr(interp: &mut crate::python::interp::Interp, a: &Args) -> Result<Obj> {
    let f = "sgdr_schedule";
    let cycles = crate::python::ops::iterate(&a.req(Some(0), "cosine_kwargs", f)?)?;
    let (mut schedules, mut bounds, mut step) = (vec![], vec![], 0);
    for kw in &cycles {
        let Obj::Dict(d) = kw else {
            bail!(
                TypeError,
                "{f}: each element of cosine_kwargs must be a dict"
            );
        };
        let mut args = Args::new(vec![]);
        for (k, v) in &d.borrow().items {
            args.kw.push((crate::python::format::str_of(k), v.clone()));
        }
        let _ = interp;
        schedules.push(warmup_cosine(&args)?);
        step += int_arg(
            &args,
            None,
            "decay_steps",
            None,
            "warmup_cosine_decay_schedule",
        )?;
        bounds.push(step);
    }
    bounds.pop();
    Ok(join(schedules, bounds))
}

/// Registers the schedules on `b` (the `optax` module or
/// `optax.schedules`).
pub(super) fn register(b: &mut Builder) {
    b.func("piecewise_interpolate_schedule", |_, a| {
        piecewise_interpolate(&a)
    });
    b.func("linear_onecycle_schedule", |_, a| linear_onecycle(&a));
    b.func("warmup_constant_schedule", |_, a| {
        let f = "warmup_constant_schedule";
        let init = number(&a, 0, "init_value", None, f)?;
        let peak = number(&a, 1, "peak_value", None, f)?;
        let steps = int_arg(&a, Some(2), "warmup_steps", None, f)?;
        let mut args = Args::new(vec![Obj::Float(init), Obj::Float(peak)]);
        args.kw.push(("transition_steps".into(), Obj::Int(steps)));
        super::schedules::linear_args(&args)
    });
    b.func("sgdr_schedule", |interp, a| sgdr(interp, &a));
}
