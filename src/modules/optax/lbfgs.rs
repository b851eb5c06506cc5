//! Quasi-Newton updates and line searches: `scale_by_lbfgs` (the two-loop
//! recursion over a ring of parameter and gradient differences),
//! `scale_by_backtracking_linesearch`, `value_and_grad_from_state`, and
//! `lbfgs`, which chains them with the zoom line search of [`super::zoom`]
//! by default.
//!
//! The L-BFGS memory is indexed with the step count, which may be traced,
//! so its rows are read and written with dynamic slices. The line search
//! loops while the objective's values are concrete (outside `jit`); a
//! traced search is not supported yet.

use crate::array::{Array, DType};
use crate::error::Result;
use crate::python::array::to_value;
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};
use crate::trace::Value;
use crate::{bail, err, ops as jops};

use super::super::Builder;
use super::base::{
    field, flag, leaves_of, rebuild, safe_increment, state, transformation, zero_count,
};

fn c(v: f64) -> Value {
    jops::scalar(v, DType::F32)
}

fn i32v(v: i64) -> Value {
    jops::scalar(v as f64, DType::I32)
}

/// `sum(vdot(x, y))` over the leaves, leaf by leaf in order.
pub(super) fn vdot(x: &[Value], y: &[Value]) -> Result<Value> {
    let mut out: Option<Value> = None;
    for (a, b) in x.iter().zip(y) {
        let axes: Vec<usize> = (0..a.ndim()).collect();
        let d = jops::dot_general(a, b, (&axes, &axes), (&[], &[]))?;
        out = Some(match out {
            None => d,
            Some(t) => jops::add(&t, &d)?,
        });
    }
    Ok(out.unwrap_or_else(|| c(0.0)))
}

/// `x + s * y` leaf by leaf.
fn add_scale(x: &[Value], s: &Value, y: &[Value]) -> Result<Vec<Value>> {
    x.iter()
        .zip(y)
        .map(|(x, y)| jops::add(x, &jops::mul(s, y)?))
        .collect()
}

/// Row `idx` of a stacked memory leaf.
fn row(x: &Value, idx: &Value) -> Result<Value> {
    let shape = x.shape();
    let mut starts = vec![idx.clone()];
    starts.extend((1..shape.len()).map(|_| i32v(0)));
    let mut sizes = shape.clone();
    sizes[0] = 1;
    jops::reshape(&jops::dynamic_slice(x, &starts, &sizes)?, &shape[1..])
}

/// The memory leaf with row `idx` replaced by `v`.
fn set_row(x: &Value, idx: &Value, v: &Value) -> Result<Value> {
    let shape = x.shape();
    let mut starts = vec![idx.clone()];
    starts.extend((1..shape.len()).map(|_| i32v(0)));
    let mut one = vec![1];
    one.extend(v.shape());
    jops::dynamic_update_slice(x, &jops::reshape(v, &one)?, &starts)
}

/// The L-BFGS memory: parameter and update differences and their weights.
struct Memory {
    dp: Vec<Value>,
    du: Vec<Value>,
    rho: Value,
}

/// The two-loop recursion applied to `g`.
fn precondition(
    g: &[Value],
    mem: &Memory,
    scale: &Value,
    idx: &Value,
    m: i64,
) -> Result<Vec<Value>> {
    let indices: Vec<Value> = (0..m)
        .map(|k| {
            jops::binary(
                crate::array::BinaryOp::Rem,
                &jops::add(idx, &i32v(k))?,
                &i32v(m),
            )
        })
        .collect::<Result<_>>()?;
    let rows = |mem: &[Value], i: &Value| mem.iter().map(|x| row(x, i)).collect::<Result<Vec<_>>>();
    let mut vec = g.to_vec();
    let mut alphas = vec![c(0.0); m as usize];
    for (k, i) in indices.iter().enumerate().rev() {
        let rho = row(&mem.rho, i)?;
        let alpha = jops::mul(&rho, &vdot(&rows(&mem.dp, i)?, &vec)?)?;
        vec = add_scale(&vec, &jops::neg(&alpha)?, &rows(&mem.du, i)?)?;
        alphas[k] = alpha;
    }
    vec = vec
        .iter()
        .map(|x| jops::mul(scale, x))
        .collect::<Result<_>>()?;
    for (i, alpha) in indices.iter().zip(&alphas) {
        let rho = row(&mem.rho, i)?;
        let beta = jops::mul(&rho, &vdot(&rows(&mem.du, i)?, &vec)?)?;
        vec = add_scale(&vec, &jops::sub(alpha, &beta)?, &rows(&mem.dp, i)?)?;
    }
    Ok(vec)
}

