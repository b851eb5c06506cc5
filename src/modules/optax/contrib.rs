//! `optax.contrib`: `normalize`, `sam` (sharpness-aware minimisation, in
//! its transparent and opaque modes), `ademamix` and
//! `simplified_ademamix` with their `scale_by_*` transformations, and `muon`
//! (in [`super::muon`]). The
//! module's other names are refused by name.

use crate::error::Result;
use crate::python::array::to_value;
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};
use crate::trace::Value;
use crate::{bail, ops as jops};

use super::super::Builder;
use super::base::{
    call_init, call_update, field, flag, global_norm, hmul, leaves_of, safe_increment, schedule_at,
    state, stateless, transformation, tree_map, zero_count, zeros_tree, Hyper, Rate,
};
use super::transforms::{
    add_decayed_weights, bias_correction, chain, moment, scale_by_learning_rate,
};

/// `normalize()`: every update divided by the global norm.
fn normalize() -> Obj {
    stateless(|interp, u, _| {
        let (leaves, _) = leaves_of(interp, u)?;
        let norm = global_norm(&leaves)?;
        tree_map(interp, &[u], |x| jops::div(x[0], &norm))
    })
}

/// `cond * a + (1 - cond) * b` leaf by leaf (optax's way of choosing
/// between two trees; NaNs in either side propagate).
fn pick_one(interp: &mut Interp, cond: &Value, a: &Obj, b: &Obj) -> Result<Obj> {
    let one = crate::python::array::weak_scalar(1.0, crate::array::DType::I32);
    let other = jops::sub(&one, cond)?;
    tree_map(interp, &[a, b], |x| {
        jops::add(&jops::mul(cond, x[0])?, &jops::mul(&other, x[1])?)
    })
}

fn sam_state(steps: Obj, opt: Obj, adv: Obj, cache: Obj) -> Obj {
    state(
        "SAMState",
        vec![
            ("steps_since_sync", steps),
            ("opt_state", opt),
            ("adv_state", adv),
            ("cache", cache),
        ],
    )
}

/// `-x` for every leaf.
fn negate(interp: &mut Interp, t: &Obj) -> Result<Obj> {
    tree_map(interp, &[t], |x| jops::neg(x[0]))
}

/// The transparent SAM step: adversarial steps away from the cached
/// parameters, and every `period` steps one step of the outer optimizer
/// from them.
fn sam_transparent(
    interp: &mut Interp,
    txs: &(Obj, Obj, i64, bool),
    u: &Obj,
    st: &Obj,
    p: &Obj,
) -> Result<(Obj, Obj)> {
    let (opt, adv, period, reset) = txs;
    let steps = to_value(&field(st, "steps_since_sync")?)?;
    let at = |v: i64| jops::scalar(v as f64, steps.dtype());
    let first = jops::equal(&steps, &at(0))?;
    let last = jops::equal(&steps, &at(period - 1))?;
    let (adv_u, adv_st) = call_update(interp, adv, u, &field(st, "adv_state")?, Some(p), &[])?;
    let adv_u = negate(interp, &adv_u)?;
    let cache = field(st, "cache")?;
    let (opt_u, opt_st) = call_update(interp, opt, u, &field(st, "opt_state")?, Some(&cache), &[])?;
    let opt_u = tree_map(interp, &[&cache, p, &opt_u], |x| {
        jops::add(&jops::sub(x[0], x[1])?, x[2])
    })?;
    let cache = pick_one(interp, &first, p, &cache)?;
    let out = pick_one(interp, &last, &opt_u, &adv_u)?;
    let old_adv = field(st, "adv_state")?;
    let adv_st = if *reset {
        let fresh = call_init(interp, adv, p)?;
        pick_one(interp, &last, &fresh, &adv_st)?
    } else {
        pick_one(interp, &last, &old_adv, &adv_st)?
    };
    let opt_st = pick_one(interp, &last, &opt_st, &field(st, "opt_state")?)?;
    let next = jops::binary(
        crate::array::BinaryOp::Rem,
        &jops::add(&steps, &at(1))?,
        &at(*period),
    )?;
    Ok((out, sam_state(Obj::Array(next), opt_st, adv_st, cache)))
}

