//! `optax.scale_by_zoom_linesearch`: the zoom line search of Nocedal and
//! Wright (algorithms 3.5 and 3.6), with the approximate decrease criterion
//! of Hager and Zhang, as optax 0.2.8 runs it.
//!
//! The search is a `jax.lax.while_loop` whose body is a `jax.lax.cond`
//! between two phases: first the step size grows until an interval holding
//! an acceptable step is found, then the interval is zoomed into by cubic,
//! quadratic or bisection interpolation. Both are staged through the
//! interpreter's own `lax` functions, so the search runs eagerly at top
//! level and is recorded as `while`/`cond` equations under `jit` or inside
//! an enclosing loop, exactly as in optax. Every formula keeps optax's
//! float32 operation order so the iterates agree to float precision.
//!
//! The loop carry is a flat tuple: the scalars of [`Search`] in a fixed
//! order, then the leaves of the gradient at the current step, then those
//! of the gradient at the safe step. The parameters, the direction and the
//! initial value and slope are constants of the loop.

use std::rc::Rc;

use crate::array::{Array, BinaryOp, DType, UnaryOp};
use crate::error::Result;
use crate::python::array::to_value;
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};
use crate::trace::Value;
use crate::{bail, ops as jops};

use super::base::{field, flag, leaves_of, rebuild, state, transformation};
use super::lbfgs::vdot;

const INTERVAL_NOT_FOUND: &str = "No interval satisfying curvature condition. Consider increasing maximal possible stepsize of the linesearch.";
const INTERVAL_TOO_SMALL: &str = "Length of searched interval has been reduced below threshold.";
const CURVATURE_NOT_SATISFIED: &str =
    "Returning stepsize with sufficient decrease but curvature condition not satisfied.";
const NO_STEPSIZE_FOUND: &str =
    "Linesearch failed, no stepsize satisfying sufficient decrease found.";
const NOT_A_DESCENT_DIRECTION: &str =
    "The linesearch failed because the provided direction is not a descent direction. ";
const HEADER: &str = "INFO: optax.scale_by_zoom_linesearch:\nValue at current params: {value_init}\nSlope along update direction: {slope_init}\nStepsize reached: {stepsize}\nDecrease Error: {decrease_error}\nCurvature Error: {curvature_error}";

fn c(v: f64) -> Value {
    jops::scalar(v, DType::F32)
}

fn and(x: &Value, y: &Value) -> Result<Value> {
    jops::binary(BinaryOp::And, x, y)
}

fn or(x: &Value, y: &Value) -> Result<Value> {
    jops::binary(BinaryOp::Or, x, y)
}

fn not(x: &Value) -> Result<Value> {
    jops::unary(UnaryOp::Not, x)
}

fn isnan(x: &Value) -> Result<Value> {
    jops::not_equal(x, x)
}

fn isinf(x: &Value) -> Result<Value> {
    jops::equal(&jops::abs(x)?, &c(f64::INFINITY))
}

/// `jnp.where(cond, x, y)` leaf by leaf.
fn pick(cond: &Value, x: &[Value], y: &[Value]) -> Result<Vec<Value>> {
    x.iter()
        .zip(y)
        .map(|(a, b)| {
            let cnd = jops::broadcast_to(cond, &a.shape())?;
            jops::select(&cnd, a, b)
        })
        .collect()
}

/// The settings of `scale_by_zoom_linesearch`.
#[derive(Clone, Copy)]
struct Settings {
    max_steps: i64,
    max_stepsize: Option<f64>,
    tol: f64,
    increase: f64,
    slope_rtol: f64,
    curv_rtol: f64,
    approx_dec_rtol: Option<f64>,
    interval_threshold: f64,
    keep_guess: bool,
    verbose: bool,
}

/// What stays fixed during one search.
struct Line {
    s: Settings,
    params: Vec<Value>,
    updates: Vec<Value>,
    def: crate::python::pytree::TreeDef,
    guess: Value,
    value_init: Value,
    slope_init: Value,
    value_fn: Obj,
    fn_kwargs: Vec<(String, Obj)>,
}

/// The changing state of the search (optax's `ZoomLinesearchState` less
/// its fixed fields).
#[derive(Clone)]
struct Search {
    scalars: [Value; 20],
    grad: Vec<Value>,
    safe_grad: Vec<Value>,
}

/// The names of [`Search`]'s scalars, in carry order.
const SCALARS: [&str; 20] = [
    "count",
    "stepsize",
    "value",
    "slope",
    "decrease_error",
    "curvature_error",
    "error",
    "interval_found",
    "done",
    "failed",
    "low",
    "value_low",
    "slope_low",
    "high",
    "value_high",
    "slope_high",
    "cubic_ref",
    "value_cubic_ref",
    "safe_stepsize",
    "safe_value",
];