fn lbfgs_state(
    interp: &mut Interp,
    def: &crate::python::pytree::TreeDef,
    parts: [Vec<Value>; 4],
    count: Obj,
    rho: Value,
) -> Result<Obj> {
    let [p, u, dp, du] = parts;
    Ok(state(
        "ScaleByLBFGSState",
        vec![
            ("count", count),
            ("params", rebuild(interp, def, p)?),
            ("updates", rebuild(interp, def, u)?),
            ("diff_params_memory", rebuild(interp, def, dp)?),
            ("diff_updates_memory", rebuild(interp, def, du)?),
            ("weights_memory", Obj::Array(rho)),
        ],
    ))
}

/// `where(cond, x, 0)`.
fn keep_if(cond: &Value, x: &Value) -> Result<Value> {
    jops::select(
        &jops::broadcast_to(cond, &x.shape())?,
        x,
        &jops::zeros_like(x),
    )
}

/// The scaling of the initial inverse Hessian: `<du, dp> / |du|^2`, or on
/// the first step `min(1, 1 / |g|)`.
fn identity_scale(g: &[Value], dp: &[Value], du: &[Value], started: &Value) -> Result<Value> {
    let num = vdot(du, dp)?;
    let den = vdot(du, du)?;
    let ratio = jops::select(
        &jops::greater(&den, &c(0.0))?,
        &jops::div(&num, &den)?,
        &c(1.0),
    )?;
    let norm = super::base::global_norm(g)?;
    let capped = jops::minimum(&c(1.0), &jops::div(&c(1.0), &norm)?)?;
    jops::select(started, &ratio, &capped)
}

/// `scale_by_lbfgs(memory_size, scale_init_precond)`.
fn scale_by_lbfgs(m: i64, scale_init: bool) -> Obj {
    transformation(
        move |interp, p| lbfgs_init(interp, p, m),
        move |interp, u, st, p, _| {
            let Some(p) = p else {
                bail!(
                    TypeError,
                    "update_fn() missing 1 required positional argument: 'params'"
                );
            };
            lbfgs_update(interp, (u, st, p), m, scale_init)
        },
    )
}

/// The L-BFGS state of `params`: zero last params and updates, `m` rows of
/// zero differences, zero weights, count 0.
fn lbfgs_init(interp: &mut Interp, params: &Obj, m: i64) -> Result<Obj> {
    let (leaves, def) = leaves_of(interp, params)?;
    let zeros: Vec<Value> = leaves.iter().map(jops::zeros_like).collect();
    let stacked: Vec<Value> = leaves
        .iter()
        .map(|l| {
            let mut s = vec![m as usize];
            s.extend(l.shape());
            Value::Concrete(Array::zeros(&s, l.dtype()))
        })
        .collect();
    let rho = Value::Concrete(Array::zeros(&[m as usize], DType::F32));
    lbfgs_state(
        interp,
        &def,
        [zeros.clone(), zeros, stacked.clone(), stacked],
        zero_count(),
        rho,
    )
}

