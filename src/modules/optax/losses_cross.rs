//! The cross-entropy family of `optax` losses beyond the plain ones:
//! `sigmoid_focal_loss`, `safe_softmax_cross_entropy`,
//! `poly_loss_cross_entropy`, and the embedding losses `ntxent` and
//! `triplet_margin_loss`, composed of jnp calls in optax's order (see
//! [`super::compose`]).

use rustpython_parser::ast::Operator;

use crate::error::Result;
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};

use super::super::Builder;
use super::compose::{add, arith, attr, call, check_floating, div, jnp, jnp_kw, mul, neg, nn, sub};

fn kw(interp: &mut Interp, name: &str, x: Obj, kws: Vec<(&str, Obj)>) -> Result<Obj> {
    jnp_kw(interp, name, vec![x], kws)
}

fn stop_gradient(interp: &mut Interp, x: Obj) -> Result<Obj> {
    call(interp, "jax.lax", "stop_gradient", vec![x], vec![])
}

/// `logsumexp(a, axis=-1, b=b)` for real `a` and `b`, as JAX computes it:
/// the terms `b` zeroes are left out, the maximum is taken out before the
/// exponentials, and a negative sum is NaN.
fn logsumexp_b(interp: &mut Interp, a: Obj, b: Obj) -> Result<Obj> {
    let nonzero = jnp(interp, "not_equal", vec![b.clone(), Obj::Int(0)])?;
    let a = jnp(
        interp,
        "where",
        vec![nonzero, a, Obj::Float(f64::NEG_INFINITY)],
    )?;
    let amax = kw(interp, "max", a.clone(), vec![("axis", Obj::Int(-1))])?;
    let finite = jnp(interp, "isfinite", vec![amax.clone()])?;
    let amax = jnp(interp, "where", vec![finite, amax, Obj::Int(0)])?;
    let amax = stop_gradient(interp, amax)?;
    let wide = jnp(interp, "expand_dims", vec![amax.clone(), Obj::Int(-1)])?;
    let shifted = sub(interp, &a, &wide)?;
    let e = jnp(interp, "exp", vec![shifted])?;
    let e = mul(interp, &e, &b)?;
    let total = kw(interp, "sum", e, vec![("axis", Obj::Int(-1))])?;
    let sign = jnp(interp, "sign", vec![total.clone()])?;
    let total = jnp(interp, "abs", vec![total])?;
    let log = jnp(interp, "log", vec![total])?;
    let out = add(interp, &log, &amax)?;
    let negative = jnp(interp, "less", vec![sign, Obj::Int(0)])?;
    jnp(interp, "where", vec![negative, Obj::Float(f64::NAN), out])
}

/// `sigmoid_focal_loss(logits, labels, *, alpha=None, gamma=2.)`: the
/// binary cross entropy weighted by `(1 - p_t) ** gamma`, computed in log
/// space, and by `alpha` for the positives when given.
fn sigmoid_focal(interp: &mut Interp, a: &Args) -> Result<Obj> {
    let f = "sigmoid_focal_loss";
    let logits = a.req(Some(0), "logits", f)?;
    let labels = a.req(Some(1), "labels", f)?;
    let alpha = a.opt(None, "alpha").unwrap_or(Obj::None);
    let gamma = a.opt(None, "gamma").unwrap_or(Obj::Float(2.0));
    check_floating(interp, &logits)?;
    let dtype = attr(interp, &logits, "dtype")?;
    let labels = jnp(interp, "astype", vec![labels, dtype])?;
    let ce = call(
        interp,
        "optax",
        "sigmoid_binary_cross_entropy",
        vec![logits.clone(), labels.clone()],
        vec![],
    )?;
    let log_p = nn(interp, "log_sigmoid", vec![logits.clone()], vec![])?;
    let minus = neg(interp, &logits)?;
    let log_q = nn(interp, "log_sigmoid", vec![minus], vec![])?;
    let terms = Obj::list(vec![log_p, log_q]);
    let terms = kw(interp, "stack", terms, vec![("axis", Obj::Int(-1))])?;
    let not_labels = sub(interp, &Obj::Int(1), &labels)?;
    let weights = Obj::list(vec![not_labels, labels.clone()]);
    let weights = kw(interp, "stack", weights, vec![("axis", Obj::Int(-1))])?;
    let log_one_minus_pt = logsumexp_b(interp, terms, weights)?;
    let scaled = mul(interp, &gamma, &log_one_minus_pt)?;
    let focal = jnp(interp, "exp", vec![scaled])?;
    let loss = mul(interp, &ce, &focal)?;
    if matches!(alpha, Obj::None) {
        return Ok(loss);
    }
    let pos = mul(interp, &alpha, &labels)?;
    let one = Obj::Float(1.0);
    let neg_alpha = sub(interp, &one, &alpha)?;
    let neg_labels = sub(interp, &one, &labels)?;
    let negs = mul(interp, &neg_alpha, &neg_labels)?;
    let w = add(interp, &pos, &negs)?;
    mul(interp, &w, &loss)
}