/// The opaque SAM step: the adversarial steps taken at once through the
/// `grad_fn` the update is given, then one step of the outer optimizer.
fn sam_opaque(
    interp: &mut Interp,
    txs: &(Obj, Obj, i64, bool),
    u: &Obj,
    st: &Obj,
    p: &Obj,
    extra: &[(String, Obj)],
) -> Result<(Obj, Obj)> {
    let (opt, adv, period, reset) = txs;
    let Some((_, grad_fn)) = extra.iter().find(|(k, _)| k == "grad_fn") else {
        bail!(
            ValueError,
            "grad_fn must be provided when opaque_mode=True."
        );
    };
    let (mut adv_p, mut adv_u) = (p.clone(), u.clone());
    let mut adv_st = field(st, "adv_state")?;
    for i in 0..period - 1 {
        let (nu, ns) = call_update(interp, adv, &adv_u, &adv_st, Some(&adv_p), &[])?;
        adv_st = ns;
        let nu = negate(interp, &nu)?;
        adv_p = tree_map(interp, &[&adv_p, &nu], |x| {
            jops::convert(&jops::add(x[0], x[1])?, x[0].dtype())
        })?;
        adv_u = interp.call(grad_fn, Args::new(vec![adv_p.clone(), Obj::Int(i)]))?;
    }
    if *reset {
        adv_st = call_init(interp, adv, p)?;
    }
    let (out, opt_st) = call_update(interp, opt, &adv_u, &field(st, "opt_state")?, Some(p), &[])?;
    Ok((out, sam_state(zero_count(), opt_st, adv_st, Obj::None)))
}

fn sam(a: &Args) -> Result<Obj> {
    let f = "sam";
    let opt = a.req(Some(0), "optimizer", f)?;
    let adv = a.req(Some(1), "adv_optimizer", f)?;
    let period = match a.opt(Some(2), "sync_period") {
        Some(o) => o.as_number().map(|v| v as i64).unwrap_or(2),
        None => 2,
    };
    if period < 1 {
        bail!(ValueError, "Synchronization period must be >= 1.");
    }
    let reset = flag(a, Some(3), "reset_state", true)?;
    let opaque = flag(a, Some(4), "opaque_mode", false)?;
    if a.opt(Some(5), "batch_axis_name")
        .is_some_and(|o| !matches!(o, Obj::None))
    {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: optax.contrib.sam with batch_axis_name"
        );
    }
    let txs = (opt, adv, period, reset);
    let init_txs = txs.clone();
    Ok(transformation(
        move |interp, p| {
            let (opt, adv, _, _) = &init_txs;
            let o = call_init(interp, opt, p)?;
            let s = call_init(interp, adv, p)?;
            let cache = if opaque { Obj::None } else { p.clone() };
            Ok(sam_state(zero_count(), o, s, cache))
        },
        move |interp, u, st, p, extra| {
            let Some(p) = p else {
                bail!(
                    TypeError,
                    "update_fn() missing 1 required positional argument: 'params'"
                );
            };
            if opaque {
                sam_opaque(interp, &txs, u, st, p, extra)
            } else {
                sam_transparent(interp, &txs, u, st, p)
            }
        },
    ))
}

/// A hyperparameter that may be a schedule of a step count.
fn at_count(interp: &mut Interp, r: &Rate, count: &Value) -> Result<Hyper> {
    Ok(match r {
        Rate::Fixed(h) => h.clone(),
        Rate::Schedule(s) => Hyper::Arr(schedule_at(interp, s, count)?),
    })
}

/// The hyperparameters of `scale_by_ademamix`.
#[derive(Clone)]
struct Ademamix {
    b1: Hyper,
    b2: Hyper,
    b3: Rate,
    alpha: Rate,
    eps: Hyper,
    eps_root: Hyper,
}

/// `(m + alpha * m2) / (sqrt(v + eps_root) + eps)`.
fn mix(h: &Ademamix, m: &Value, alpha: &Hyper, m2: &Value, v: &Value) -> Result<Value> {
    let num = jops::add(m, &hmul(alpha, m2)?)?;
    let root = jops::sqrt(&jops::add(v, &h.eps_root.value())?)?;
    jops::div(&num, &jops::add(&root, &h.eps.value())?)
}

