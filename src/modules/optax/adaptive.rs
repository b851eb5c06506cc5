//! The adaptive moment estimators beyond Adam: `scale_by_adamax`,
//! `scale_by_amsgrad`, `scale_by_radam`, `scale_by_yogi`, `scale_by_adan`,
//! `scale_by_adadelta` and `scale_by_novograd`.
//!
//! Each is written leaf by leaf in float32 with optax's order of
//! operations; Python-number hyperparameters combine in double precision
//! first, as they do in optax.

use crate::error::Result;
use crate::python::array::to_value;
use crate::python::value::{Args, Obj};
use crate::trace::Value;
use crate::{bail, ops as jops};

use super::super::Builder;
use super::base::{
    field, flag, hmul, initial_tree, safe_increment, state, transformation, tree_map, zero_count,
    zeros_tree, Hyper,
};
use super::transforms::{adam_moments, bias_correction, c, moment, moments_state, AdamHyper};

/// The updated count of a state's `count` field.
fn next_count(st: &Obj, name: &str) -> Result<Value> {
    safe_increment(&to_value(&field(st, name)?)?)
}

/// `scale_by_adamax(b1, b2, eps)`: the first moment over an exponentially
/// weighted infinity norm.
pub(super) fn scale_by_adamax(b1: Hyper, b2: Hyper, eps: Hyper) -> Obj {
    transformation(
        |interp, p| moments_state("ScaleByAdamState", interp, p),
        move |interp, u, st, _, _| {
            let count = next_count(st, "count")?;
            let mu = tree_map(interp, &[u, &field(st, "mu")?], |x| {
                moment(x[0], x[1], &b1, 1)
            })?;
            let nu = tree_map(interp, &[u, &field(st, "nu")?], |x| {
                let a = jops::add(&jops::abs(x[0])?, &eps.value())?;
                jops::maximum(&a, &hmul(&b2, x[1])?)
            })?;
            let out = tree_map(interp, &[&mu, &nu], |x| {
                jops::div(&bias_correction(x[0], &b1, &count)?, x[1])
            })?;
            let st = state(
                "ScaleByAdamState",
                vec![("count", Obj::Array(count)), ("mu", mu), ("nu", nu)],
            );
            Ok((out, st))
        },
    )
}

/// `scale_by_amsgrad`: Adam whose denominator uses the running maximum of
/// the (bias-corrected) second moment.
pub(super) fn scale_by_amsgrad(h: AdamHyper, correct_mu: bool, correct_nu: bool) -> Obj {
    transformation(
        |interp, p| {
            Ok(state(
                "ScaleByAmsgradState",
                vec![
                    ("count", zero_count()),
                    ("mu", zeros_tree(interp, p)?),
                    ("nu", zeros_tree(interp, p)?),
                    ("nu_max", zeros_tree(interp, p)?),
                ],
            ))
        },
        move |interp, u, st, _, _| {
            let (mu, nu) = adam_moments(interp, u, st, &h.b1, &h.b2)?;
            let count = next_count(st, "count")?;
            let nu_max = tree_map(interp, &[&field(st, "nu_max")?, &nu], |x| {
                let v = if correct_nu {
                    bias_correction(x[1], &h.b2, &count)?
                } else {
                    x[1].clone()
                };
                jops::maximum(x[0], &v)
            })?;
            let out = tree_map(interp, &[&mu, &nu_max], |x| {
                let m = if correct_mu {
                    bias_correction(x[0], &h.b1, &count)?
                } else {
                    x[0].clone()
                };
                h.ratio(&m, x[1])
            })?;
            let st = state(
                "ScaleByAmsgradState",
                vec![
                    ("count", Obj::Array(count)),
                    ("mu", mu),
                    ("nu", nu),
                    ("nu_max", nu_max),
                ],
            );
            Ok((out, st))
        },
    )
}

/// RAdam's length of the approximated simple moving average at `count`,
/// `ro_inf - 2 t b2^t / (1 - b2^t)`, and its limit `ro_inf`.
fn radam_ro(b2: &Hyper, count: &Value) -> Result<(Hyper, Value)> {
    let ro_inf = b2.map(
        |b| 2.0 / (1.0 - b) - 1.0,
        |v| jops::sub(&jops::div(&c(2.0), &jops::sub(&c(1.0), v)?)?, &c(1.0)),
    )?;
    let cf = jops::convert(count, crate::array::DType::F32)?;
    let b2t = jops::pow(&b2.value(), &cf)?;
    let twice = jops::convert(
        &jops::mul(count, &jops::scalar(2.0, count.dtype()))?,
        crate::array::DType::F32,
    )?;
    let frac = jops::div(&jops::mul(&twice, &b2t)?, &jops::sub(&c(1.0), &b2t)?)?;
    Ok((ro_inf.clone(), jops::sub(&ro_inf.value(), &frac)?))
}