impl Search {
    fn get(&self, name: &str) -> &Value {
        let i = SCALARS.iter().position(|n| *n == name).unwrap_or(0);
        &self.scalars[i]
    }

    fn set(&mut self, name: &str, v: Value) {
        if let Some(i) = SCALARS.iter().position(|n| *n == name) {
            self.scalars[i] = v;
        }
    }

    fn to_obj(&self) -> Obj {
        let all = self
            .scalars
            .iter()
            .chain(&self.grad)
            .chain(&self.safe_grad)
            .map(|v| Obj::Array(v.clone()));
        Obj::tuple(all.collect())
    }

    fn from_obj(o: &Obj, leaves: usize) -> Result<Search> {
        let Obj::Tuple(t) = o else {
            bail!(TypeError, "zoom line search: the loop carry is not a tuple");
        };
        let vals: Vec<Value> = t.iter().map(to_value).collect::<Result<_>>()?;
        if vals.len() != SCALARS.len() + 2 * leaves {
            bail!(
                TypeError,
                "zoom line search: the loop carry has the wrong length"
            );
        }
        let scalars: [Value; 20] = std::array::from_fn(|i| vals[i].clone());
        Ok(Search {
            scalars,
            grad: vals[20..20 + leaves].to_vec(),
            safe_grad: vals[20 + leaves..].to_vec(),
        })
    }

    /// The carry with every value cast to the dtype it had in `like`, as
    /// optax's `tree.cast_like` keeps the loop's types fixed.
    fn cast_like(mut self, like: &Search) -> Result<Search> {
        for (v, l) in self.scalars.iter_mut().zip(&like.scalars) {
            *v = jops::astype(v, l.dtype())?;
        }
        Ok(self)
    }
}

/// The first search state: nothing tried yet, the step size at zero.
fn init_search(line: &Line, grad: &[Value]) -> Result<Search> {
    let (v, sl) = (&line.value_init, &line.slope_init);
    let f = c(0.0);
    let inf = c(f64::INFINITY);
    let no = Value::Concrete(Array::full(&[], 0.0, DType::Bool));
    let count = jops::scalar(0.0, DType::I32);
    let scalars = [
        count,
        f.clone(),
        jops::astype(v, DType::F32)?,
        sl.clone(),
        inf.clone(),
        inf.clone(),
        inf,
        no.clone(),
        no.clone(),
        no,
        f.clone(),
        v.clone(),
        sl.clone(),
        f.clone(),
        v.clone(),
        sl.clone(),
        f.clone(),
        v.clone(),
        f,
        v.clone(),
    ];
    Ok(Search {
        scalars,
        grad: grad.to_vec(),
        safe_grad: grad.to_vec(),
    })
}

impl Line {
    /// The value, gradient and slope of the objective at `params +
    /// stepsize * updates`.
    fn on_line(&self, interp: &mut Interp, stepsize: &Value) -> Result<(Value, Vec<Value>, Value)> {
        let step: Vec<Value> = self
            .params
            .iter()
            .zip(&self.updates)
            .map(|(p, u)| jops::add(p, &jops::mul(stepsize, u)?))
            .collect::<Result<_>>()?;
        let step = rebuild(interp, &self.def, step)?;
        let jax = super::super::import(interp, "jax")?;
        let vg = crate::python::ops::getattr(interp, &jax, "value_and_grad")?;
        let vg = interp.call(&vg, Args::new(vec![self.value_fn.clone()]))?;
        let args = Args::with(vec![step], self.fn_kwargs.clone());
        let (value, grad) = match interp.call(&vg, args)? {
            Obj::Tuple(t) if t.len() == 2 => (to_value(&t[0])?, t[1].clone()),
            _ => bail!(TypeError, "value_and_grad returned an unexpected value"),
        };
        let (grad, _) = leaves_of(interp, &grad)?;
        let slope = vdot(&grad, &self.updates)?;
        Ok((value, grad, slope))
    }

    /// The sufficient decrease error (Armijo's, or Hager and Zhang's
    /// approximate one near a minimum), clipped at 0, NaN as infinity.
    fn decrease_error(&self, stepsize: &Value, value: &Value, slope: &Value) -> Result<Value> {
        let s = &self.s;
        let (vi, si) = (&self.value_init, &self.slope_init);
        let armijo = jops::mul(&jops::mul(&c(s.slope_rtol), stepsize)?, si)?;
        let mut err = jops::sub(&jops::sub(value, vi)?, &armijo)?;
        if let Some(rtol) = s.approx_dec_rtol {
            let approx = jops::sub(slope, &jops::mul(&c(2.0 * s.slope_rtol - 1.0), si)?)?;
            let tol = jops::mul(&c(rtol), &jops::abs(vi)?)?;
            let delta = jops::sub(&jops::sub(value, vi)?, &tol)?;
            err = jops::minimum(&jops::maximum(&approx, &delta)?, &err)?;
        }
        let err = jops::maximum(&err, &c(0.0))?;
        jops::select(&isnan(&err)?, &c(f64::INFINITY), &err)
    }

