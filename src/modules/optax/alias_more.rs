//! More optimizers of optax's `alias` family, each the `chain` of
//! transformations optax builds it from: `adamax`, `adamaxw`, `amsgrad`,
//! `radam`, `yogi`, `adan`, `adadelta`, `novograd`, `sign_sgd`, `signum`,
//! `rprop`, `sm3`, `noisy_sgd`, `polyak_sgd`, `optimistic_gradient_descent`,
//! `optimistic_adam_v2`, `fromage` and `lars`.

use crate::bail;
use crate::error::Result;
use crate::python::value::{Args, Obj};

use super::super::Builder;
use super::adaptive::{
    moments, scale_by_adadelta, scale_by_adamax, scale_by_adan, scale_by_amsgrad,
    scale_by_novograd, scale_by_radam, scale_by_yogi,
};
use super::alias::refuse;
use super::base::{flag, is_callable, stateless, Hyper, Rate};
use super::rescaling::{
    add_noise, ema, noise_key, polyak_args, rprop_args, scale_by_optimistic_gradient,
    scale_by_rprop, scale_by_sign, scale_by_sm3,
};
use super::transforms::{
    add_decayed_weights, chain, scale, scale_by_adam, scale_by_learning_rate, scale_by_trust_ratio,
    trace, AdamHyper,
};

fn lr(a: &Args, func: &str) -> Result<Obj> {
    scale_by_learning_rate(Rate::arg(a, Some(0), "learning_rate", None, func)?, true)
}

/// `add_decayed_weights(weight_decay, mask)`: masked when a mask is given.
fn decay(
    a: &Args,
    index: usize,
    name: &str,
    default: f64,
    mask: Option<(usize, &str)>,
    f: &str,
) -> Result<Obj> {
    if a.opt(Some(index), name).is_some_and(|w| is_callable(&w)) {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: optax.{f} with a {name} schedule"
        );
    }
    let tx = add_decayed_weights(Hyper::arg(a, Some(index), name, Some(default), f)?);
    Ok(match mask.and_then(|(i, n)| a.opt(Some(i), n)) {
        Some(m) if !matches!(m, Obj::None) => super::wrappers::masked(tx, m),
        _ => tx,
    })
}

fn identity() -> Obj {
    stateless(|_, u, _| Ok(u.clone()))
}

fn adamax(a: &Args, f: &str, wd: bool) -> Result<Obj> {
    let h = |i, n, d| Hyper::arg(a, Some(i), n, Some(d), f);
    let mut txs = vec![scale_by_adamax(
        h(1, "b1", 0.9)?,
        h(2, "b2", 0.999)?,
        h(3, "eps", 1e-8)?,
    )];
    if wd {
        txs.push(decay(a, 4, "weight_decay", 1e-4, Some((5, "mask")), f)?);
    }
    txs.push(lr(a, f)?);
    Ok(chain(txs))
}

fn adan(a: &Args) -> Result<Obj> {
    let f = "adan";
    let h = |i, n, d| Hyper::arg(a, Some(i), n, Some(d), f);
    let m = moments(&shift(a, [1, 2, 4, 5]), 0, [0.98, 0.92, 1e-8, 1e-8], f)?;
    Ok(chain(vec![
        scale_by_adan(m, h(3, "b3", 0.99)?),
        decay(a, 6, "weight_decay", 0.0, Some((7, "mask")), f)?,
        lr(a, f)?,
    ]))
}

/// `a` with the positional arguments at `at` (those present) moved to the
/// front, for a transformation whose parameters the optimizer spreads out.
fn shift(a: &Args, at: [usize; 4]) -> Args {
    let mut out = Args::new(vec![]);
    out.kw = a.kw.clone();
    let names = ["b1", "b2", "eps", "eps_root"];
    for (i, n) in at.iter().zip(names) {
        if let Some(v) = a.pos.get(*i) {
            out.kw.push((n.to_string(), v.clone()));
        }
    }
    out
}

fn adadelta(a: &Args) -> Result<Obj> {
    let f = "adadelta";
    let rho = Hyper::arg(a, Some(1), "rho", Some(0.9), f)?;
    let eps = Hyper::arg(a, Some(2), "eps", Some(1e-6), f)?;
    let rate = match a.opt(Some(0), "learning_rate") {
        None | Some(Obj::None) => bail!(
            NotImplementedError,
            "not supported by shardlab yet: optax.adadelta without a learning_rate"
        ),
        Some(_) => lr(a, f)?,
    };
    Ok(chain(vec![
        decay(a, 3, "weight_decay", 0.0, Some((4, "weight_decay_mask")), f)?,
        scale_by_adadelta(rho, eps),
        rate,
    ]))
}