/// RAdam's rectification term `sqrt((ro-4)(ro-2) ro_inf / ((ro_inf-4)(ro_inf-2) ro))`.
fn radam_r(ro_inf: &Hyper, ro: &Value) -> Result<Value> {
    let num = jops::mul(
        &jops::mul(&jops::sub(ro, &c(4.0))?, &jops::sub(ro, &c(2.0))?)?,
        &ro_inf.value(),
    )?;
    let k = ro_inf.map(
        |r| (r - 4.0) * (r - 2.0),
        |v| jops::mul(&jops::sub(v, &c(4.0))?, &jops::sub(v, &c(2.0))?),
    )?;
    jops::sqrt(&jops::div(&num, &jops::mul(&k.value(), ro)?)?)
}

/// `scale_by_radam`: Adam, rectified once the variance estimate is
/// trustworthy (`ro >= threshold`), plain momentum before.
pub(super) fn scale_by_radam(h: AdamHyper, threshold: Hyper, nesterov: bool) -> Obj {
    transformation(
        |interp, p| moments_state("ScaleByAdamState", interp, p),
        move |interp, u, st, _, _| {
            let (mu, nu) = adam_moments(interp, u, st, &h.b1, &h.b2)?;
            let count = next_count(st, "count")?;
            let (ro_inf, ro) = radam_ro(&h.b2, &count)?;
            let r = radam_r(&ro_inf, &ro)?;
            let rectify = jops::greater_equal(&ro, &threshold.value())?;
            let out = tree_map(interp, &[&mu, &nu, u], |x| {
                let m = if nesterov {
                    let next = safe_increment(&count)?;
                    let m = bias_correction(x[0], &h.b1, &next)?;
                    let g = bias_correction(x[2], &h.b1, &count)?;
                    jops::add(&hmul(&h.b1, &m)?, &hmul(&h.b1.one_minus()?, &g)?)?
                } else {
                    bias_correction(x[0], &h.b1, &count)?
                };
                let v = bias_correction(x[1], &h.b2, &count)?;
                let rect = h.ratio(&jops::mul(&r, &m)?, &v)?;
                jops::select(&rectify, &rect, &m)
            })?;
            let st = state(
                "ScaleByAdamState",
                vec![("count", Obj::Array(count)), ("mu", mu), ("nu", nu)],
            );
            Ok((out, st))
        },
    )
}

/// `scale_by_yogi`: Adam whose second moment moves additively, by the
/// sign of its distance to `g**2`.
pub(super) fn scale_by_yogi(h: AdamHyper, initial: Hyper) -> Obj {
    transformation(
        move |interp, p| {
            Ok(state(
                "ScaleByAdamState",
                vec![
                    ("count", zero_count()),
                    ("mu", initial_tree(interp, p, &initial, "scale_by_yogi")?),
                    ("nu", initial_tree(interp, p, &initial, "scale_by_yogi")?),
                ],
            ))
        },
        move |interp, u, st, _, _| {
            let mu = tree_map(interp, &[u, &field(st, "mu")?], |x| {
                moment(x[0], x[1], &h.b1, 1)
            })?;
            let nu = tree_map(interp, &[u, &field(st, "nu")?], |x| {
                let g2 = jops::mul(x[0], x[0])?;
                let s = jops::sign(&jops::sub(x[1], &g2)?)?;
                let step = jops::mul(&hmul(&h.b2.one_minus()?, &s)?, &g2)?;
                jops::sub(x[1], &step)
            })?;
            let count = next_count(st, "count")?;
            let out = tree_map(interp, &[&mu, &nu], |x| {
                let m = bias_correction(x[0], &h.b1, &count)?;
                h.ratio(&m, &bias_correction(x[1], &h.b2, &count)?)
            })?;
            let st = state(
                "ScaleByAdamState",
                vec![("count", Obj::Array(count)), ("mu", mu), ("nu", nu)],
            );
            Ok((out, st))
        },
    )
}

