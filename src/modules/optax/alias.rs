//! The optimizers (optax's `alias` family): each a `chain` of the
//! transformations it is made of, ending in `scale_by_learning_rate`.
//!
//! [`SIGNATURES`] lists their parameters and defaults, which
//! `inject_hyperparams` needs to tell numeric hyperparameters from the rest.

use crate::bail;
use crate::error::Result;
use crate::python::value::{Args, Obj};

use super::super::Builder;
use super::base::{flag, Hyper, Rate};
use super::transforms::{
    add_decayed_weights, chain, scale_by_adam, scale_by_belief, scale_by_learning_rate,
    scale_by_lion, scale_by_rms, scale_by_rss, scale_by_trust_ratio, trace, AdamHyper,
};

/// A parameter's default: a number, `None`, a flag.
#[derive(Clone, Copy)]
pub(super) enum Param {
    Required,
    Num(f64),
    None,
    Flag(bool),
}

use Param::{Flag, None as Null, Num, Required};

/// The parameters of each factory `inject_hyperparams` can wrap, in order.
pub(super) const SIGNATURES: &[(&str, &[(&str, Param)])] = &[
    (
        "sgd",
        &[
            ("learning_rate", Required),
            ("momentum", Null),
            ("nesterov", Flag(false)),
            ("accumulator_dtype", Null),
        ],
    ),
    (
        "adam",
        &[
            ("learning_rate", Required),
            ("b1", Num(0.9)),
            ("b2", Num(0.999)),
            ("eps", Num(1e-8)),
            ("eps_root", Num(0.0)),
            ("mu_dtype", Null),
            ("nesterov", Flag(false)),
        ],
    ),
    (
        "adamw",
        &[
            ("learning_rate", Required),
            ("b1", Num(0.9)),
            ("b2", Num(0.999)),
            ("eps", Num(1e-8)),
            ("eps_root", Num(0.0)),
            ("mu_dtype", Null),
            ("weight_decay", Num(1e-4)),
            ("mask", Null),
            ("nesterov", Flag(false)),
        ],
    ),
    (
        "lion",
        &[
            ("learning_rate", Required),
            ("b1", Num(0.9)),
            ("b2", Num(0.99)),
            ("mu_dtype", Null),
            ("weight_decay", Num(1e-3)),
            ("mask", Null),
        ],
    ),
    (
        "adagrad",
        &[
            ("learning_rate", Required),
            ("initial_accumulator_value", Num(0.1)),
            ("eps", Num(1e-7)),
        ],
    ),
    (
        "adabelief",
        &[
            ("learning_rate", Required),
            ("b1", Num(0.9)),
            ("b2", Num(0.999)),
            ("eps", Num(1e-16)),
            ("eps_root", Num(1e-16)),
            ("nesterov", Flag(false)),
        ],
    ),
    (
        "rmsprop",
        &[
            ("learning_rate", Required),
            ("decay", Num(0.9)),
            ("eps", Num(1e-8)),
            ("initial_scale", Num(0.0)),
            ("eps_in_sqrt", Flag(true)),
            ("centered", Flag(false)),
            ("momentum", Null),
            ("nesterov", Flag(false)),
            ("bias_correction", Flag(false)),
        ],
    ),
    ("clip_by_global_norm", &[("max_norm", Required)]),
    ("clip", &[("max_delta", Required)]),
    ("scale", &[("step_size", Required)]),
    (
        "scale_by_adam",
        &[
            ("b1", Num(0.9)),
            ("b2", Num(0.999)),
            ("eps", Num(1e-8)),
            ("eps_root", Num(0.0)),
            ("mu_dtype", Null),
            ("nesterov", Flag(false)),
        ],
    ),
    (
        "scale_by_belief",
        &[
            ("b1", Num(0.9)),
            ("b2", Num(0.999)),
            ("eps", Num(1e-16)),
            ("eps_root", Num(1e-16)),
            ("nesterov", Flag(false)),
        ],
    ),
    (
        "scale_by_rms",
        &[
            ("decay", Num(0.9)),
            ("eps", Num(1e-8)),
            ("initial_scale", Num(0.0)),
            ("eps_in_sqrt", Flag(true)),
            ("bias_correction", Flag(false)),
        ],
    ),
    (
        "scale_by_rss",
        &[("initial_accumulator_value", Num(0.1)), ("eps", Num(1e-7))],
    ),
    (
        "trace",
        &[
            ("decay", Required),
            ("nesterov", Flag(false)),
            ("accumulator_dtype", Null),
        ],
    ),
    (
        "ema",
        &[
            ("decay", Required),
            ("debias", Flag(true)),
            ("accumulator_dtype", Null),
        ],
    ),
    (
        "add_decayed_weights",
        &[("weight_decay", Num(0.0)), ("mask", Null)],
    ),
    (
        "scale_by_amsgrad",
        &[
            ("b1", Num(0.9)),
            ("b2", Num(0.999)),
            ("eps", Num(1e-8)),
            ("eps_root", Num(0.0)),
            ("mu_dtype", Null),
            ("bias_correction_mu", Flag(true)),
            ("bias_correction_nu", Flag(true)),
        ],
    ),
    (
        "scale_by_radam",
        &[
            ("b1", Num(0.9)),
            ("b2", Num(0.999)),
            ("eps", Num(1e-8)),
            ("eps_root", Num(0.0)),
            ("threshold", Num(5.0)),
            ("nesterov", Flag(false)),
        ],
    ),
    (
        "scale_by_yogi",
        &[
            ("b1", Num(0.9)),
            ("b2", Num(0.999)),
            ("eps", Num(0.001)),
            ("eps_root", Num(0.0)),
            ("initial_accumulator_value", Num(1e-6)),
        ],
    ),
    (
        "scale_by_adamax",
        &[("b1", Num(0.9)), ("b2", Num(0.999)), ("eps", Num(1e-8))],
    ),
    (
        "scale_by_novograd",
        &[
            ("b1", Num(0.9)),
            ("b2", Num(0.25)),
            ("eps", Num(1e-8)),
            ("eps_root", Num(0.0)),
            ("weight_decay", Num(0.0)),
            ("mu_dtype", Null),
        ],
    ),
    (
        "scale_by_adadelta",
        &[("rho", Num(0.9)), ("eps", Num(1e-6))],
    ),
    (
        "scale_by_adan",
        &[
            ("b1", Num(0.98)),
            ("b2", Num(0.92)),
            ("b3", Num(0.99)),
            ("eps", Num(1e-8)),
            ("eps_root", Num(0.0)),
        ],
    ),
    (
        "scale_by_trust_ratio",
        &[
            ("min_norm", Num(0.0)),
            ("trust_coefficient", Num(1.0)),
            ("eps", Num(0.0)),
        ],
    ),
    (
        "scale_by_stddev",
        &[
            ("decay", Num(0.9)),
            ("eps", Num(1e-8)),
            ("initial_scale", Num(0.0)),
            ("eps_in_sqrt", Flag(true)),
            ("bias_correction", Flag(false)),
        ],
    ),
    ("scale_by_param_block_rms", &[("min_scale", Num(0.001))]),
    ("scale_by_param_block_norm", &[("min_scale", Num(0.001))]),
    ("clip_by_block_rms", &[("threshold", Required)]),
    (
        "nadam",
        &[
            ("learning_rate", Required),
            ("b1", Num(0.9)),
            ("b2", Num(0.999)),
            ("eps", Num(1e-8)),
            ("eps_root", Num(0.0)),
            ("mu_dtype", Null),
            ("nesterov", Flag(true)),
        ],
    ),
    (
        "nadamw",
        &[
            ("learning_rate", Required),
            ("b1", Num(0.9)),
            ("b2", Num(0.999)),
            ("eps", Num(1e-8)),
            ("eps_root", Num(0.0)),
            ("mu_dtype", Null),
            ("weight_decay", Num(0.0001)),
            ("mask", Null),
            ("nesterov", Flag(true)),
        ],
    ),
    (
        "adamax",
        &[
            ("learning_rate", Required),
            ("b1", Num(0.9)),
            ("b2", Num(0.999)),
            ("eps", Num(1e-8)),
        ],
    ),
    (
        "adamaxw",
        &[
            ("learning_rate", Required),
            ("b1", Num(0.9)),
            ("b2", Num(0.999)),
            ("eps", Num(1e-8)),
            ("weight_decay", Num(0.0001)),
            ("mask", Null),
        ],
    ),
    (
        "amsgrad",
        &[
            ("learning_rate", Required),
            ("b1", Num(0.9)),
            ("b2", Num(0.999)),
            ("eps", Num(1e-8)),
            ("eps_root", Num(0.0)),
            ("mu_dtype", Null),
            ("bias_correction_mu", Flag(true)),
            ("bias_correction_nu", Flag(true)),
        ],
    ),
    (
        "radam",
        &[
            ("learning_rate", Required),
            ("b1", Num(0.9)),
            ("b2", Num(0.999)),
            ("eps", Num(1e-8)),
            ("eps_root", Num(0.0)),
            ("threshold", Num(5.0)),
            ("nesterov", Flag(false)),
        ],
    ),
    (
        "yogi",
        &[
            ("learning_rate", Required),
            ("b1", Num(0.9)),
            ("b2", Num(0.999)),
            ("eps", Num(0.001)),
        ],
    ),
    (
        "adan",
        &[
            ("learning_rate", Required),
            ("b1", Num(0.98)),
            ("b2", Num(0.92)),
            ("b3", Num(0.99)),
            ("eps", Num(1e-8)),
            ("eps_root", Num(1e-8)),
            ("weight_decay", Num(0.0)),
            ("mask", Null),
        ],
    ),
    (
        "adadelta",
        &[
            ("learning_rate", Null),
            ("rho", Num(0.9)),
            ("eps", Num(1e-6)),
            ("weight_decay", Num(0.0)),
            ("weight_decay_mask", Null),
        ],
    ),
    (
        "novograd",
        &[
            ("learning_rate", Required),
            ("b1", Num(0.9)),
            ("b2", Num(0.25)),
            ("eps", Num(1e-6)),
            ("eps_root", Num(0.0)),
            ("weight_decay", Num(0.0)),
        ],
    ),
    (
        "lamb",
        &[
            ("learning_rate", Required),
            ("b1", Num(0.9)),
            ("b2", Num(0.999)),
            ("eps", Num(1e-6)),
            ("eps_root", Num(0.0)),
            ("weight_decay", Num(0.0)),
            ("mask", Null),
        ],
    ),
    (
        "fromage",
        &[("learning_rate", Required), ("min_norm", Num(1e-6))],
    ),
    ("sign_sgd", &[("learning_rate", Required)]),
    (
        "signum",
        &[
            ("learning_rate", Required),
            ("beta", Num(0.9)),
            ("accumulator_dtype", Null),
        ],
    ),
    ("scale_by_sign", &[]),
];