fn fromage(a: &Args) -> Result<Obj> {
    let f = "fromage";
    let rate = a.req(Some(0), "learning_rate", f)?;
    if is_callable(&rate) {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: optax.fromage with a learning_rate schedule"
        );
    }
    let Some(rate) = Hyper::from_obj(&rate, "learning_rate", f)?.num() else {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: optax.fromage with an array learning_rate"
        );
    };
    let min_norm = Hyper::arg(a, Some(1), "min_norm", Some(1e-6), f)?;
    let mult = 1.0 / (1.0 + rate.powi(2)).powf(0.5);
    Ok(chain(vec![
        scale_by_trust_ratio(
            min_norm.fixed("min_norm", f)?,
            Hyper::Num(1.0),
            Hyper::Num(0.0),
        ),
        scale_by_learning_rate(Rate::Fixed(Hyper::Num(rate * mult)), true)?,
        add_decayed_weights(Hyper::Num(mult - 1.0)),
    ]))
}

fn lars(a: &Args) -> Result<Obj> {
    let f = "lars";
    let mask = |i, n| a.opt(Some(i), n).unwrap_or(Obj::Bool(true));
    let wd = decay(a, 1, "weight_decay", 0.0, None, f)?;
    let coef = Hyper::arg(a, Some(3), "trust_coefficient", Some(0.001), f)?;
    let eps = Hyper::arg(a, Some(4), "eps", Some(0.0), f)?;
    let momentum = Hyper::arg(a, Some(6), "momentum", Some(0.9), f)?;
    Ok(chain(vec![
        super::wrappers::masked(wd, mask(2, "weight_decay_mask")),
        super::wrappers::masked(
            scale_by_trust_ratio(0.0, coef, eps),
            mask(5, "trust_ratio_mask"),
        ),
        lr(a, f)?,
        trace(momentum, flag(a, Some(7), "nesterov", false)?),
    ]))
}

fn optimistic_adam_v2(a: &Args) -> Result<Obj> {
    let f = "optimistic_adam_v2";
    refuse(a, None, "mu_dtype", f)?;
    let h = |n, d| Hyper::arg(a, None, n, Some(d), f);
    let adam = AdamHyper {
        b1: h("b1", 0.9)?,
        b2: h("b2", 0.999)?,
        eps: h("eps", 1e-8)?,
        eps_root: h("eps_root", 0.0)?,
        nesterov: flag(a, None, "nesterov", true)?,
    };
    Ok(chain(vec![
        scale_by_adam(adam),
        scale_by_optimistic_gradient(h("alpha", 1.0)?, h("beta", 1.0)?),
        lr(a, f)?,
    ]))
}

/// The deprecated `optimistic_adam(learning_rate, optimism, ...)`: the
/// rate and the optimism are the weights of the optimistic step.
fn optimistic_adam(a: &Args) -> Result<Obj> {
    let f = "optimistic_adam";
    refuse(a, Some(6), "mu_dtype", f)?;
    let rate = a.req(Some(0), "learning_rate", f)?;
    if is_callable(&rate) {
        bail!(
            ValueError,
            "This version of `optimistic_adam` does not support learning rate schedules but `optimistic_adam_v2` does."
        );
    }
    let rate = Hyper::from_obj(&rate, "learning_rate", f)?;
    let optimism = match a.opt(Some(1), "optimism") {
        None | Some(Obj::None) => rate.clone(),
        Some(o) => Hyper::from_obj(&o, "optimism", f)?,
    };
    let h = |i, n, d| Hyper::arg(a, Some(i), n, Some(d), f);
    let adam = AdamHyper {
        b1: h(2, "b1", 0.9)?,
        b2: h(3, "b2", 0.999)?,
        eps: h(4, "eps", 1e-8)?,
        eps_root: h(5, "eps_root", 0.0)?,
        nesterov: flag(a, None, "nesterov", true)?,
    };
    Ok(chain(vec![
        scale_by_adam(adam),
        scale_by_optimistic_gradient(rate, optimism),
        scale_by_learning_rate(Rate::Fixed(Hyper::Num(1.0)), true)?,
    ]))
}