/// One L-BFGS step: the newest parameter and gradient differences enter the
/// memory (from the second step on), and the gradient is preconditioned by
/// the two-loop recursion.
fn lbfgs_update(
    interp: &mut Interp,
    (u, st, p): (&Obj, &Obj, &Obj),
    m: i64,
    scale_init: bool,
) -> Result<(Obj, Obj)> {
    let (g, def) = leaves_of(interp, u)?;
    let (params, _) = leaves_of(interp, p)?;
    let (old_p, _) = leaves_of(interp, &field(st, "params")?)?;
    let (old_u, _) = leaves_of(interp, &field(st, "updates")?)?;
    let (dp_mem, _) = leaves_of(interp, &field(st, "diff_params_memory")?)?;
    let (du_mem, _) = leaves_of(interp, &field(st, "diff_updates_memory")?)?;
    let rho_mem = to_value(&field(st, "weights_memory")?)?;
    let count = to_value(&field(st, "count")?)?;
    let rem = |x: Value| jops::binary(crate::array::BinaryOp::Rem, &x, &i32v(m));
    let idx = rem(count.clone())?;
    let prev = rem(jops::sub(&count, &i32v(1))?)?;
    let diff = |a: &[Value], b: &[Value]| -> Result<Vec<Value>> {
        a.iter().zip(b).map(|(a, b)| jops::sub(a, b)).collect()
    };
    let (dp, du) = (diff(&params, &old_p)?, diff(&g, &old_u)?);
    let v = vdot(&du, &dp)?;
    let zero = jops::equal(&v, &c(0.0))?;
    let weight = jops::select(&zero, &c(0.0), &jops::div(&c(1.0), &v)?)?;
    let started = jops::greater(&count, &i32v(0))?;
    let kept =
        |xs: &[Value]| -> Result<Vec<Value>> { xs.iter().map(|x| keep_if(&started, x)).collect() };
    let (dp, du) = (kept(&dp)?, kept(&du)?);
    let weight = keep_if(&started, &weight)?;
    let rows = |mem: &[Value], new: &[Value]| -> Result<Vec<Value>> {
        mem.iter()
            .zip(new)
            .map(|(x, y)| set_row(x, &prev, y))
            .collect()
    };
    let mem = Memory {
        dp: rows(&dp_mem, &dp)?,
        du: rows(&du_mem, &du)?,
        rho: set_row(&rho_mem, &prev, &weight)?,
    };
    let scale = if scale_init {
        identity_scale(&g, &dp, &du, &started)?
    } else {
        c(1.0)
    };
    let out = precondition(&g, &mem, &scale, &idx, m)?;
    let count = Obj::Array(safe_increment(&count)?);
    let st = lbfgs_state(interp, &def, [params, g, mem.dp, mem.du], count, mem.rho)?;
    Ok((rebuild(interp, &def, out)?, st))
}

/// A concrete scalar, or the refusal for a traced line search.
fn concrete(v: &Value) -> Result<f64> {
    match v {
        Value::Concrete(a) if a.size() == 1 => Ok(a.get_f64(0)),
        _ => bail!(
            NotImplementedError,
            "not supported by shardlab yet: optax.scale_by_backtracking_linesearch under jit"
        ),
    }
}

/// The settings of `scale_by_backtracking_linesearch`.
#[derive(Clone, Copy)]
struct Backtracking {
    max_steps: i64,
    slope_rtol: f64,
    decrease: f64,
    increase: f64,
    max_lr: f64,
    atol: f64,
    rtol: f64,
    store_grad: bool,
}

/// `max(new - (1 + rtol) * value - lr * slope_rtol * slope, 0)`, with NaN
/// counted as infinite.
fn decrease_error(
    b: &Backtracking,
    lr: &Value,
    slope: &Value,
    value: &Value,
    new: &Value,
) -> Result<Value> {
    let t = jops::sub(new, &jops::mul(&c(1.0 + b.rtol), value)?)?;
    let t = jops::sub(&t, &jops::mul(&jops::mul(lr, &c(b.slope_rtol))?, slope)?)?;
    let nan = jops::not_equal(&t, &t)?;
    let t = jops::select(&nan, &c(f64::INFINITY), &t)?;
    jops::maximum(&t, &c(0.0))
}

fn linesearch_state(lr: Value, value: Value, grad: Obj, steps: Value, err: Value) -> Obj {
    let info = state(
        "BacktrackingLinesearchInfo",
        vec![
            ("num_linesearch_steps", Obj::Array(steps)),
            ("decrease_error", Obj::Array(err)),
        ],
    );
    state(
        "ScaleByBacktrackingLinesearchState",
        vec![
            ("learning_rate", Obj::Array(lr)),
            ("value", Obj::Array(value)),
            ("grad", grad),
            ("info", info),
        ],
    )
}

