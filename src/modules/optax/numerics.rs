//! Optax's public numerics for writing optimizers: the moment updates and
//! bias correction over pytrees (`optax.update_moment`, ...; also in
//! `optax.tree` and, prefixed `tree_`, in `optax.tree_utils`), the norms
//! that stay away from zero (`safe_norm`, `safe_root_mean_squares`), and
//! `adaptive_grad_clip`, which clips each unit's gradient relative to its
//! parameter's norm.
//!
//! Each is a few jnp calls in optax's order, made through the interpreter
//! (see [`super::compose`]), so Python-number hyperparameters combine in
//! double precision before they meet an array, as they do in optax.

use rustpython_parser::ast::Operator;

use crate::bail;
use crate::error::Result;
use crate::python::interp::Interp;
use crate::python::pytree::{flatten, unflatten};
use crate::python::value::{Args, Obj};

use super::super::Builder;
use super::compose::{add, arith, attr, div, jnp, jnp_kw, mul, sub};

/// `f(g, t)` over the leaves of two trees of one structure.
fn map2(
    interp: &mut Interp,
    a: &Obj,
    b: &Obj,
    mut f: impl FnMut(&mut Interp, &Obj, &Obj) -> Result<Obj>,
) -> Result<Obj> {
    let (xs, def) = flatten(interp, a)?;
    let (ys, _) = flatten(interp, b)?;
    if xs.len() != ys.len() {
        bail!(
            ValueError,
            "Custom node type mismatch; expected a tree with {} leaves, got {}",
            xs.len(),
            ys.len()
        );
    }
    let mut out = vec![];
    for (x, y) in xs.iter().zip(&ys) {
        out.push(f(interp, x, y)?);
    }
    unflatten(interp, &def, &out)
}

/// `(1 - decay) * g ** order + decay * t`, with `g ** order` given.
fn moment_step(interp: &mut Interp, gk: &Obj, t: &Obj, decay: &Obj) -> Result<Obj> {
    let keep = sub(interp, &Obj::Int(1), decay)?;
    let new = mul(interp, &keep, gk)?;
    let old = mul(interp, decay, t)?;
    add(interp, &new, &old)
}

fn update_moment(interp: &mut Interp, a: Args, per_elem: bool) -> Result<Obj> {
    let f = "update_moment";
    let updates = a.req(Some(0), "updates", f)?;
    let moments = a.req(Some(1), "moments", f)?;
    let decay = a.req(Some(2), "decay", f)?;
    let order = a.req(Some(3), "order", f)?;
    map2(interp, &updates, &moments, |interp, g, t| {
        if per_elem {
            let real = jnp(interp, "isrealobj", vec![g.clone()])?;
            if !interp.truth(&real, f)? {
                bail!(
                    NotImplementedError,
                    "not supported by shardlab yet: optax.update_moment_per_elem_norm of complex updates"
                );
            }
        }
        let gk = arith(interp, Operator::Pow, g, &order)?;
        moment_step(interp, &gk, t, &decay)
    })
}

fn update_infinity_moment(interp: &mut Interp, a: Args) -> Result<Obj> {
    let f = "update_infinity_moment";
    let updates = a.req(Some(0), "updates", f)?;
    let moments = a.req(Some(1), "moments", f)?;
    let decay = a.req(Some(2), "decay", f)?;
    let eps = a.req(Some(3), "eps", f)?;
    map2(interp, &updates, &moments, |interp, g, t| {
        let m = jnp(interp, "abs", vec![g.clone()])?;
        let m = add(interp, &m, &eps)?;
        let d = mul(interp, &decay, t)?;
        jnp(interp, "maximum", vec![m, d])
    })
}

