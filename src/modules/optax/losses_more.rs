//! More losses of `optax` (and `optax.losses`): the divergences
//! (`kl_divergence` and its log-target, generalized and convex forms),
//! margin losses (`hinge_loss`, `perceptron_loss` and their multiclass
//! forms, `triplet_margin_loss`), `cosine_similarity`/`cosine_distance`,
//! `log_cosh`, `sigmoid_focal_loss`, `smooth_labels`,
//! `safe_softmax_cross_entropy`, `poly_loss_cross_entropy` and `ntxent`.
//!
//! Optax writes each as a few jnp calls; they are made here through the
//! interpreter (see [`super::compose`]) in optax's order, so that dtypes,
//! weak Python scalars and the `axis`/`where` arguments behave as optax's.

use crate::error::Result;
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};

use super::super::Builder;
use super::compose::{add, attr, call, check_floating, div, jnp, jnp_kw, mul, neg, nn, sub};

/// A required argument.
fn req(a: &Args, i: usize, name: &str, func: &str) -> Result<Obj> {
    a.req(Some(i), name, func)
}

/// `axis` (default -1) and `where` (default None) at positions `i`, `i + 1`
/// (None for keyword-only ones).
fn axis_where(a: &Args, i: Option<usize>) -> (Obj, Obj) {
    let axis = a.opt(i, "axis").unwrap_or(Obj::Int(-1));
    let wh = a.opt(i.map(|i| i + 1), "where").unwrap_or(Obj::None);
    (axis, wh)
}

/// `jnp.sum(x, axis=axis, where=where)`.
fn sum(interp: &mut Interp, x: Obj, axis: &Obj, wh: &Obj) -> Result<Obj> {
    jnp_kw(
        interp,
        "sum",
        vec![x],
        vec![("axis", axis.clone()), ("where", wh.clone())],
    )
}

/// `kl_divergence(log_predictions, targets, axis=-1, where=None)`:
/// `sum(t * (log t - log_p))`, a zero target adding nothing.
fn kl_divergence(interp: &mut Interp, a: &Args, func: &str) -> Result<Obj> {
    let lp = req(a, 0, "log_predictions", func)?;
    let t = req(a, 1, "targets", func)?;
    let (axis, wh) = axis_where(a, Some(2));
    kl(interp, &lp, &t, &axis, &wh)
}

fn kl(interp: &mut Interp, lp: &Obj, t: &Obj, axis: &Obj, wh: &Obj) -> Result<Obj> {
    check_floating(interp, lp)?;
    check_floating(interp, t)?;
    let zero = jnp(interp, "equal", vec![t.clone(), Obj::Int(0)])?;
    let log_t = jnp(interp, "log", vec![t.clone()])?;
    let log_t = jnp(interp, "where", vec![zero, Obj::Int(0), log_t])?;
    let diff = sub(interp, &log_t, lp)?;
    let loss = mul(interp, t, &diff)?;
    sum(interp, loss, axis, wh)
}

/// `kl_divergence_with_log_targets`: `sum(exp(log_t) * (log_t - log_p))`.
fn kl_log_targets(interp: &mut Interp, a: &Args) -> Result<Obj> {
    let f = "kl_divergence_with_log_targets";
    let lp = req(a, 0, "log_predictions", f)?;
    let lt = req(a, 1, "log_targets", f)?;
    let (axis, wh) = axis_where(a, Some(2));
    check_floating(interp, &lp)?;
    check_floating(interp, &lt)?;
    let p = jnp(interp, "exp", vec![lt.clone()])?;
    let diff = sub(interp, &lt, &lp)?;
    let loss = mul(interp, &p, &diff)?;
    sum(interp, loss, &axis, &wh)
}

/// `generalized_kl_divergence`: the divergence plus `sum(exp(log_p) - t)`,
/// for unnormalised distributions.
fn generalized_kl(interp: &mut Interp, a: &Args, func: &str) -> Result<Obj> {
    let lp = req(a, 0, "log_predictions", func)?;
    let t = req(a, 1, "targets", func)?;
    let (axis, wh) = axis_where(a, Some(2));
    let x = kl(interp, &lp, &t, &axis, &wh)?;
    let p = jnp(interp, "exp", vec![lp])?;
    let d = sub(interp, &p, &t)?;
    let y = sum(interp, d, &axis, &wh)?;
    add(interp, &x, &y)
}