/// `scale_by_adan`: moments of the gradient, of its change since the last
/// step, and of their combination's square.
pub(super) fn scale_by_adan(h: AdamHyper, b3: Hyper) -> Obj {
    transformation(
        |interp, p| {
            let z = |i: &mut crate::python::interp::Interp| zeros_tree(i, p);
            Ok(state(
                "ScaleByAdanState",
                vec![
                    ("m", z(interp)?),
                    ("v", z(interp)?),
                    ("n", z(interp)?),
                    ("g", z(interp)?),
                    ("t", zero_count()),
                ],
            ))
        },
        move |interp, u, st, _, _| {
            let t0 = to_value(&field(st, "t")?)?;
            let first = jops::equal(&t0, &jops::scalar(0.0, t0.dtype()))?;
            let diff = tree_map(interp, &[u, &field(st, "g")?], |x| {
                jops::select(&first, &jops::zeros_like(x[0]), &jops::sub(x[0], x[1])?)
            })?;
            let m = tree_map(interp, &[u, &field(st, "m")?], |x| {
                moment(x[0], x[1], &h.b1, 1)
            })?;
            let v = tree_map(interp, &[&diff, &field(st, "v")?], |x| {
                moment(x[0], x[1], &h.b2, 1)
            })?;
            let k = h.b2.one_minus()?;
            let n = tree_map(interp, &[u, &diff, &field(st, "n")?], |x| {
                let sq = jops::add(x[0], &hmul(&k, x[1])?)?;
                moment(&sq, x[2], &b3, 2)
            })?;
            let t = safe_increment(&t0)?;
            let out = tree_map(interp, &[&m, &v, &n], |x| {
                let mh = bias_correction(x[0], &h.b1, &t)?;
                let vh = bias_correction(x[1], &h.b2, &t)?;
                let nh = bias_correction(x[2], &b3, &t)?;
                h.ratio(&jops::add(&mh, &hmul(&k, &vh)?)?, &nh)
            })?;
            let fields = vec![
                ("m", m),
                ("v", v),
                ("n", n),
                ("g", u.clone()),
                ("t", Obj::Array(t)),
            ];
            Ok((out, state("ScaleByAdanState", fields)))
        },
    )
}

/// `scale_by_adadelta(rho, eps)`: `g` scaled by the ratio of the roots of
/// the moving averages of squared updates and squared gradients.
pub(super) fn scale_by_adadelta(rho: Hyper, eps: Hyper) -> Obj {
    transformation(
        |interp, p| {
            Ok(state(
                "ScaleByAdaDeltaState",
                vec![
                    ("e_g", zeros_tree(interp, p)?),
                    ("e_x", zeros_tree(interp, p)?),
                ],
            ))
        },
        move |interp, u, st, _, _| {
            let e_g = tree_map(interp, &[u, &field(st, "e_g")?], |x| {
                moment(x[0], x[1], &rho, 2)
            })?;
            let out = tree_map(interp, &[u, &e_g, &field(st, "e_x")?], |x| {
                let num = jops::sqrt(&jops::add(x[2], &eps.value())?)?;
                let den = jops::sqrt(&jops::add(x[1], &eps.value())?)?;
                jops::mul(&jops::div(&num, &den)?, x[0])
            })?;
            let e_x = tree_map(interp, &[&out, &field(st, "e_x")?], |x| {
                moment(x[0], x[1], &rho, 2)
            })?;
            Ok((
                out,
                state("ScaleByAdaDeltaState", vec![("e_g", e_g), ("e_x", e_x)]),
            ))
        },
    )
}

/// `jnp.linalg.norm(g) ** 2`.
fn sq_norm(g: &Value) -> Result<Value> {
    let n = jops::sqrt(&jops::sum(&jops::mul(g, g)?, None, false)?)?;
    jops::integer_pow(&n, 2)
}