/// The update's extra keyword arguments, each of which must name a
/// parameter of `value_fn` (all are passed to a callable whose parameters
/// are not known).
fn value_fn_kwargs(f: &Obj, extra: &[(String, Obj)]) -> Result<Vec<(String, Obj)>> {
    let own = |k: &str| matches!(k, "value" | "grad" | "value_fn");
    let params: Option<Vec<String>> = match f {
        Obj::Func(func) => {
            let p = &func.params;
            Some(
                p.posonlyargs
                    .iter()
                    .chain(&p.args)
                    .chain(&p.kwonlyargs)
                    .map(|a| a.def.arg.to_string())
                    .collect(),
            )
        }
        _ => None,
    };
    let (kw, mut unused): (Vec<_>, Vec<_>) = extra
        .iter()
        .filter(|(k, _)| !own(k))
        .cloned()
        .partition(|(k, _)| params.as_ref().is_none_or(|p| p.contains(k)));
    if !unused.is_empty() {
        unused.sort_by(|a, b| a.0.cmp(&b.0));
        let names: Vec<String> = unused.iter().map(|(k, _)| format!("'{k}'")).collect();
        bail!(
            TypeError,
            "Unexpected keyword arguments passed to `scale_by_backtracking_linesearch.update`. These arguments were not consumed by `value_fn`: [{}]. Ensure that all extra keyword arguments are accepted by `value_fn`.",
            names.join(", ")
        );
    }
    Ok(kw)
}

/// The objective (and with `store_grad` its gradient) at `params`, given
/// the keyword arguments `kw` besides.
fn evaluate(
    interp: &mut Interp,
    f: &Obj,
    params: &Obj,
    kw: &[(String, Obj)],
    with_grad: bool,
) -> Result<(Value, Option<Obj>)> {
    let args = Args::with(vec![params.clone()], kw.to_vec());
    if !with_grad {
        let v = interp.call(f, args)?;
        return Ok((to_value(&v)?, None));
    }
    let jax = super::super::import(interp, "jax")?;
    let vg = crate::python::ops::getattr(interp, &jax, "value_and_grad")?;
    let vg = interp.call(&vg, Args::new(vec![f.clone()]))?;
    match interp.call(&vg, args)? {
        Obj::Tuple(t) if t.len() == 2 => Ok((to_value(&t[0])?, Some(t[1].clone()))),
        _ => bail!(TypeError, "value_and_grad returned an unexpected value"),
    }
}

fn extra_arg(extra: &[(String, Obj)], name: &str) -> Result<Obj> {
    extra
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.clone())
        .ok_or_else(|| {
            err!(
                TypeError,
                "update_fn() missing 1 required keyword-only argument: '{name}'"
            )
        })
}