/// Fails as not supported when the argument `name` is given and not None
/// (a dtype or a mask shardlab does not model).
pub(super) fn refuse(a: &Args, index: Option<usize>, name: &str, func: &str) -> Result<()> {
    if a.opt(index, name).is_some() {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: optax.{func} with {name}"
        );
    }
    Ok(())
}

fn lr(a: &Args, func: &str) -> Result<Obj> {
    scale_by_learning_rate(Rate::arg(a, Some(0), "learning_rate", None, func)?, true)
}

fn sgd(a: &Args) -> Result<Obj> {
    refuse(a, Some(3), "accumulator_dtype", "sgd")?;
    let mut txs = vec![];
    if a.opt(Some(1), "momentum").is_some() {
        let decay = Hyper::arg(a, Some(1), "momentum", None, "sgd")?;
        txs.push(trace(decay, flag(a, Some(2), "nesterov", false)?));
    } else {
        txs.push(super::base::stateless(|_, u, _| Ok(u.clone())));
    }
    txs.push(lr(a, "sgd")?);
    Ok(chain(txs))
}

fn adam(a: &Args, func: &str, weight_decay: Option<f64>) -> Result<Obj> {
    refuse(a, Some(5), "mu_dtype", func)?;
    let mut txs = vec![scale_by_adam(AdamHyper::parse(a, 1, 1e-8, 0.0, func)?)];
    if let Some(wd) = weight_decay {
        refuse(a, Some(7), "mask", func)?;
        txs.push(add_decayed_weights(Hyper::arg(
            a,
            Some(6),
            "weight_decay",
            Some(wd),
            func,
        )?));
    }
    txs.push(lr(a, func)?);
    Ok(chain(txs))
}