/// `scale_by_novograd`: a per-layer second moment of the gradient's norm;
/// the first step initialises both moments instead of averaging.
pub(super) fn scale_by_novograd(h: AdamHyper, wd: Hyper) -> Obj {
    transformation(
        |interp, p| {
            let nu = tree_map(interp, &[p], |x| Ok(jops::scalar(0.0, x[0].dtype())))?;
            Ok(state(
                "ScaleByNovogradState",
                vec![
                    ("count", zero_count()),
                    ("mu", zeros_tree(interp, p)?),
                    ("nu", nu),
                ],
            ))
        },
        move |interp, u, st, p, _| {
            let Some(p) = p else {
                bail!(
                    TypeError,
                    "update_fn() missing 1 required positional argument: 'params'"
                );
            };
            let count = next_count(st, "count")?;
            let first = jops::equal(&count, &jops::scalar(1.0, count.dtype()))?;
            let nu = tree_map(interp, &[u, &field(st, "nu")?], |x| {
                let n = sq_norm(x[0])?;
                let avg = moment(&n, x[1], &h.b2, 1)?;
                jops::select(&first, &jops::convert(&n, x[1].dtype())?, &avg)
            })?;
            let mu = tree_map(interp, &[u, p, &field(st, "mu")?, &nu], |x| {
                let scaled = h.ratio(x[0], x[3])?;
                let add = jops::add(&scaled, &hmul(&wd, x[1])?)?;
                let avg = jops::add(&hmul(&h.b1, x[2])?, &add)?;
                jops::select(&first, &add, &avg)
            })?;
            let st = state(
                "ScaleByNovogradState",
                vec![("count", Obj::Array(count)), ("mu", mu.clone()), ("nu", nu)],
            );
            Ok((mu, st))
        },
    )
}

/// Registers the estimators on the `optax` module.
pub(super) fn register(b: &mut Builder) {
    b.func("scale_by_adamax", |_, a| {
        let f = "scale_by_adamax";
        let h = |i, n, d| Hyper::arg(&a, Some(i), n, Some(d), f);
        Ok(scale_by_adamax(
            h(0, "b1", 0.9)?,
            h(1, "b2", 0.999)?,
            h(2, "eps", 1e-8)?,
        ))
    });
    b.func("scale_by_amsgrad", |_, a| {
        let f = "scale_by_amsgrad";
        super::alias::refuse(&a, Some(4), "mu_dtype", f)?;
        let h = AdamHyper::with_defaults(&a, 0, [0.9, 0.999, 1e-8, 0.0], f)?;
        let mu = flag(&a, Some(5), "bias_correction_mu", true)?;
        Ok(scale_by_amsgrad(
            h,
            mu,
            flag(&a, Some(6), "bias_correction_nu", true)?,
        ))
    });
    b.func("scale_by_radam", |_, a| {
        let f = "scale_by_radam";
        let h = AdamHyper::with_defaults(&a, 0, [0.9, 0.999, 1e-8, 0.0], f)?;
        let th = Hyper::arg(&a, Some(4), "threshold", Some(5.0), f)?;
        Ok(scale_by_radam(h, th, flag(&a, None, "nesterov", false)?))
    });
    b.func("scale_by_yogi", |_, a| {
        let f = "scale_by_yogi";
        let h = AdamHyper::with_defaults(&a, 0, [0.9, 0.999, 1e-3, 0.0], f)?;
        let init = Hyper::arg(&a, Some(4), "initial_accumulator_value", Some(1e-6), f)?;
        Ok(scale_by_yogi(h, init))
    });
    b.func("scale_by_adan", |_, a| {
        let f = "scale_by_adan";
        let h = |i, n, d| Hyper::arg(&a, Some(i), n, Some(d), f);
        let m = AdamHyper {
            b1: h(0, "b1", 0.98)?,
            b2: h(1, "b2", 0.92)?,
            eps: h(3, "eps", 1e-8)?,
            eps_root: h(4, "eps_root", 0.0)?,
            nesterov: false,
        };
        Ok(scale_by_adan(m, h(2, "b3", 0.99)?))
    });
    b.func("scale_by_adadelta", |_, a| {
        let f = "scale_by_adadelta";
        let rho = Hyper::arg(&a, Some(0), "rho", Some(0.9), f)?;
        Ok(scale_by_adadelta(
            rho,
            Hyper::arg(&a, Some(1), "eps", Some(1e-6), f)?,
        ))
    });
    b.func("scale_by_novograd", |_, a| {
        let f = "scale_by_novograd";
        super::alias::refuse(&a, Some(5), "mu_dtype", f)?;
        let h = AdamHyper::with_defaults(&a, 0, [0.9, 0.25, 1e-8, 0.0], f)?;
        let wd = Hyper::arg(&a, Some(4), "weight_decay", Some(0.0), f)?;
        Ok(scale_by_novograd(h, wd))
    });
}

/// The hyperparameters from explicit defaults, for the optimizers built on
/// these estimators.
pub(super) fn moments(a: &Args, first: usize, d: [f64; 4], func: &str) -> Result<AdamHyper> {
    AdamHyper::with_defaults(a, first, d, func)
}