    /// The strong curvature error, clipped at 0, NaN as infinity.
    fn curvature_error(&self, slope: &Value) -> Result<Value> {
        let bound = jops::mul(&c(self.s.curv_rtol), &jops::abs(&self.slope_init)?)?;
        let err = jops::maximum(&jops::sub(&jops::abs(slope)?, &bound)?, &c(0.0))?;
        jops::select(&isnan(&err)?, &c(f64::INFINITY), &err)
    }
}

/// `(b**2, b**3)` as `integer_pow`.
fn pow(x: &Value, n: i32) -> Result<Value> {
    jops::integer_pow(x, n)
}

/// The minimiser of the cubic through `(a, fa)` with slope `fpa` at `a`,
/// `(b, fb)` and `(c, fc)`.
fn cubicmin(pts: [&Value; 7]) -> Result<Value> {
    let [a, fa, fpa, b, fb, cc, fc] = pts;
    let db = jops::sub(b, a)?;
    let dc = jops::sub(cc, a)?;
    let denom = jops::mul(&pow(&jops::mul(&db, &dc)?, 2)?, &jops::sub(&db, &dc)?)?;
    let r0 = jops::sub(&jops::sub(fb, fa)?, &jops::mul(fpa, &db)?)?;
    let r1 = jops::sub(&jops::sub(fc, fa)?, &jops::mul(fpa, &dc)?)?;
    let row = |x: &Value, y: &Value| -> Result<Value> {
        jops::div(
            &jops::add(&jops::mul(x, &r0)?, &jops::mul(y, &r1)?)?,
            &denom,
        )
    };
    let big_a = row(&pow(&dc, 2)?, &jops::neg(&pow(&db, 2)?)?)?;
    let big_b = row(&jops::neg(&pow(&dc, 3)?)?, &pow(&db, 3)?)?;
    let radical = jops::sub(
        &jops::mul(&big_b, &big_b)?,
        &jops::mul(&jops::mul(&c(3.0), &big_a)?, fpa)?,
    )?;
    let num = jops::add(&jops::neg(&big_b)?, &jops::sqrt(&radical)?)?;
    jops::add(a, &jops::div(&num, &jops::mul(&c(3.0), &big_a)?)?)
}

/// The minimiser of the quadratic through `(a, fa)` with slope `fpa` at
/// `a` and `(b, fb)`.
fn quadmin(a: &Value, fa: &Value, fpa: &Value, b: &Value, fb: &Value) -> Result<Value> {
    let db = jops::sub(b, a)?;
    let num = jops::sub(&jops::sub(fb, fa)?, &jops::mul(fpa, &db)?)?;
    let big_b = jops::div(&num, &pow(&db, 2)?)?;
    jops::sub(a, &jops::div(fpa, &jops::mul(&c(2.0), &big_b)?)?)
}