/// One search: the step size from `increase * previous` (capped) down by
/// `decrease` until the decrease condition holds.
fn search(
    interp: &mut Interp,
    b: Backtracking,
    u: &Obj,
    st: &Obj,
    p: &Obj,
    extra: &[(String, Obj)],
) -> Result<(Obj, Obj)> {
    let value = to_value(&extra_arg(extra, "value")?)?;
    let f = extra_arg(extra, "value_fn")?;
    let kw = value_fn_kwargs(&f, extra)?;
    let (ul, def) = leaves_of(interp, u)?;
    let (gl, _) = leaves_of(interp, &extra_arg(extra, "grad")?)?;
    let (pl, _) = leaves_of(interp, p)?;
    let slope = vdot(&ul, &gl)?;
    let prev = to_value(&field(st, "learning_rate")?)?;
    let mut lr = jops::minimum(&jops::mul(&c(b.increase), &prev)?, &c(b.max_lr))?;
    let (mut new_value, mut new_grad, mut err, mut iter) =
        (value.clone(), None, c(f64::INFINITY), 0i64);
    // NaN errors keep searching, as `~(error <= atol)` does.
    while !matches!(
        concrete(&err)?.partial_cmp(&b.atol),
        Some(std::cmp::Ordering::Less | std::cmp::Ordering::Equal)
    ) && iter <= b.max_steps
    {
        if iter > 0 {
            lr = jops::mul(&c(b.decrease), &lr)?;
        }
        let np = rebuild(interp, &def, add_scale(&pl, &lr, &ul)?)?;
        let (v, g) = evaluate(interp, &f, &np, &kw, b.store_grad)?;
        err = decrease_error(&b, &lr, &slope, &value, &v)?;
        new_value = v;
        if b.store_grad && (concrete(&err)? <= b.atol || iter == b.max_steps) {
            new_grad = g;
        }
        iter += 1;
    }
    let final_lr = if concrete(&err)?.is_infinite() {
        c(0.0)
    } else {
        lr
    };
    let out = rebuild(
        interp,
        &def,
        ul.iter()
            .map(|x| jops::mul(&final_lr, x))
            .collect::<Result<_>>()?,
    )?;
    let grad = match (b.store_grad, new_grad) {
        (false, _) => Obj::None,
        (true, Some(g)) => g,
        (true, None) => super::base::zeros_tree(interp, p)?,
    };
    Ok((
        out,
        linesearch_state(final_lr, new_value, grad, i32v(iter), err),
    ))
}

fn backtracking(a: &Args) -> Result<Obj> {
    let f = "scale_by_backtracking_linesearch";
    let num = |i, n, d| {
        super::base::Hyper::arg(a, Some(i), n, d, f).map(|h| h.num().unwrap_or(d.unwrap_or(0.0)))
    };
    let b = Backtracking {
        max_steps: num(0, "max_backtracking_steps", None)? as i64,
        slope_rtol: num(1, "slope_rtol", Some(1e-4))?,
        decrease: num(2, "decrease_factor", Some(0.8))?,
        increase: num(3, "increase_factor", Some(1.5))?,
        max_lr: num(4, "max_learning_rate", Some(1.0))?,
        atol: num(5, "atol", Some(0.0))?,
        rtol: num(6, "rtol", Some(0.0))?,
        store_grad: flag(a, Some(7), "store_grad", false)?,
    };
    Ok(transformation(
        move |interp, p| {
            let grad = if b.store_grad {
                super::base::zeros_tree(interp, p)?
            } else {
                Obj::None
            };
            Ok(linesearch_state(
                c(1.0),
                c(f64::INFINITY),
                grad,
                i32v(0),
                c(f64::INFINITY),
            ))
        },
        move |interp, u, st, p, extra| {
            let Some(p) = p else {
                bail!(
                    TypeError,
                    "update_fn() missing 1 required positional argument: 'params'"
                );
            };
            search(interp, b, u, st, p, extra)
        },
    ))
}

/// `value_and_grad_from_state(fn)(params, state=state)`: the value and
/// gradient a line search stored, or fresh ones when the stored value is
/// not finite.
fn value_and_grad_from_state(_: &mut Interp, a: Args) -> Result<Obj> {
    let f = a.req(Some(0), "value_fn", "value_and_grad_from_state")?;
    Ok(Obj::native(
        "value_and_grad_from_state",
        move |interp, a| {
            let params = a.req(Some(0), "params", "_value_and_grad")?;
            let st = a.req(None, "state", "_value_and_grad")?;
            // The objective's other arguments, passed on to it.
            let rest = Args::with(
                a.pos.iter().skip(1).cloned().collect(),
                a.kw.iter()
                    .filter(|(k, _)| k != "state" && k != "params")
                    .cloned()
                    .collect(),
            );
            let get = |key: &str| -> Result<Obj> {
                let mut found = vec![];
                super::tree::find_all(&st, key, &mut found)?;
                match found.pop() {
                Some(Obj::None) | None => bail!(ValueError, "Value or gradient not found in the state. Make sure that these values are stored in the state by the optimizer."),
                Some(v) => Ok(v),
            }
            };
            let (value, grad) = (get("value")?, get("grad")?);
            let v = to_value(&value)?;
            if let Value::Concrete(x) = &v {
                if x.get_f64(0).is_finite() {
                    return Ok(Obj::tuple(vec![value, grad]));
                }
                return fresh(interp, &f, params, &rest);
            }
            stored_or_fresh(interp, &f, &v, Obj::tuple(vec![value, grad]), params, rest)
        },
    ))
}