/// `convex_kl_divergence`: `generalized_kl_divergence` under its old name,
/// with optax's deprecation warning.
fn convex_kl(interp: &mut Interp, a: &Args) -> Result<Obj> {
    let msg = "The function convex_kl_divergence is deprecated. Please use generalized_kl_divergence instead.";
    if let Some(category) = interp.builtins.get("DeprecationWarning").cloned() {
        call(
            interp,
            "warnings",
            "warn",
            vec![Obj::str(msg)],
            vec![("category", category), ("stacklevel", Obj::Int(2))],
        )?;
    }
    generalized_kl(interp, a, "convex_kl_divergence")
}

/// `hinge_loss(predictor_outputs, targets)`: `max(0, 1 - y t)`.
fn hinge(interp: &mut Interp, a: &Args) -> Result<Obj> {
    let y = req(a, 0, "predictor_outputs", "hinge_loss")?;
    let t = req(a, 1, "targets", "hinge_loss")?;
    let m = mul(interp, &y, &t)?;
    let d = sub(interp, &Obj::Int(1), &m)?;
    jnp(interp, "maximum", vec![Obj::Int(0), d])
}

/// `perceptron_loss(predictor_outputs, targets)`: `max(0, -y t)`, for
/// inputs of one shape.
fn perceptron(interp: &mut Interp, a: &Args) -> Result<Obj> {
    let y = req(a, 0, "predictor_outputs", "perceptron_loss")?;
    let t = req(a, 1, "targets", "perceptron_loss")?;
    let (sy, st) = (
        jnp(interp, "shape", vec![y.clone()])?,
        jnp(interp, "shape", vec![t.clone()])?,
    );
    if !crate::python::ops::py_eq(&sy, &st) {
        let (sy, st) = (interp.repr(&sy)?, interp.repr(&st)?);
        crate::bail!(ValueError, "Shape mismatch: got {sy} and {st}.");
    }
    let ny = neg(interp, &y)?;
    let m = mul(interp, &ny, &t)?;
    jnp(interp, "maximum", vec![Obj::Int(0), m])
}

/// The dot product of the last axes of `x` and `y`, batched over the
/// others (optax's vectorised `jnp.dot`).
fn dot_last(interp: &mut Interp, x: &Obj, y: &Obj) -> Result<Obj> {
    let row = jnp(interp, "expand_dims", vec![x.clone(), Obj::Int(-2)])?;
    let col = jnp(interp, "expand_dims", vec![y.clone(), Obj::Int(-1)])?;
    let m = jnp(interp, "matmul", vec![row, col])?;
    let axes = Obj::tuple(vec![Obj::Int(-2), Obj::Int(-1)]);
    jnp(interp, "squeeze", vec![m, axes])
}

/// The scores and their labels one-hot, for the multiclass margin losses.
fn scores_one_hot(interp: &mut Interp, a: &Args, func: &str) -> Result<(Obj, Obj)> {
    let scores = req(a, 0, "scores", func)?;
    let labels = req(a, 1, "labels", func)?;
    let shape = jnp(interp, "shape", vec![scores.clone()])?;
    let n = match &shape {
        Obj::Tuple(t) if !t.is_empty() => t[t.len() - 1].clone(),
        _ => crate::bail!(IndexError, "tuple index out of range"),
    };
    let oh = nn(interp, "one_hot", vec![labels, n], vec![])?;
    Ok((scores, oh))
}

/// `multiclass_hinge_loss`: `max(scores + 1 - one_hot) - score[label]`.
fn multiclass_hinge(interp: &mut Interp, a: &Args) -> Result<Obj> {
    let (scores, oh) = scores_one_hot(interp, a, "multiclass_hinge_loss")?;
    let s1 = add(interp, &scores, &Obj::Float(1.0))?;
    let m = sub(interp, &s1, &oh)?;
    let top = jnp_kw(interp, "max", vec![m], vec![("axis", Obj::Int(-1))])?;
    let picked = dot_last(interp, &scores, &oh)?;
    sub(interp, &top, &picked)
}

/// `multiclass_perceptron_loss`: `max(scores) - score[label]`.
fn multiclass_perceptron(interp: &mut Interp, a: &Args) -> Result<Obj> {
    let (scores, oh) = scores_one_hot(interp, a, "multiclass_perceptron_loss")?;
    let top = jnp_kw(
        interp,
        "max",
        vec![scores.clone()],
        vec![("axis", Obj::Int(-1))],
    )?;
    let picked = dot_last(interp, &scores, &oh)?;
    sub(interp, &top, &picked)
}

/// `cosine_similarity(predictions, targets, *, epsilon=0., axis=-1,
/// where=None)`: the inner product of the two normalised vectors, each
/// squared norm kept at least `epsilon`.
fn cosine_similarity(interp: &mut Interp, a: &Args, func: &str) -> Result<Obj> {
    let p = req(a, 0, "predictions", func)?;
    let t = req(a, 1, "targets", func)?;
    let eps = a.opt(None, "epsilon").unwrap_or(Obj::Float(0.0));
    let (axis, wh) = axis_where(a, None);
    cosine(interp, &p, &t, &eps, &axis, &wh)
}