/// The first phase: try a larger step (the guess on the first iteration)
/// until an interval containing an acceptable step is bracketed.
fn search_interval(interp: &mut Interp, line: &Line, st: &Search) -> Result<Search> {
    let s = &line.s;
    let count = st.get("count");
    let first = jops::equal(count, &jops::scalar(0.0, DType::I32))?;
    let larger = jops::mul(&c(s.increase), st.get("stepsize"))?;
    let mut new = jops::select(&first, &line.guess, &larger)?;
    let max_reached = match s.max_stepsize {
        Some(m) => {
            let reached = jops::greater_equal(&new, &c(m))?;
            new = jops::minimum(&new, &c(m))?;
            reached
        }
        None => Value::Concrete(Array::full(&[], 0.0, DType::Bool)),
    };
    let (value, grad, slope) = line.on_line(interp, &new)?;
    let dec = line.decrease_error(&new, &value, &slope)?;
    let curv = line.curvature_error(&slope)?;
    let error = jops::maximum(&dec, &curv)?;
    let safe = jops::less_equal(&dec, &c(s.tol))?;
    let mut out = st.clone();
    let safe_vals = pick(
        &safe,
        &[new.clone(), value.clone()],
        &[
            st.get("safe_stepsize").clone(),
            st.get("safe_value").clone(),
        ],
    )?;
    out.safe_grad = pick(&safe, &grad, &st.safe_grad)?;
    let (prev, prev_value, prev_slope) = (st.get("stepsize"), st.get("value"), st.get("slope"));
    let started = jops::greater(count, &jops::scalar(0.0, DType::I32))?;
    let set_high = or(
        &jops::greater(&dec, &c(0.0))?,
        &and(&jops::greater_equal(&value, prev_value)?, &started)?,
    )?;
    let set_low = and(&jops::greater_equal(&slope, &c(0.0))?, &not(&set_high)?)?;
    let newp = [new.clone(), value.clone(), slope.clone()];
    let prevp = [prev.clone(), prev_value.clone(), prev_slope.clone()];
    let low = pick(&set_low, &newp, &prevp)?;
    let high = pick(&set_low, &prevp, &newp)?;
    let good = jops::less_equal(&error, &c(s.tol))?;
    let found = or(&or(&set_high, &set_low)?, &good)?;
    let done = or(&good, &and(&max_reached, &not(&found)?)?)?;
    if s.verbose {
        let flag = and(&max_reached, &not(&found)?)?;
        let msg = format!("{HEADER}{INTERVAL_NOT_FOUND}\n{CURVATURE_NOT_SATISFIED}");
        let kw = errors_kw(line, &new, &dec, &curv);
        cond_print(interp, &flag, &msg, kw)?;
    }
    let last = jops::greater_equal(
        &jops::add(count, &jops::scalar(1.0, DType::I32))?,
        &jops::scalar(s.max_steps as f64, DType::I32),
    )?;
    let failed = and(&last, &not(&done)?)?;
    let named = [
        ("count", super::base::safe_increment(count)?),
        ("stepsize", new),
        ("value", value),
        ("slope", slope),
        ("decrease_error", dec),
        ("curvature_error", curv),
        ("error", error),
        ("interval_found", found),
        ("done", done),
        ("failed", failed),
    ];
    for (k, v) in named {
        out.set(k, v);
    }
    set_bracket(&mut out, &low, &high, &low, &safe_vals);
    out.grad = grad;
    out.cast_like(st)
}

/// The bracket's ends (step, value, slope each), the reference point of
/// the cubic step (step, value) and the safe step (step, value).
fn set_bracket(out: &mut Search, low: &[Value], high: &[Value], cubic: &[Value], safe: &[Value]) {
    let ends = ["low", "value_low", "slope_low"].into_iter().zip(low);
    let ends = ends.chain(["high", "value_high", "slope_high"].into_iter().zip(high));
    let refs = ["cubic_ref", "value_cubic_ref"].into_iter().zip(cubic);
    let refs = refs.chain(["safe_stepsize", "safe_value"].into_iter().zip(safe));
    for (k, v) in ends.chain(refs) {
        out.set(k, v.clone());
    }
}

/// The keyword arguments of the verbose report.
fn errors_kw(line: &Line, stepsize: &Value, dec: &Value, curv: &Value) -> Vec<(String, Obj)> {
    let kv = |k: &str, v: &Value| (k.to_string(), Obj::Array(v.clone()));
    vec![
        kv("value_init", &line.value_init),
        kv("slope_init", &line.slope_init),
        kv("stepsize", stepsize),
        kv("decrease_error", dec),
        kv("curvature_error", curv),
    ]
}

/// The interpolated trial point inside `[low, high]`: the cubic minimiser
/// if well inside, else the quadratic one, else the midpoint.
fn middle_point(st: &Search) -> Result<Value> {
    let (low, high) = (st.get("low"), st.get("high"));
    let delta = jops::abs(&jops::sub(high, low)?)?;
    let left = jops::minimum(high, low)?;
    let right = jops::maximum(high, low)?;
    let inside = |x: &Value, frac: f64| -> Result<Value> {
        let chk = jops::mul(&c(frac), &delta)?;
        and(
            &jops::greater(x, &jops::add(&left, &chk)?)?,
            &jops::less(x, &jops::sub(&right, &chk)?)?,
        )
    };
    let cubic = cubicmin([
        low,
        st.get("value_low"),
        st.get("slope_low"),
        high,
        st.get("value_high"),
        st.get("cubic_ref"),
        st.get("value_cubic_ref"),
    ])?;
    let use_cubic = inside(&cubic, 0.2)?;
    let quad = quadmin(
        low,
        st.get("value_low"),
        st.get("slope_low"),
        high,
        st.get("value_high"),
    )?;
    let use_quad = and(&not(&use_cubic)?, &inside(&quad, 0.1)?)?;
    let bisect = jops::div(&jops::add(low, high)?, &c(2.0))?;
    let use_bisect = and(&not(&use_cubic)?, &not(&use_quad)?)?;
    let middle = jops::select(&use_cubic, &cubic, st.get("cubic_ref"))?;
    let middle = jops::select(&use_quad, &quad, &middle)?;
    jops::select(&use_bisect, &bisect, &middle)
}