/// `scale_by_ademamix`: Adam with a second, slow moving average of the
/// gradient added to the first with weight `alpha`.
fn scale_by_ademamix(h: Ademamix) -> Obj {
    transformation(
        |interp, p| {
            let z = |i: &mut Interp| zeros_tree(i, p);
            Ok(state(
                "ScaleByAdemamixState",
                vec![
                    ("count", zero_count()),
                    ("count_m2", zero_count()),
                    ("m1", z(interp)?),
                    ("m2", z(interp)?),
                    ("nu", z(interp)?),
                ],
            ))
        },
        move |interp, u, st, _, _| {
            let count_m2 = to_value(&field(st, "count_m2")?)?;
            let b3 = at_count(interp, &h.b3, &count_m2)?;
            let alpha = at_count(interp, &h.alpha, &count_m2)?;
            let m1 = tree_map(interp, &[u, &field(st, "m1")?], |x| {
                moment(x[0], x[1], &h.b1, 1)
            })?;
            let m2 = tree_map(interp, &[u, &field(st, "m2")?], |x| {
                moment(x[0], x[1], &b3, 1)
            })?;
            let nu = tree_map(interp, &[u, &field(st, "nu")?], |x| {
                moment(x[0], x[1], &h.b2, 2)
            })?;
            let count = safe_increment(&to_value(&field(st, "count")?)?)?;
            let count_m2 = safe_increment(&count_m2)?;
            let out = tree_map(interp, &[&m1, &m2, &nu], |x| {
                let m = bias_correction(x[0], &h.b1, &count)?;
                let v = bias_correction(x[2], &h.b2, &count)?;
                mix(&h, &m, &alpha, x[1], &v)
            })?;
            let fields = vec![
                ("count", Obj::Array(count)),
                ("count_m2", Obj::Array(count_m2)),
                ("m1", m1),
                ("m2", m2),
                ("nu", nu),
            ];
            Ok((out, state("ScaleByAdemamixState", fields)))
        },
    )
}

/// `scale_by_simplified_ademamix`: an undamped momentum `m = g + b1 m`
/// plus `alpha g`, over Adam's denominator.
fn scale_by_simplified_ademamix(h: Ademamix) -> Obj {
    transformation(
        |interp, p| {
            Ok(state(
                "ScaleBySimplifiedAdEMAMixState",
                vec![
                    ("t", zero_count()),
                    ("m", zeros_tree(interp, p)?),
                    ("n", zeros_tree(interp, p)?),
                ],
            ))
        },
        move |interp, u, st, _, _| {
            let t0 = to_value(&field(st, "t")?)?;
            let alpha = at_count(interp, &h.alpha, &t0)?;
            let m = tree_map(interp, &[u, &field(st, "m")?], |x| {
                jops::add(x[0], &hmul(&h.b1, x[1])?)
            })?;
            let n = tree_map(interp, &[u, &field(st, "n")?], |x| {
                let g2 = jops::mul(x[0], x[0])?;
                jops::add(&g2, &hmul(&h.b2, &jops::sub(x[1], &g2)?)?)
            })?;
            let t = safe_increment(&t0)?;
            let out = tree_map(interp, &[&m, u, &n], |x| {
                let v = bias_correction(x[2], &h.b2, &t)?;
                mix(&h, x[0], &alpha, x[1], &v)
            })?;
            let fields = vec![("t", Obj::Array(t)), ("m", m), ("n", n)];
            Ok((out, state("ScaleBySimplifiedAdEMAMixState", fields)))
        },
    )
}