/// `safe_softmax_cross_entropy(logits, labels)`: the cross entropy with
/// `0 * log 0` taken as 0 (a `-inf` logit with a zero label adds nothing).
fn safe_softmax_ce(interp: &mut Interp, a: &Args) -> Result<Obj> {
    let f = "safe_softmax_cross_entropy";
    let logits = a.req(Some(0), "logits", f)?;
    let labels = a.req(Some(1), "labels", f)?;
    check_floating(interp, &logits)?;
    let ls = nn(
        interp,
        "log_softmax",
        vec![logits],
        vec![("axis", Obj::Int(-1))],
    )?;
    let nonzero = jnp(interp, "not_equal", vec![labels.clone(), Obj::Float(0.0)])?;
    let weighted = mul(interp, &labels, &ls)?;
    let zeros = jnp(interp, "zeros_like", vec![ls])?;
    let w = jnp(interp, "where", vec![nonzero, weighted, zeros])?;
    let s = kw(interp, "sum", w, vec![("axis", Obj::Int(-1))])?;
    neg(interp, &s)
}

/// `softmax(logits, axis, where)` or `log_softmax`, passing `where` only
/// when given.
fn softmax_of(interp: &mut Interp, name: &str, logits: &Obj, axis: &Obj, wh: &Obj) -> Result<Obj> {
    let mut kws = vec![("axis", axis.clone())];
    if !matches!(wh, Obj::None) {
        kws.push(("where", wh.clone()));
    }
    nn(interp, name, vec![logits.clone()], kws)
}

/// `poly_loss_cross_entropy(logits, labels, *, epsilon=2., axis=-1,
/// where=None)`: the cross entropy plus `epsilon` times `1 - p_t`.
fn poly_loss(interp: &mut Interp, a: &Args) -> Result<Obj> {
    let f = "poly_loss_cross_entropy";
    let logits = a.req(Some(0), "logits", f)?;
    let labels = a.req(Some(1), "labels", f)?;
    let eps = a.opt(None, "epsilon").unwrap_or(Obj::Float(2.0));
    let axis = a.opt(None, "axis").unwrap_or(Obj::Int(-1));
    let wh = a.opt(None, "where").unwrap_or(Obj::None);
    check_floating(interp, &logits)?;
    check_floating(interp, &labels)?;
    let sum_kw = |axis: &Obj, wh: &Obj| vec![("axis", axis.clone()), ("where", wh.clone())];
    let p = softmax_of(interp, "softmax", &logits, &axis, &wh)?;
    let q = sub(interp, &Obj::Int(1), &p)?;
    let lq = mul(interp, &labels, &q)?;
    let one_minus_pt = kw(interp, "sum", lq, sum_kw(&axis, &wh))?;
    // optax.softmax_cross_entropy, with `where` widened to the logits.
    let mut wh_ce = wh.clone();
    if !matches!(wh, Obj::None) {
        let (wn, ln) = (attr(interp, &wh, "ndim")?, attr(interp, &logits, "ndim")?);
        if !crate::python::ops::py_eq(&wn, &ln) {
            wh_ce = jnp(interp, "expand_dims", vec![wh, axis.clone()])?;
        }
    }
    let ls = softmax_of(interp, "log_softmax", &logits, &axis, &wh_ce)?;
    let lls = mul(interp, &labels, &ls)?;
    let s = kw(interp, "sum", lls, sum_kw(&axis, &wh_ce))?;
    let ce = neg(interp, &s)?;
    let extra = mul(interp, &eps, &one_minus_pt)?;
    add(interp, &ce, &extra)
}

/// `triplet_margin_loss(anchors, positives, negatives, axis=-1,
/// norm_degree=2, margin=1., eps=1e-6)`.
fn triplet_margin(interp: &mut Interp, a: &Args) -> Result<Obj> {
    let f = "triplet_margin_loss";
    let anchors = a.req(Some(0), "anchors", f)?;
    let pos = a.req(Some(1), "positives", f)?;
    let negs = a.req(Some(2), "negatives", f)?;
    let axis = a.opt(Some(3), "axis").unwrap_or(Obj::Int(-1));
    let degree = a.opt(Some(4), "norm_degree").unwrap_or(Obj::Int(2));
    let margin = a.opt(Some(5), "margin").unwrap_or(Obj::Float(1.0));
    let eps = a.opt(Some(6), "eps").unwrap_or(Obj::Float(1e-6));
    for x in [&anchors, &pos, &negs] {
        check_floating(interp, x)?;
    }
    let inv = div(interp, &Obj::Int(1), &degree)?;
    let mut dist = vec![];
    for other in [&pos, &negs] {
        let d = sub(interp, &anchors, other)?;
        let p = jnp(interp, "power", vec![d, degree.clone()])?;
        let s = jnp(interp, "sum", vec![p, axis.clone()])?;
        let s = add(interp, &s, &eps)?;
        dist.push(jnp(interp, "power", vec![s, inv.clone()])?);
    }
    let gap = sub(interp, &dist[0], &dist[1])?;
    let gap = add(interp, &gap, &margin)?;
    jnp(interp, "maximum", vec![gap, Obj::Int(0)])
}