/// The second phase: evaluate an interpolated point of the interval and
/// shrink the interval around an acceptable step.
fn zoom_into_interval(interp: &mut Interp, line: &Line, st: &Search) -> Result<Search> {
    let s = &line.s;
    let (low, high) = (st.get("low"), st.get("high"));
    let too_small = jops::less_equal(
        &jops::abs(&jops::sub(high, low)?)?,
        &c(s.interval_threshold),
    )?;
    let middle = middle_point(st)?;
    let (value, grad, slope) = line.on_line(interp, &middle)?;
    let dec = line.decrease_error(&middle, &value, &slope)?;
    let curv = line.curvature_error(&slope)?;
    let error = jops::maximum(&dec, &curv)?;
    let safe = and(
        &jops::less_equal(&dec, &c(s.tol))?,
        &jops::less(&value, st.get("safe_value"))?,
    )?;
    let mut out = st.clone();
    let safe_vals = pick(
        &safe,
        &[middle.clone(), value.clone()],
        &[
            st.get("safe_stepsize").clone(),
            st.get("safe_value").clone(),
        ],
    )?;
    out.safe_grad = pick(&safe, &grad, &st.safe_grad)?;
    let done = jops::less_equal(&error, &c(s.tol))?;
    let high_to_middle = or(
        &jops::greater(&dec, &c(0.0))?,
        &jops::greater_equal(&value, st.get("value_low"))?,
    )?;
    let secant = jops::mul(&slope, &jops::sub(high, low)?)?;
    let high_to_low = and(
        &jops::greater_equal(&secant, &c(0.0))?,
        &not(&high_to_middle)?,
    )?;
    let low_to_middle = not(&high_to_middle)?;
    let mid = [middle.clone(), value.clone(), slope.clone()];
    let lowp = [
        low.clone(),
        st.get("value_low").clone(),
        st.get("slope_low").clone(),
    ];
    let highp = [
        high.clone(),
        st.get("value_high").clone(),
        st.get("slope_high").clone(),
    ];
    let new_high = pick(&high_to_middle, &mid, &highp)?;
    let new_high = pick(&high_to_low, &lowp, &new_high)?;
    let new_low = pick(&low_to_middle, &mid, &lowp)?;
    let high_changed = or(&high_to_middle, &high_to_low)?;
    let cubic = pick(&high_changed, &highp[..2], &lowp[..2])?;
    let count = st.get("count");
    let last = jops::greater_equal(
        &jops::add(count, &jops::scalar(1.0, DType::I32))?,
        &jops::scalar(s.max_steps as f64, DType::I32),
    )?;
    let stuck = and(&too_small, &jops::greater(&safe_vals[0], &c(0.0))?)?;
    let failed = and(&or(&last, &stuck)?, &not(&done)?)?;
    let named = [
        ("count", super::base::safe_increment(count)?),
        ("stepsize", middle),
        ("value", value),
        ("slope", slope),
        ("decrease_error", dec),
        ("curvature_error", curv),
        ("error", error),
        ("done", done),
        ("failed", failed),
    ];
    for (k, v) in named {
        out.set(k, v);
    }
    set_bracket(&mut out, &new_low, &new_high, &cubic, &safe_vals);
    out.grad = grad;
    out.cast_like(st)
}

/// A function of `jax.lax`, looked up through the interpreter.
fn lax(interp: &mut Interp, name: &str) -> Result<Obj> {
    let jax = super::super::import(interp, "jax")?;
    let lax = crate::python::ops::getattr(interp, &jax, "lax")?;
    crate::python::ops::getattr(interp, &lax, name)
}

/// `jax.lax.cond(pred, yes, no, operand)` with native branches.
fn lax_cond(interp: &mut Interp, pred: &Value, yes: Obj, no: Obj, operand: Obj) -> Result<Obj> {
    let cond = lax(interp, "cond")?;
    let args = Args::new(vec![Obj::Array(pred.clone()), yes, no, operand]);
    interp.call(&cond, args)
}

/// `jax.debug.print(msg, **kw, ordered=True)`.
fn debug_print(interp: &mut Interp, msg: &str, kw: Vec<(String, Obj)>) -> Result<()> {
    let mut kw = kw;
    kw.push(("ordered".to_string(), Obj::Bool(true)));
    let args = Args::with(vec![Obj::str(msg)], kw);
    crate::modules::debug_print::print(interp, args)?;
    Ok(())
}