/// `bias_correction(moment, decay, count)`: each leaf over
/// `1 - decay ** count`. Optax jits it, so the decay and the count are
/// arrays (Python numbers weakly typed) before they combine.
fn bias_correction(interp: &mut Interp, a: Args) -> Result<Obj> {
    let f = "bias_correction";
    let moment = a.req(Some(0), "moment", f)?;
    let decay = jnp(interp, "asarray", vec![a.req(Some(1), "decay", f)?])?;
    let count = jnp(interp, "asarray", vec![a.req(Some(2), "count", f)?])?;
    let power = arith(interp, Operator::Pow, &decay, &count)?;
    let bc = sub(interp, &Obj::Int(1), &power)?;
    let (leaves, def) = flatten(interp, &moment)?;
    let mut out = vec![];
    for t in leaves {
        let dtype = attr(interp, &t, "dtype")?;
        let b = jnp(interp, "astype", vec![bc.clone(), dtype])?;
        out.push(div(interp, &t, &b)?);
    }
    unflatten(interp, &def, &out)
}

/// Registers the tree functions on `b`, each named `prefix` + its name
/// (`optax.tree_utils` prefixes `tree_`).
pub(super) fn register_tree(b: &mut Builder, prefix: &str) {
    let n = |s: &str| format!("{prefix}{s}");
    b.func(&n("update_moment"), |i, a| update_moment(i, a, false));
    b.func(&n("update_moment_per_elem_norm"), |i, a| {
        update_moment(i, a, true)
    });
    b.func(&n("update_infinity_moment"), update_infinity_moment);
    b.func(&n("bias_correction"), bias_correction);
}

/// `safe_norm(x, min_norm, ord=None, axis=None, keepdims=False)`: the
/// norm, or `min_norm` where the norm is at most that, with a gradient
/// that stays finite at zero.
fn safe_norm(interp: &mut Interp, a: Args) -> Result<Obj> {
    let x = a.req(Some(0), "x", "safe_norm")?;
    let min = a.req(Some(1), "min_norm", "safe_norm")?;
    let ord = a.get(Some(2), "ord").unwrap_or(Obj::None);
    let axis = a.get(Some(3), "axis").unwrap_or(Obj::None);
    let keepdims = super::base::flag(&a, Some(4), "keepdims", false)?;
    let norm_of = |interp: &mut Interp, x: Obj, keep: bool| {
        let kw = vec![
            ("ord", ord.clone()),
            ("axis", axis.clone()),
            ("keepdims", Obj::Bool(keep)),
        ];
        let jnp_module = super::super::import(interp, "jax.numpy")?;
        let linalg = crate::python::ops::getattr(interp, &jnp_module, "linalg")?;
        let norm = crate::python::ops::getattr(interp, &linalg, "norm")?;
        let kw = kw.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        interp.call(&norm, Args::with(vec![x], kw))
    };
    let norm = norm_of(interp, x.clone(), true)?;
    let small = jnp(interp, "less_equal", vec![norm.clone(), min.clone()])?;
    let ones = jnp(interp, "ones_like", vec![x.clone()])?;
    let x = jnp(interp, "where", vec![small, ones, x])?;
    let norm = match keepdims {
        true => norm,
        false => jnp_kw(interp, "squeeze", vec![norm], vec![("axis", axis.clone())])?,
    };
    let masked = norm_of(interp, x, keepdims)?;
    let small = jnp(interp, "less_equal", vec![norm, min.clone()])?;
    jnp(interp, "where", vec![small, min, masked])
}

/// `safe_root_mean_squares(x, min_rms)`: the root mean square, or
/// `min_rms` where it is at most that.
fn safe_root_mean_squares(interp: &mut Interp, a: Args) -> Result<Obj> {
    let x = a.req(Some(0), "x", "safe_root_mean_squares")?;
    let min = a.req(Some(1), "min_rms", "safe_root_mean_squares")?;
    let rms = |interp: &mut Interp, x: &Obj| {
        let sq = abs_sq(interp, x)?;
        let m = jnp(interp, "mean", vec![sq])?;
        jnp(interp, "sqrt", vec![m])
    };
    let r = rms(interp, &x)?;
    let small = jnp(interp, "less_equal", vec![r, min.clone()])?;
    let ones = jnp(interp, "ones_like", vec![x.clone()])?;
    let x = jnp(interp, "where", vec![small.clone(), ones, x])?;
    let r = rms(interp, &x)?;
    jnp(interp, "where", vec![small, min, r])
}

