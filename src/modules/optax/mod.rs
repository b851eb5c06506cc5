//! `optax` 0.2.8: gradient transformations and the optimizers built from
//! them, schedules, losses and `optax.tree`.
//!
//! A transformation is a `GradientTransformationExtraArgs(init, update)`
//! object whose functions are Rust closures (or, for one a program builds,
//! its own Python functions); `chain` and the wrappers call their parts
//! through the interpreter, so programs may mix both. States are
//! NamedTuple-like instances that print as optax prints them and flatten
//! as pytrees, so they pass through `jit` and `jax.tree.map`.
//!
//! - [`base`]: states, transformation objects, hyperparameters, leaf maps.
//! - [`transforms`]: the transformations and `chain`.
//! - [`alias`], [`alias_more`]: the optimizers (`sgd`, `adam`, ...).
//! - [`adaptive`]: the moment estimators beyond Adam (`scale_by_adamax`, ...).
//! - [`factorized`]: `scale_by_factored_rms` and `adafactor`.
//! - [`rescaling`]: sign, block and history rescalings, `ema`, `add_noise`.
//! - [`wrappers`]: `inject_hyperparams`, `MultiSteps`, `flatten`, `masked`
//!   and `partition`.
//! - [`wrappers_more`]: `lookahead`, `monitor`, the per-example clips and
//!   `scale_by_stddev`.
//! - [`lbfgs`]: `scale_by_lbfgs`, `lbfgs` and the backtracking line search.
//! - [`zoom`]: the zoom line search, `scale_by_zoom_linesearch`.
//! - [`perturbations`]: `make_perturbed_fun` and its noise distributions.
//! - [`muon`]: `optax.contrib.muon` and `scale_by_muon`.
//! - [`contrib`]: `optax.contrib` (`sam`, `ademamix`, ...); schedule-free
//!   optimizers in [`contrib_schedule_free`].
//! - [`conditionality`]: `apply_if_finite`, `conditionally_*`, `apply_every`.
//! - [`numerics`]: moment updates, `safe_norm`, `adaptive_grad_clip`.
//! - [`utilities`]: `stateless`, `named_chain`, `scale_gradient`, ...
//! - [`projections`]: the projections of `optax.projections`.
//! - [`assignment`]: the Hungarian algorithms of `optax.assignment`.
//! - [`states`]: the NamedTuple classes of the states, in one table.
//! - [`losses_more`], [`losses_cross`]: the losses optax composes of jnp
//!   calls, made through [`compose`].
//! - [`schedules`], [`schedules_more`], [`losses`], [`tree`], [`tree_more`].

mod adaptive;
mod alias;
mod alias_more;
mod assignment;
pub(crate) mod base;
mod compose;
mod conditionality;
mod contrib;
mod contrib_schedule_free;
mod factorized;
mod lbfgs;
mod losses;
mod losses_cross;
mod losses_more;
mod muon;
mod numerics;
mod perturbations;
mod projections;
mod rescaling;
mod schedules;
mod schedules_more;
mod states;
mod transforms;
mod tree;
mod tree_more;
mod utilities;
mod wrappers;
mod wrappers_more;
mod zoom;

use crate::error::Result;
use crate::python::interp::Interp;
use crate::python::value::Obj;

use super::Builder;

/// The `optax` module.
pub fn module(interp: &mut Interp) -> Result<Obj> {
    // A run imports optax once: its state classes are this run's own.
    states::forget();
    let mut b = Builder::new("optax");
    alias::register(&mut b);
    alias_more::register(&mut b);
    adaptive::register(&mut b);
    factorized::register(&mut b);
    rescaling::register(&mut b);
    transforms::register(&mut b);
    wrappers::register(&mut b);
    wrappers::register_masking(&mut b);
    wrappers_more::register(&mut b);
    lbfgs::register(&mut b);
    schedules::register(&mut b);
    losses::register(&mut b);
    states::register(&mut b, "optax");
    conditionality::register(&mut b);
    utilities::register(&mut b);
    numerics::register(&mut b);
    let typing = super::import(interp, "typing")?;
    let any = crate::python::ops::getattr(interp, &typing, "Any")?;
    for name in [
        "Params",
        "Updates",
        "OptState",
        "Schedule",
        "ScalarOrSchedule",
    ] {
        b.attr(name, any.clone());
    }
    b.attr("tree", super::import(interp, "optax.tree")?);
    b.attr("contrib", super::import(interp, "optax.contrib")?);
    b.attr("tree_utils", super::import(interp, "optax.tree_utils")?);
    b.attr("losses", super::import(interp, "optax.losses")?);
    b.attr("schedules", super::import(interp, "optax.schedules")?);
    b.attr("projections", super::import(interp, "optax.projections")?);
    b.attr("assignment", super::import(interp, "optax.assignment")?);
    b.attr(
        "perturbations",
        super::import(interp, "optax.perturbations")?,
    );
    Ok(b.build())
}

/// `optax.transforms`: the names that the real submodule shares with
/// `optax` itself, taken from it (a name shardlab lacks stays out, and
/// using it is refused by name).
pub fn transforms_module(interp: &mut Interp) -> Result<Obj> {
    let optax = super::import(interp, "optax")?;
    let mut b = Builder::new("optax.transforms");
    if let Obj::Module(m) = &optax {
        for name in super::real_api::real_names("optax.transforms") {
            if let Some(x) = m.get(&name) {
                b.attr(&name, x);
            }
        }
    }
    Ok(b.build())
}

/// `optax._src` and its `base`: the names of `optax._src.base` that
/// `optax` itself exports, which programs import from there.
pub fn src_module(interp: &mut Interp, name: &str) -> Result<Obj> {
    if name == "optax._src" {
        let mut b = Builder::new("optax._src");
        b.attr("base", super::import(interp, "optax._src.base")?);
        return Ok(b.build());
    }
    let optax = super::import(interp, "optax")?;
    let mut b = Builder::new("optax._src.base");
    if let Obj::Module(m) = &optax {
        for n in [
            "GradientTransformation",
            "GradientTransformationExtraArgs",
            "EmptyState",
            "identity",
            "set_to_zero",
            "Params",
            "Updates",
            "OptState",
            "Schedule",
            "ScalarOrSchedule",
        ] {
            if let Some(x) = m.get(n) {
                b.attr(n, x);
            }
        }
    }
    Ok(b.build())
}

/// `optax.perturbations`.
pub fn perturbations_module(interp: &mut Interp) -> Result<Obj> {
    perturbations::module(interp)
}

/// The submodules `optax.tree`, `optax.tree_utils`, `optax.losses` and
/// `optax.schedules`, or None for another name.
pub fn submodule(name: &str) -> Option<Obj> {
    Some(match name {
        "optax.tree" => tree::module(),
        "optax.contrib" => contrib::module(),
        "optax.tree_utils" => tree::utils_module(),
        "optax.losses" => {
            let mut b = Builder::new("optax.losses");
            losses::register(&mut b);
            b.build()
        }
        "optax.projections" => projections::module(),
        "optax.assignment" => assignment::module(),
        "optax.schedules" => {
            let mut b = Builder::new("optax.schedules");
            schedules::register(&mut b);
            b.build()
        }
        _ => return None,
    })
}