/// The ademamix hyperparameters from position `first` of `a`: `b1, b2,
/// b3, alpha, eps, eps_root` (the simplified form has no `b3`).
fn ademamix_args(a: &Args, first: usize, simplified: bool, f: &str) -> Result<Ademamix> {
    let names: &[(&str, f64)] = if simplified {
        &[
            ("b1", 0.99),
            ("b2", 0.95),
            ("alpha", 0.0),
            ("eps", 1e-8),
            ("eps_root", 0.0),
        ]
    } else {
        &[
            ("b1", 0.9),
            ("b2", 0.999),
            ("b3", 0.9999),
            ("alpha", 6.0),
            ("eps", 1e-8),
            ("eps_root", 0.0),
        ]
    };
    let pos = |n: &str| names.iter().position(|x| x.0 == n).map(|i| first + i);
    let h = |n: &str| {
        let d = names.iter().find(|x| x.0 == n).map(|x| x.1);
        Hyper::arg(a, pos(n), n, d, f)
    };
    let r = |n: &str, d: f64| Rate::arg(a, pos(n), n, Some(d), f);
    if let Some(m) = a.opt(None, "mu_dtype") {
        if !matches!(m, Obj::None) {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: optax.contrib.{f} with mu_dtype"
            );
        }
    }
    Ok(Ademamix {
        b1: h("b1")?,
        b2: h("b2")?,
        b3: if simplified {
            Rate::Fixed(Hyper::Num(0.0))
        } else {
            r("b3", 0.9999)?
        },
        alpha: r("alpha", if simplified { 0.0 } else { 6.0 })?,
        eps: h("eps")?,
        eps_root: h("eps_root")?,
    })
}

/// `ademamix` or `simplified_ademamix`: the estimator, weight decay and
/// the learning rate.
fn ademamix_alias(a: &Args, simplified: bool, f: &str) -> Result<Obj> {
    let mut h = ademamix_args(a, 1, simplified, f)?;
    if !simplified && a.opt(Some(4), "alpha").is_none() {
        h.alpha = Rate::Fixed(Hyper::Num(5.0));
    }
    let (wd_at, mask_at) = if simplified { (6, 7) } else { (8, 9) };
    let wd = Hyper::arg(a, Some(wd_at), "weight_decay", Some(0.0), f)?;
    let mut decay = add_decayed_weights(wd);
    if let Some(m) = a
        .opt(Some(mask_at), "mask")
        .filter(|m| !matches!(m, Obj::None))
    {
        decay = super::wrappers::masked(decay, m);
    }
    let rate = Rate::arg(a, Some(0), "learning_rate", None, f)?;
    let tx = if simplified {
        scale_by_simplified_ademamix(h)
    } else {
        scale_by_ademamix(h)
    };
    Ok(chain(vec![tx, decay, scale_by_learning_rate(rate, true)?]))
}

/// The names of the real `optax.contrib` that shardlab does not model yet;
/// using one is refused by name.
const MISSING: &[&str] = &[
    "GaLoreDimensionNumbers",
    "acprop",
    "adopt",
    "cocob",
    "dadapt_adamw",
    "differentially_private_aggregate",
    "dog",
    "dowg",
    "dpsgd",
    "galore",
    "hutchinson_estimator_diag_hessian",
    "madgrad",
    "mechanize",
    "momo",
    "momo_adam",
    "prodigy",
    "reduce_on_plateau",
    "scale_by_acprop",
    "scale_by_adopt",
    "scale_by_cocob",
    "scale_by_galore",
    "scale_by_madgrad",
    "sophia",
    "split_real_and_imaginary",
];

/// The `optax.contrib` module.
pub(super) fn module() -> Obj {
    let mut b = Builder::new("optax.contrib");
    b.func("normalize", |_, _| Ok(normalize()));
    b.func("sam", |_, a| sam(&a));
    b.func("scale_by_ademamix", |_, a| {
        Ok(scale_by_ademamix(ademamix_args(
            &a,
            0,
            false,
            "scale_by_ademamix",
        )?))
    });
    b.func("ademamix", |_, a| ademamix_alias(&a, false, "ademamix"));
    b.func("scale_by_simplified_ademamix", |_, a| {
        let h = ademamix_args(&a, 0, true, "scale_by_simplified_ademamix")?;
        Ok(scale_by_simplified_ademamix(h))
    });
    b.func("simplified_ademamix", |_, a| {
        ademamix_alias(&a, true, "simplified_ademamix")
    });
    super::muon::register(&mut b);
    super::contrib_schedule_free::register(&mut b);
    super::states::register(&mut b, "optax.contrib");
    for name in MISSING {
        let full = format!("optax.contrib.{name}");
        b.attr(
            name,
            Obj::native(full.clone(), move |_, _| {
                bail!(NotImplementedError, "not supported by shardlab yet: {full}")
            }),
        );
    }
    b.build()
}