/// `|x|^2` as optax computes it, `(conj(x) * x).real`.
fn abs_sq(interp: &mut Interp, x: &Obj) -> Result<Obj> {
    let c = jnp(interp, "conj", vec![x.clone()])?;
    let p = mul(interp, &c, x)?;
    jnp(interp, "real", vec![p])
}

/// The norm of each unit of `x` (its output column for a matrix, its
/// filter for a convolution kernel), broadcast back to `x`'s shape.
fn unitwise_norm(interp: &mut Interp, x: &Obj, axis: &Obj) -> Result<Obj> {
    let sq = abs_sq(interp, x)?;
    let shape = jnp(interp, "shape", vec![x.clone()])?;
    let ndim = match &shape {
        Obj::Tuple(t) => t.len(),
        _ => 0,
    };
    let squeezed = jnp(interp, "squeeze", vec![x.clone()])?;
    let squeezed = jnp(interp, "ndim", vec![squeezed])?;
    let axes = if !matches!(axis, Obj::None) {
        axis.clone()
    } else if crate::python::builtins::to_int(&squeezed)? <= 1 {
        Obj::None
    } else {
        let n = match ndim {
            2 | 3 => 1,
            4 => 3,
            5 => 4,
            _ => bail!(
                ValueError,
                "Expected parameter with shape in (1, 2, 3, 4, 5), got {}. Use axis parameter to specify reduction axes for other shapes.",
                interp.repr(&shape)?
            ),
        };
        Obj::tuple((0..n).map(Obj::Int).collect())
    };
    let s = jnp_kw(
        interp,
        "sum",
        vec![sq],
        vec![("axis", axes), ("keepdims", Obj::Bool(true))],
    )?;
    let r = jnp(interp, "sqrt", vec![s])?;
    jnp(interp, "broadcast_to", vec![r, shape])
}

/// `adaptive_grad_clip(clipping, eps=1e-3, axis=None)`: each unit's
/// gradient clipped to `clipping` times its parameter's norm (at least
/// `eps`).
fn adaptive_grad_clip(a: &Args) -> Result<Obj> {
    let clipping = a.req(Some(0), "clipping", "adaptive_grad_clip")?;
    let eps = a.opt(Some(1), "eps").unwrap_or(Obj::Float(1e-3));
    let axis = a.get(Some(2), "axis").unwrap_or(Obj::None);
    let update = Obj::native("update_fn", move |interp, a| {
        let u = a.req(Some(0), "updates", "update_fn")?;
        let st = a.req(Some(1), "state", "update_fn")?;
        let p = match a.get(Some(2), "params") {
            None => bail!(
                TypeError,
                "adaptive_grad_clip.<locals>.update_fn() missing 1 required positional argument: 'params'"
            ),
            Some(Obj::None) => bail!(ValueError, "{}", super::utilities::NO_PARAMS),
            Some(p) => p,
        };
        let u = map2(interp, &u, &p, |interp, g, p| {
            let g_norm = unitwise_norm(interp, g, &axis)?;
            let p_norm = unitwise_norm(interp, p, &axis)?;
            let floor = jnp(interp, "maximum", vec![p_norm, eps.clone()])?;
            let max_norm = mul(interp, &clipping, &floor)?;
            let denom = jnp(interp, "maximum", vec![g_norm.clone(), Obj::Float(1e-6)])?;
            let ratio = div(interp, &max_norm, &denom)?;
            let clipped = mul(interp, g, &ratio)?;
            let under = jnp(interp, "less", vec![g_norm, max_norm])?;
            jnp(interp, "where", vec![under, g.clone(), clipped])
        })?;
        Ok(Obj::tuple(vec![u, st]))
    });
    Ok(super::utilities::plain_empty(update))
}

/// Registers the functions on `optax`.
pub(super) fn register(b: &mut Builder) {
    register_tree(b, "");
    b.func("safe_norm", safe_norm);
    b.func("safe_root_mean_squares", safe_root_mean_squares);
    b.func("adaptive_grad_clip", |_, a| adaptive_grad_clip(&a));
}