/// `ntxent(embeddings, labels, temperature=0.07)`: the normalised
/// temperature-scaled cross entropy of SimCLR over the pairs of equal
/// labels.
fn ntxent(interp: &mut Interp, a: &Args) -> Result<Obj> {
    let e = a.req(Some(0), "embeddings", "ntxent")?;
    let labels = a.req(Some(1), "labels", "ntxent")?;
    let temp = a.opt(Some(2), "temperature").unwrap_or(Obj::Float(0.07));
    check_floating(interp, &e)?;
    let (n_l, n_e) = (leading(interp, &labels)?, leading(interp, &e)?);
    if n_l != n_e {
        crate::bail!(
            ValueError,
            "Labels and embeddings must have the same leading dimension, found {n_l} for labels and {n_e} for embeddings."
        );
    }
    let dtype = attr(interp, &e, "dtype")?;
    let finfo = jnp(interp, "finfo", vec![dtype])?;
    let eps = attr(interp, &finfo, "eps")?;
    let rows = jnp(interp, "expand_dims", vec![e.clone(), Obj::Int(0)])?;
    let cols = jnp(interp, "expand_dims", vec![e, Obj::Int(1)])?;
    let sim = call(
        interp,
        "optax",
        "cosine_similarity",
        vec![rows, cols],
        vec![("epsilon", eps)],
    )?;
    let xcs = div(interp, &sim, &temp)?;
    let l1 = jnp(interp, "expand_dims", vec![labels.clone(), Obj::Int(1)])?;
    let l2 = jnp(interp, "expand_dims", vec![labels, Obj::Int(0)])?;
    let matches = jnp(interp, "equal", vec![l1, l2])?;
    let diffs = arith(interp, Operator::BitXor, &matches, &Obj::Int(1))?;
    let eye = jnp(interp, "eye", vec![Obj::Int(n_l)])?;
    let off = sub(interp, &matches, &eye)?;
    let matches = jnp(interp, "bool_", vec![off])?;
    ntxent_loss(interp, &xcs, &diffs, &matches)
}

/// The length of the first axis of `x`.
fn leading(interp: &mut Interp, x: &Obj) -> Result<i64> {
    match jnp(interp, "shape", vec![x.clone()])? {
        Obj::Tuple(t) if !t.is_empty() => crate::python::builtins::to_int(&t[0]),
        _ => crate::bail!(IndexError, "tuple index out of range"),
    }
}

/// The log-softmax of each matching pair against the non-matching ones,
/// averaged over the matching pairs.
fn ntxent_loss(interp: &mut Interp, xcs: &Obj, diffs: &Obj, matches: &Obj) -> Result<Obj> {
    let minus_inf = Obj::Float(f64::NEG_INFINITY);
    let mut masked = vec![];
    for m in [diffs, matches] {
        let on = jnp(interp, "equal", vec![m.clone(), Obj::Int(1)])?;
        masked.push(jnp(
            interp,
            "where",
            vec![on, xcs.clone(), minus_inf.clone()],
        )?);
    }
    let comb = Obj::tuple(masked.clone());
    let comb = kw(interp, "concatenate", comb, vec![("axis", Obj::Int(-1))])?;
    let top = kw(
        interp,
        "max",
        comb,
        vec![("axis", Obj::Int(1)), ("keepdims", Obj::Bool(true))],
    )?;
    let top = stop_gradient(interp, top)?;
    let shift_diffs = sub(interp, &masked[0], &top)?;
    let numer = sub(interp, &masked[1], &top)?;
    let numer_exp = jnp(interp, "exp", vec![numer.clone()])?;
    let ed = jnp(interp, "exp", vec![shift_diffs])?;
    let denom = kw(
        interp,
        "sum",
        ed,
        vec![("axis", Obj::Int(1)), ("keepdims", Obj::Bool(true))],
    )?;
    let denom = add(interp, &denom, &numer_exp)?;
    let log_denom = jnp(interp, "log", vec![denom])?;
    let log_softm = sub(interp, &numer, &log_denom)?;
    let on = jnp(interp, "equal", vec![matches.clone(), Obj::Int(1)])?;
    let picked = jnp(interp, "where", vec![on, log_softm, Obj::Float(0.0)])?;
    let total = jnp(interp, "sum", vec![picked])?;
    let total = neg(interp, &total)?;
    let count = jnp(interp, "sum", vec![matches.clone()])?;
    div(interp, &total, &count)
}

/// Registers the losses on `b`.
pub(super) fn register(b: &mut Builder) {
    b.func("sigmoid_focal_loss", |i, a| sigmoid_focal(i, &a));
    b.func("safe_softmax_cross_entropy", |i, a| safe_softmax_ce(i, &a));
    b.func("poly_loss_cross_entropy", |i, a| poly_loss(i, &a));
    b.func("triplet_margin_loss", |i, a| triplet_margin(i, &a));
    b.func("ntxent", |i, a| ntxent(i, &a));
}