fn cosine(interp: &mut Interp, p: &Obj, t: &Obj, eps: &Obj, axis: &Obj, wh: &Obj) -> Result<Obj> {
    check_floating(interp, p)?;
    check_floating(interp, t)?;
    let mut units = vec![];
    for x in [p, t] {
        let sq = jnp(interp, "square", vec![x.clone()])?;
        let n2 = jnp_kw(
            interp,
            "sum",
            vec![sq],
            vec![
                ("axis", axis.clone()),
                ("where", wh.clone()),
                ("keepdims", Obj::Bool(true)),
            ],
        )?;
        let n2 = jnp(interp, "clip", vec![n2, eps.clone()])?;
        let n = jnp(interp, "sqrt", vec![n2])?;
        units.push(div(interp, x, &n)?);
    }
    let prod = mul(interp, &units[0], &units[1])?;
    sum(interp, prod, axis, wh)
}

/// `cosine_distance`: `1 - cosine_similarity`.
fn cosine_distance(interp: &mut Interp, a: &Args) -> Result<Obj> {
    let s = cosine_similarity(interp, a, "cosine_distance")?;
    sub(interp, &Obj::Float(1.0), &s)
}

/// `log_cosh(predictions, targets=None)`: `log(cosh(e))` as
/// `logaddexp(e, -e) - log 2`.
fn log_cosh(interp: &mut Interp, a: &Args) -> Result<Obj> {
    let p = req(a, 0, "predictions", "log_cosh")?;
    check_floating(interp, &p)?;
    let e = match a.opt(Some(1), "targets") {
        Some(t) if !matches!(t, Obj::None) => sub(interp, &p, &t)?,
        _ => p,
    };
    let ne = neg(interp, &e)?;
    let lae = jnp(interp, "logaddexp", vec![e.clone(), ne])?;
    let log2 = jnp(interp, "log", vec![Obj::Float(2.0)])?;
    let dtype = attr(interp, &e, "dtype")?;
    let log2 = jnp(interp, "astype", vec![log2, dtype])?;
    sub(interp, &lae, &log2)
}

/// `smooth_labels(labels, alpha, *, axis=-1, where=None)`:
/// `(1 - alpha) labels + alpha / num_categories`.
fn smooth_labels(interp: &mut Interp, a: &Args) -> Result<Obj> {
    let labels = req(a, 0, "labels", "smooth_labels")?;
    let alpha = req(a, 1, "alpha", "smooth_labels")?;
    let (axis, wh) = axis_where(a, None);
    let n = match wh {
        Obj::None => jnp(interp, "size", vec![labels.clone(), axis])?,
        w => jnp_kw(
            interp,
            "sum",
            vec![w, axis],
            vec![("keepdims", Obj::Bool(true))],
        )?,
    };
    let keep = sub(interp, &Obj::Float(1.0), &alpha)?;
    let kept = mul(interp, &keep, &labels)?;
    let spread = div(interp, &alpha, &n)?;
    add(interp, &kept, &spread)
}

fn register_divergences(b: &mut Builder) {
    b.func("kl_divergence", |i, a| {
        kl_divergence(i, &a, "kl_divergence")
    });
    b.func("kl_divergence_with_log_targets", |i, a| {
        kl_log_targets(i, &a)
    });
    b.func("generalized_kl_divergence", |i, a| {
        generalized_kl(i, &a, "generalized_kl_divergence")
    });
    b.func("convex_kl_divergence", |i, a| convex_kl(i, &a));
}

/// Registers the losses on `b` (the `optax` module or `optax.losses`).
pub(super) fn register(b: &mut Builder) {
    register_divergences(b);
    b.func("hinge_loss", |i, a| hinge(i, &a));
    b.func("perceptron_loss", |i, a| perceptron(i, &a));
    b.func("multiclass_hinge_loss", |i, a| multiclass_hinge(i, &a));
    b.func("multiclass_perceptron_loss", |i, a| {
        multiclass_perceptron(i, &a)
    });
    b.func("cosine_similarity", |i, a| {
        cosine_similarity(i, &a, "cosine_similarity")
    });
    b.func("cosine_distance", |i, a| cosine_distance(i, &a));
    b.func("log_cosh", |i, a| log_cosh(i, &a));
    b.func("smooth_labels", |i, a| smooth_labels(i, &a));
    super::losses_cross::register(b);
}