/// `jax.value_and_grad(f)(params, *rest.pos, **rest.kw)`.
fn fresh(interp: &mut Interp, f: &Obj, params: Obj, rest: &Args) -> Result<Obj> {
    let jax = super::super::import(interp, "jax")?;
    let vg = crate::python::ops::getattr(interp, &jax, "value_and_grad")?;
    let vg = interp.call(&vg, Args::new(vec![f.clone()]))?;
    let mut pos = vec![params];
    pos.extend(rest.pos.iter().cloned());
    interp.call(&vg, Args::with(pos, rest.kw.clone()))
}

/// `lax.cond(isfinite(value), stored, fresh)` for a traced stored value.
fn stored_or_fresh(
    interp: &mut Interp,
    f: &Obj,
    value: &Value,
    stored: Obj,
    params: Obj,
    rest: Args,
) -> Result<Obj> {
    let finite = jops::unary(crate::array::UnaryOp::IsFinite, value)?;
    let keep = Obj::native("<lambda>", move |_, _| Ok(stored.clone()));
    let f = f.clone();
    let fresh = Obj::native("<lambda>", move |interp, a| {
        let p = a.req(Some(0), "params", "<lambda>")?;
        self::fresh(interp, &f, p, &rest)
    });
    let jax = super::super::import(interp, "jax")?;
    let lax = crate::python::ops::getattr(interp, &jax, "lax")?;
    let cond = crate::python::ops::getattr(interp, &lax, "cond")?;
    let args = Args::new(vec![Obj::Array(finite), keep, fresh, params]);
    interp.call(&cond, args)
}

/// `lbfgs(learning_rate=None, memory_size=10, scale_init_precond=True,
/// linesearch=...)`: `scale_by_lbfgs`, a scaling by `-learning_rate` (or
/// by -1), then the line search (by default a zoom line search; None for
/// none).
fn lbfgs(a: &Args) -> Result<Obj> {
    let f = "lbfgs";
    let m = match a.opt(Some(1), "memory_size") {
        Some(Obj::Int(m)) => m,
        Some(_) => bail!(TypeError, "memory_size must be an int"),
        None => 10,
    };
    let precond = scale_by_lbfgs(m, flag(a, Some(2), "scale_init_precond", true)?);
    let scaling = match a.opt(Some(0), "learning_rate") {
        None => super::transforms::scale(super::base::Hyper::Num(-1.0)),
        Some(_) => super::transforms::scale_by_learning_rate(
            super::base::Rate::arg(a, Some(0), "learning_rate", None, f)?,
            true,
        )?,
    };
    let linesearch = match a.get(Some(3), "linesearch") {
        None => super::zoom::lbfgs_default()?,
        Some(Obj::None) => super::base::stateless(|_, u, _| Ok(u.clone())),
        Some(ls) => ls,
    };
    Ok(super::transforms::chain(vec![precond, scaling, linesearch]))
}

/// Registers the L-BFGS transformation and the line search.
pub(super) fn register(b: &mut Builder) {
    b.func("scale_by_lbfgs", |_, a| {
        let m = match a.opt(Some(0), "memory_size") {
            Some(Obj::Int(m)) => m,
            Some(_) => bail!(TypeError, "memory_size must be an int"),
            None => 10,
        };
        Ok(scale_by_lbfgs(
            m,
            flag(&a, Some(1), "scale_init_precond", true)?,
        ))
    });
    b.func("scale_by_backtracking_linesearch", |_, a| backtracking(&a));
    b.func("lbfgs", |_, a| lbfgs(&a));
    b.func("scale_by_zoom_linesearch", |_, a| {
        super::zoom::scale_by_zoom_linesearch(&a)
    });
    b.func("value_and_grad_from_state", value_and_grad_from_state);
}