/// Prints `msg` when `cond` holds, through a `lax.cond` as optax does.
fn cond_print(interp: &mut Interp, cond: &Value, msg: &str, kw: Vec<(String, Obj)>) -> Result<()> {
    let msg = msg.to_string();
    let yes = Obj::native("_cond_print", move |interp, _| {
        debug_print(interp, &msg, kw.clone())?;
        Ok(Obj::None)
    });
    let no = Obj::native("_cond_print", |_, _| Ok(Obj::None));
    lax_cond(interp, cond, yes, no, Obj::None)?;
    Ok(())
}

/// The explanation printed when no step with sufficient decrease was found.
fn failure_diagnostic(interp: &mut Interp, st: &Search, slope_init: &Value) -> Result<()> {
    debug_print(interp, NO_STEPSIZE_FOUND, vec![])?;
    let kv = |k: &str, v: &Value| vec![(k.to_string(), Obj::Array(v.clone()))];
    let descent = jops::less(slope_init, &c(0.0))?;
    let msg = format!(
        "{NOT_A_DESCENT_DIRECTION}The slope (={{slope_init}}) at stepsize=0 should be negative"
    );
    cond_print(interp, &not(&descent)?, &msg, kv("slope_init", slope_init))?;
    let msg = "Consider augmenting the maximal number of linesearch iterations.";
    cond_print(interp, &descent, msg, vec![])?;
    let eps = c(f32::EPSILON as f64);
    let stepsize = st.get("stepsize");
    let below = and(&jops::less(stepsize, &eps)?, &descent)?;
    let msg = "Computed stepsize (={stepsize}) is below machine precision (={eps}), consider passing to higher precision like x64, using jax.config.update('jax_enable_x64', True).";
    let mut kw = kv("stepsize", stepsize);
    kw.extend(kv("eps", &eps));
    cond_print(interp, &below, msg, kw)?;
    let abs_slope = jops::abs(slope_init)?;
    let steep = and(&jops::greater(&abs_slope, &c(1e16))?, &descent)?;
    let msg = "Very large absolute slope at stepsize=0. (|slope|={abs_slope_init}). The objective is badly conditioned. Consider reparameterizing objective (e.g., normalizing parameters) or finding a better guess for the initial parameters for the solver.";
    cond_print(interp, &steep, msg, kv("abs_slope_init", &abs_slope))?;
    let outside = isinf(st.get("decrease_error"))?;
    let msg = "Cannot even make a step without getting Inf or Nan. The linesearch won't make a step and the optimizer is stuck.";
    cond_print(interp, &outside, msg, vec![])?;
    let msg = "Making an unsafe step, not decreasing enough the objective. Convergence of the solver is compromised as it does not reduce values.";
    cond_print(interp, &not(&outside)?, msg, vec![])
}

/// The verbose report of a failed search.
fn report_failure(interp: &mut Interp, line: &Rc<Line>, st: &Search) -> Result<()> {
    let kw = errors_kw(
        line,
        st.get("stepsize"),
        st.get("decrease_error"),
        st.get("curvature_error"),
    );
    debug_print(interp, HEADER, kw)?;
    let length = jops::abs(&jops::sub(st.get("low"), st.get("high"))?)?;
    let too_small = jops::less_equal(&length, &c(line.s.interval_threshold))?;
    let msg = format!("{INTERVAL_TOO_SMALL} Interval length: {{interval_length}}.");
    let kw = vec![("interval_length".to_string(), Obj::Array(length))];
    cond_print(interp, &too_small, &msg, kw)?;
    let safe = st.get("safe_stepsize").clone();
    let has_safe = jops::greater(&safe, &c(0.0))?;
    let msg = format!(
        "{CURVATURE_NOT_SATISFIED} Stepsize ensuring sufficient decrease: {{safe_stepsize}}."
    );
    let yes = Obj::native("_try_safe_step", move |interp, _| {
        let kw = vec![("safe_stepsize".to_string(), Obj::Array(safe.clone()))];
        debug_print(interp, &msg, kw)?;
        Ok(Obj::None)
    });
    let (st2, slope_init) = (st.clone(), line.slope_init.clone());
    let no = Obj::native("_failure_diagnostic", move |interp, _| {
        failure_diagnostic(interp, &st2, &slope_init)?;
        Ok(Obj::None)
    });
    lax_cond(interp, &has_safe, yes, no, Obj::None)?;
    Ok(())
}