/// Registers the optimizers on the `optax` module.
pub(super) fn register(b: &mut Builder) {
    b.func("adamax", |_, a| adamax(&a, "adamax", false));
    b.func("adamaxw", |_, a| adamax(&a, "adamaxw", true));
    b.func("amsgrad", |_, a| {
        let f = "amsgrad";
        refuse(&a, Some(5), "mu_dtype", f)?;
        let h = moments(&a, 1, [0.9, 0.999, 1e-8, 0.0], f)?;
        let mu = flag(&a, Some(6), "bias_correction_mu", true)?;
        let nu = flag(&a, Some(7), "bias_correction_nu", true)?;
        Ok(chain(vec![scale_by_amsgrad(h, mu, nu), lr(&a, f)?]))
    });
    b.func("radam", |_, a| {
        let f = "radam";
        let h = moments(&a, 1, [0.9, 0.999, 1e-8, 0.0], f)?;
        let th = Hyper::arg(&a, Some(5), "threshold", Some(5.0), f)?;
        let tx = scale_by_radam(h, th, flag(&a, None, "nesterov", false)?);
        Ok(chain(vec![tx, lr(&a, f)?]))
    });
    b.func("yogi", |_, a| {
        let h = moments(&a, 1, [0.9, 0.999, 1e-3, 0.0], "yogi")?;
        Ok(chain(vec![
            scale_by_yogi(h, Hyper::Num(1e-6)),
            lr(&a, "yogi")?,
        ]))
    });
    b.func("adan", |_, a| adan(&a));
    b.func("adadelta", |_, a| adadelta(&a));
    b.func("novograd", |_, a| {
        let f = "novograd";
        let h = moments(&a, 1, [0.9, 0.25, 1e-6, 0.0], f)?;
        let wd = Hyper::arg(&a, Some(5), "weight_decay", Some(0.0), f)?;
        Ok(chain(vec![scale_by_novograd(h, wd), lr(&a, f)?]))
    });
    b.func("sign_sgd", |_, a| {
        Ok(chain(vec![scale_by_sign(), lr(&a, "sign_sgd")?]))
    });
    b.func("signum", |_, a| {
        refuse(&a, Some(2), "accumulator_dtype", "signum")?;
        let beta = Hyper::arg(&a, Some(1), "beta", Some(0.9), "signum")?;
        Ok(chain(vec![
            ema(beta, false),
            scale_by_sign(),
            lr(&a, "signum")?,
        ]))
    });
    b.func("rprop", |_, a| {
        let h = rprop_args(&a, "rprop")?;
        Ok(chain(vec![scale_by_rprop(h), scale(Hyper::Num(-1.0))]))
    });
    b.func("sm3", |_, a| {
        let rate = Hyper::arg(&a, Some(0), "learning_rate", None, "sm3")?;
        let momentum = Hyper::arg(&a, Some(1), "momentum", Some(0.9), "sm3")?;
        let eps = Hyper::Num(1e-8);
        Ok(chain(vec![
            scale_by_sm3(momentum, 1.0, eps),
            scale(rate.neg()?),
        ]))
    });
    register_rest(b);
}

fn register_rest(b: &mut Builder) {
    b.func("noisy_sgd", |interp, a| {
        let f = "noisy_sgd";
        let eta = Hyper::arg(&a, Some(1), "eta", Some(0.01), f)?;
        let gamma = Hyper::arg(&a, Some(2), "gamma", Some(0.55), f)?;
        let noise = add_noise(interp, eta, gamma, noise_key(&a, Some(3))?)?;
        Ok(chain(vec![noise, lr(&a, f)?]))
    });
    b.func("polyak_sgd", |_, a| {
        let f = "polyak_sgd";
        let max_lr = a.opt(Some(0), "max_learning_rate");
        let mut pa = Args::new(vec![]);
        for (k, i) in [("f_min", 2), ("eps", 3), ("variant", 4)] {
            if let Some(v) = a.opt(Some(i), k) {
                pa.kw.push((k.into(), v));
            }
        }
        if let Some(m) = max_lr {
            pa.kw.push(("max_learning_rate".into(), m));
        }
        let scaling = Rate::arg(&a, Some(1), "scaling", Some(1.0), f)?;
        let sgd = chain(vec![identity(), scale_by_learning_rate(scaling, true)?]);
        Ok(chain(vec![sgd, polyak_args(&pa, 0, f)?]))
    });
    b.func("optimistic_gradient_descent", |_, a| {
        let f = "optimistic_gradient_descent";
        let alpha = Hyper::arg(&a, Some(1), "alpha", Some(1.0), f)?;
        let beta = Hyper::arg(&a, Some(2), "beta", Some(1.0), f)?;
        Ok(chain(vec![
            scale_by_optimistic_gradient(alpha, beta),
            lr(&a, f)?,
        ]))
    });
    b.func("optimistic_adam_v2", |_, a| optimistic_adam_v2(&a));
    b.func("optimistic_adam", |_, a| optimistic_adam(&a));
    b.func("fromage", |_, a| fromage(&a));
    b.func("lars", |_, a| lars(&a));
}