fn rmsprop(a: &Args) -> Result<Obj> {
    let f = "rmsprop";
    let centered = flag(a, Some(5), "centered", false)?;
    let debias = flag(a, Some(8), "bias_correction", false)?;
    if debias && !centered {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: optax.rmsprop with bias_correction"
        );
    }
    let decay = Hyper::arg(a, Some(1), "decay", Some(0.9), f)?;
    let eps = Hyper::arg(a, Some(2), "eps", Some(1e-8), f)?;
    let init = Hyper::arg(a, Some(3), "initial_scale", Some(0.0), f)?;
    let eps_in_sqrt = flag(a, Some(4), "eps_in_sqrt", true)?;
    let scaling = if centered {
        super::wrappers_more::scale_by_stddev(decay, eps, init, eps_in_sqrt, debias)
    } else {
        scale_by_rms(decay, eps, init, eps_in_sqrt, false)
    };
    let mut txs = vec![scaling, lr(a, f)?];
    txs.push(match a.opt(Some(6), "momentum") {
        Some(_) => trace(
            Hyper::arg(a, Some(6), "momentum", None, f)?,
            flag(a, Some(7), "nesterov", false)?,
        ),
        None => super::base::stateless(|_, u, _| Ok(u.clone())),
    });
    Ok(chain(txs))
}