/// After a failure: fall back on the best step with sufficient decrease
/// (or on it whatever it is when the last step left the domain).
fn try_safe_step(interp: &mut Interp, line: &Rc<Line>, st: &Search) -> Result<Search> {
    let outside = isinf(st.get("decrease_error"))?;
    let fallback = or(&jops::greater(st.get("safe_stepsize"), &c(0.0))?, &outside)?;
    let chosen = pick(
        &fallback,
        &[
            st.get("safe_stepsize").clone(),
            st.get("safe_value").clone(),
        ],
        &[st.get("stepsize").clone(), st.get("value").clone()],
    )?;
    if line.s.verbose {
        report_failure(interp, line, st)?;
    }
    let mut out = st.clone();
    out.grad = pick(&fallback, &st.safe_grad, &st.grad)?;
    out.set("stepsize", chosen[0].clone());
    out.set("value", chosen[1].clone());
    out.cast_like(st)
}

/// One iteration of the search loop, as the `while_loop` body.
fn step(interp: &mut Interp, line: &Rc<Line>, carry: &Obj) -> Result<Obj> {
    let n = line.params.len();
    let st = Search::from_obj(carry, n)?;
    let (l1, l2) = (line.clone(), line.clone());
    let zoom = Obj::native("_zoom_into_interval", move |interp, a| {
        let st = Search::from_obj(&a.req(Some(0), "state", "_zoom_into_interval")?, n)?;
        Ok(zoom_into_interval(interp, &l1, &st)?.to_obj())
    });
    let search = Obj::native("_search_interval", move |interp, a| {
        let st = Search::from_obj(&a.req(Some(0), "state", "_search_interval")?, n)?;
        Ok(search_interval(interp, &l2, &st)?.to_obj())
    });
    let found = st.get("interval_found").clone();
    let next = lax_cond(interp, &found, zoom, search, carry.clone())?;
    let failed = Search::from_obj(&next, n)?.get("failed").clone();
    let l3 = line.clone();
    let safe = Obj::native("_try_safe_step", move |interp, a| {
        let st = Search::from_obj(&a.req(Some(0), "state", "_try_safe_step")?, n)?;
        Ok(try_safe_step(interp, &l3, &st)?.to_obj())
    });
    let keep = Obj::native("<lambda>", |_, a| a.req(Some(0), "x", "<lambda>"));
    lax_cond(interp, &failed, safe, keep, next)
}

/// Runs the search to its end from `init`.
fn run(interp: &mut Interp, line: Rc<Line>, init: &Search) -> Result<Search> {
    let n = line.params.len();
    let cond = Obj::native("step_cond_fn", move |_, a| {
        let st = Search::from_obj(&a.req(Some(0), "state", "step_cond_fn")?, n)?;
        let stop = or(st.get("done"), st.get("failed"))?;
        Ok(Obj::Array(not(&stop)?))
    });
    let body = Obj::native("step_fn", move |interp, a| {
        step(interp, &line, &a.req(Some(0), "state", "step_fn")?)
    });
    let while_loop = lax(interp, "while_loop")?;
    let out = interp.call(&while_loop, Args::new(vec![cond, body, init.to_obj()]))?;
    Search::from_obj(&out, n)
}

fn extra_arg(extra: &[(String, Obj)], name: &str) -> Result<Obj> {
    match extra.iter().find(|(k, _)| k == name) {
        Some((_, v)) => Ok(v.clone()),
        None => bail!(
            TypeError,
            "update_fn() missing 1 required keyword-only argument: '{name}'"
        ),
    }
}

/// `ScaleByZoomLinesearchState(learning_rate, value, grad, info)`.
fn zoom_state(
    interp: &mut Interp,
    def: &crate::python::pytree::TreeDef,
    st: &Search,
) -> Result<Obj> {
    let a = |k: &str| Obj::Array(st.get(k).clone());
    let info = state(
        "ZoomLinesearchInfo",
        vec![
            ("num_linesearch_steps", a("count")),
            ("decrease_error", a("decrease_error")),
            ("curvature_error", a("curvature_error")),
        ],
    );
    Ok(state(
        "ScaleByZoomLinesearchState",
        vec![
            ("learning_rate", a("stepsize")),
            ("value", a("value")),
            ("grad", rebuild(interp, def, st.grad.clone())?),
            ("info", info),
        ],
    ))
}

/// One update: a full search along `updates`, which are then scaled by
/// the step size found.
fn update(
    interp: &mut Interp,
    s: Settings,
    u: &Obj,
    st: &Obj,
    p: &Obj,
    extra: &[(String, Obj)],
) -> Result<(Obj, Obj)> {
    let (updates, def) = leaves_of(interp, u)?;
    let (params, _) = leaves_of(interp, p)?;
    let (grad, _) = leaves_of(interp, &extra_arg(extra, "grad")?)?;
    let value_init = to_value(&extra_arg(extra, "value")?)?;
    let guess = if s.keep_guess {
        to_value(&field(st, "learning_rate")?)?
    } else {
        c(1.0)
    };
    let slope_init = vdot(&updates, &grad)?;
    let fn_kwargs = extra
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "value" | "grad" | "value_fn"))
        .cloned()
        .collect();
    let line = Rc::new(Line {
        s,
        params,
        updates: updates.clone(),
        def: def.clone(),
        guess,
        value_init,
        slope_init,
        value_fn: extra_arg(extra, "value_fn")?,
        fn_kwargs,
    });
    let init = init_search(&line, &grad)?;
    let last = run(interp, line, &init)?;
    let lr = last.get("stepsize");
    let scaled = updates
        .iter()
        .map(|x| jops::mul(lr, x))
        .collect::<Result<Vec<_>>>()?;
    Ok((
        rebuild(interp, &def, scaled)?,
        zoom_state(interp, &def, &last)?,
    ))
}

/// The first state: step size 1, no value yet (infinite), a zero gradient.
fn init(interp: &mut Interp, p: &Obj) -> Result<Obj> {
    let (leaves, def) = leaves_of(interp, p)?;
    let zeros: Vec<Value> = leaves.iter().map(jops::zeros_like).collect();
    // `jnp.asarray(0)` and `jnp.asarray(jnp.inf)`: weakly typed.
    let weak = |v: f64, d: DType| Value::Concrete(Array::full(&[], v, d).with_weak(true));
    let mut scalars: [Value; 20] = std::array::from_fn(|_| weak(f64::INFINITY, DType::F32));
    scalars[0] = weak(0.0, DType::I32);
    scalars[1] = c(1.0);
    let st = Search {
        scalars,
        grad: zeros.clone(),
        safe_grad: zeros,
    };
    zoom_state(interp, &def, &st)
}

/// `scale_by_zoom_linesearch(max_linesearch_steps, max_learning_rate=None,
/// tol=0., increase_factor=2., slope_rtol=1e-4, curv_rtol=0.9,
/// approx_dec_rtol=1e-6, stepsize_precision=1e-5,
/// initial_guess_strategy='keep', verbose=False)`.
pub(super) fn scale_by_zoom_linesearch(a: &Args) -> Result<Obj> {
    let f = "scale_by_zoom_linesearch";
    let num = |i: usize, n: &str, d: Option<f64>| -> Result<Option<f64>> {
        match a.opt(Some(i), n) {
            None => Ok(d),
            Some(Obj::None) => Ok(None),
            Some(o) => Ok(Some(
                super::base::Hyper::from_obj(&o, n, f)?
                    .num()
                    .ok_or_else(|| {
                        crate::err!(
                            NotImplementedError,
                            "not supported by shardlab yet: optax.{f} with an array {n}"
                        )
                    })?,
            )),
        }
    };
    let max_steps = match num(0, "max_linesearch_steps", None)? {
        Some(m) => m as i64,
        None => bail!(
            TypeError,
            "{f}() missing 1 required positional argument: 'max_linesearch_steps'"
        ),
    };
    let keep_guess = match a.opt(Some(8), "initial_guess_strategy") {
        None => true,
        Some(Obj::Str(s)) if &*s == "keep" => true,
        Some(Obj::Str(s)) if &*s == "one" => false,
        Some(o) => bail!(
            ValueError,
            "Unknown initial guess strategy: {}",
            crate::python::format::str_of(&o)
        ),
    };
    let s = Settings {
        max_steps,
        max_stepsize: num(1, "max_learning_rate", None)?,
        tol: num(2, "tol", Some(0.0))?.unwrap_or(0.0),
        increase: num(3, "increase_factor", Some(2.0))?.unwrap_or(2.0),
        slope_rtol: num(4, "slope_rtol", Some(1e-4))?.unwrap_or(1e-4),
        curv_rtol: num(5, "curv_rtol", Some(0.9))?.unwrap_or(0.9),
        approx_dec_rtol: num(6, "approx_dec_rtol", Some(1e-6))?,
        interval_threshold: num(7, "stepsize_precision", Some(1e-5))?.unwrap_or(1e-5),
        keep_guess,
        verbose: flag(a, Some(9), "verbose", false)?,
    };
    Ok(transformation(init, move |interp, u, st, p, extra| {
        let Some(p) = p else {
            bail!(
                TypeError,
                "update_fn() missing 1 required positional argument: 'params'"
            );
        };
        update(interp, s, u, st, p, extra)
    }))
}

/// The line search `lbfgs` uses by default:
/// `scale_by_zoom_linesearch(max_linesearch_steps=20,
/// initial_guess_strategy='one')`.
pub(super) fn lbfgs_default() -> Result<Obj> {
    let args = Args::with(
        vec![Obj::Int(20)],
        vec![("initial_guess_strategy".to_string(), Obj::str("one"))],
    );
    scale_by_zoom_linesearch(&args)
}