/// Registers the optimizers on the `optax` module.
pub(super) fn register(b: &mut Builder) {
    b.func("sgd", |_, a| sgd(&a));
    b.func("adam", |_, a| adam(&a, "adam", None));
    b.func("adamw", |_, a| adam(&a, "adamw", Some(1e-4)));
    b.func("nadam", |_, mut a| {
        a.kw.push(("nesterov".into(), Obj::Bool(true)));
        adam(&a, "nadam", None)
    });
    b.func("nadamw", |_, mut a| {
        a.kw.push(("nesterov".into(), Obj::Bool(true)));
        adam(&a, "nadamw", Some(1e-4))
    });
    b.func("adabelief", |_, a| {
        let h = AdamHyper::parse(&a, 1, 1e-16, 1e-16, "adabelief")?;
        Ok(chain(vec![scale_by_belief(h), lr(&a, "adabelief")?]))
    });
    b.func("adagrad", |_, a| {
        let init = Hyper::arg(
            &a,
            Some(1),
            "initial_accumulator_value",
            Some(0.1),
            "adagrad",
        )?;
        let eps = Hyper::arg(&a, Some(2), "eps", Some(1e-7), "adagrad")?;
        Ok(chain(vec![scale_by_rss(init, eps), lr(&a, "adagrad")?]))
    });
    b.func("lion", |_, a| {
        let f = "lion";
        refuse(&a, Some(3), "mu_dtype", f)?;
        refuse(&a, Some(5), "mask", f)?;
        let b1 = Hyper::arg(&a, Some(1), "b1", Some(0.9), f)?;
        let b2 = Hyper::arg(&a, Some(2), "b2", Some(0.99), f)?;
        let wd = Hyper::arg(&a, Some(4), "weight_decay", Some(1e-3), f)?;
        Ok(chain(vec![
            scale_by_lion(b1, b2),
            add_decayed_weights(wd),
            lr(&a, f)?,
        ]))
    });
    b.func("rmsprop", |_, a| rmsprop(&a));
    b.func("lamb", |_, a| {
        let f = "lamb";
        refuse(&a, Some(6), "mask", f)?;
        let h = AdamHyper::parse(&a, 1, 1e-6, 0.0, f)?;
        let wd = Hyper::arg(&a, Some(5), "weight_decay", Some(0.0), f)?;
        Ok(chain(vec![
            scale_by_adam(h),
            add_decayed_weights(wd),
            scale_by_trust_ratio(0.0, Hyper::Num(1.0), Hyper::Num(0.0)),
            lr(&a, f)?,
        ]))
    });
}
