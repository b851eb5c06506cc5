//! The NamedTuple classes of optax's states, in one table.
//!
//! A program names these classes (`optax.ScaleByAdamState(count=..., mu=...,
//! nu=...)`, `isinstance(state[0], optax.TraceState)`), so the class a
//! transformation builds its state with must be the very class the module
//! exports. Each name in [`STATES`] is made into a class once per run (the
//! run's `import optax` drops the classes of the run before) and reused:
//! [`super::base::state`] finds it here by name. A name not in the table
//! gets a class of its own (as before any program could name it).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use crate::python::value::{Class, Obj};

use super::super::Builder;
use super::base::{named_class, OwnedField};

/// A state class: its name, the module optax defines it in, its fields.
type Row = (&'static str, &'static str, &'static [&'static str]);

const BASE: &str = "optax._src.base";
const TRANSFORM: &str = "optax._src.transform";
const LINESEARCH: &str = "optax._src.linesearch";
const INJECT: &str = "optax.schedules._inject";
const ACCUMULATION: &str = "optax.transforms._accumulation";
const CONDITIONALITY: &str = "optax.transforms._conditionality";

/// Every state class shardlab builds or exports, as optax 0.2.8 defines it.
const STATES: &[Row] = &[
    ("GradientTransformation", BASE, &["init", "update"]),
    ("GradientTransformationExtraArgs", BASE, &["init", "update"]),
    ("EmptyState", BASE, &[]),
    ("ScaleByRssState", TRANSFORM, &["sum_of_squares"]),
    ("ScaleByRmsState", TRANSFORM, &["nu"]),
    ("ScaleByRmsWithCountState", TRANSFORM, &["count", "nu"]),
    ("ScaleByRStdDevState", TRANSFORM, &["mu", "nu"]),
    (
        "ScaleByRStdDevWithCountState",
        TRANSFORM,
        &["count", "mu", "nu"],
    ),
    ("ScaleByAdamState", TRANSFORM, &["count", "mu", "nu"]),
    (
        "ScaleByAmsgradState",
        TRANSFORM,
        &["count", "mu", "nu", "nu_max"],
    ),
    ("ScaleByLionState", TRANSFORM, &["count", "mu"]),
    ("ScaleByAdaDeltaState", TRANSFORM, &["e_g", "e_x"]),
    ("ScaleByAdanState", TRANSFORM, &["m", "v", "n", "g", "t"]),
    ("ScaleByBeliefState", TRANSFORM, &["count", "mu", "nu"]),
    (
        "ScaleByRpropState",
        TRANSFORM,
        &["step_sizes", "prev_updates"],
    ),
    ("ScaleByScheduleState", TRANSFORM, &["count"]),
    ("ApplyEvery", TRANSFORM, &["count", "grad_acc"]),
    ("ScaleBySM3State", TRANSFORM, &["mu", "nu"]),
    ("ScaleByNovogradState", TRANSFORM, &["count", "mu", "nu"]),
    (
        "ScaleByOptimisticGradientState",
        TRANSFORM,
        &["is_initial_step", "previous_gradient"],
    ),
    (
        "ScaleByDistanceOverGradientsState",
        TRANSFORM,
        &["max_dist", "grad_sum_of_squares", "init_params"],
    ),
    (
        "ScaleByLBFGSState",
        TRANSFORM,
        &[
            "count",
            "params",
            "updates",
            "diff_params_memory",
            "diff_updates_memory",
            "weights_memory",
        ],
    ),
    (
        "BacktrackingLinesearchInfo",
        LINESEARCH,
        &["num_linesearch_steps", "decrease_error"],
    ),
    (
        "ScaleByBacktrackingLinesearchState",
        LINESEARCH,
        &["learning_rate", "value", "grad", "info"],
    ),
    (
        "ZoomLinesearchInfo",
        LINESEARCH,
        &["num_linesearch_steps", "decrease_error", "curvature_error"],
    ),
    (
        "ScaleByZoomLinesearchState",
        LINESEARCH,
        &["learning_rate", "value", "grad", "info"],
    ),
    (
        "InjectHyperparamsState",
        INJECT,
        &["count", "hyperparams", "inner_state"],
    ),
    (
        "InjectStatefulHyperparamsState",
        INJECT,
        &["count", "hyperparams", "hyperparams_states", "inner_state"],
    ),
    ("WrappedScheduleState", INJECT, &["count"]),
    (
        "FactoredState",
        "optax._src.factorized",
        &["count", "v_row", "v_col", "v"],
    ),
    (
        "LookaheadState",
        "optax._src.lookahead",
        &["fast_state", "steps_since_sync"],
    ),
    ("LookaheadParams", "optax._src.lookahead", &["fast", "slow"]),
    (
        "AddNoiseState",
        "optax.transforms._adding",
        &["count", "rng_key"],
    ),
    ("TraceState", ACCUMULATION, &["trace"]),
    ("EmaState", ACCUMULATION, &["count", "ema"]),
    (
        "MultiStepsState",
        ACCUMULATION,
        &[
            "mini_step",
            "gradient_step",
            "inner_opt_state",
            "acc_grads",
            "skip_state",
        ],
    ),
    (
        "ConditionallyTransformState",
        CONDITIONALITY,
        &["inner_state", "step"],
    ),
    (
        "ConditionallyMaskState",
        CONDITIONALITY,
        &["step", "inner_state"],
    ),
    (
        "ApplyIfFiniteState",
        CONDITIONALITY,
        &[
            "notfinite_count",
            "last_finite",
            "total_notfinite",
            "inner_state",
        ],
    ),
    ("MaskedState", "optax.transforms._masking", &["inner_state"]),
    ("MaskedNode", "optax.transforms._masking", &[]),
    (
        "SnapshotState",
        "optax.transforms._monitoring",
        &["measurement"],
    ),
    (
        "MonitorState",
        "optax.transforms._monitoring",
        &["measurements", "measure_states"],
    ),
    (
        "PartitionState",
        "optax.transforms._combining",
        &["inner_states"],
    ),
    (
        "ZeroNansState",
        "optax.transforms._constraining",
        &["found_nan"],
    ),
    (
        "MuonState",
        "optax.contrib._muon",
        &["count", "mu", "ns_coeffs"],
    ),
    (
        "SAMState",
        "optax.contrib._sam",
        &["steps_since_sync", "opt_state", "adv_state", "cache"],
    ),
    (
        "ScaleByAdemamixState",
        "optax.contrib._ademamix",
        &["count", "count_m2", "m1", "m2", "nu"],
    ),
    (
        "ScaleBySimplifiedAdEMAMixState",
        "optax.contrib._ademamix",
        &["t", "m", "n"],
    ),
    (
        "COCOBState",
        "optax.contrib._cocob",
        &[
            "init_particles",
            "cumulative_gradients",
            "scale",
            "subgradients",
            "reward",
        ],
    ),
    (
        "DAdaptAdamWState",
        "optax.contrib._dadapt_adamw",
        &[
            "exp_avg",
            "exp_avg_sq",
            "grad_sum",
            "estim_lr",
            "numerator_weighted",
            "count",
        ],
    ),
    (
        "DoGState",
        "optax.contrib._dog",
        &[
            "is_init_step",
            "init_params",
            "max_dist",
            "sum_sq_norm_grads",
        ],
    ),
    (
        "DoWGState",
        "optax.contrib._dog",
        &["init_params", "weighted_sq_norm_grads", "estim_sq_dist"],
    ),
    (
        "GaLoreState",
        "optax.contrib._galore",
        &["count", "base_optimizer_state", "projector"],
    ),
    ("HutchinsonState", "optax.contrib._sophia", &["key"]),
    (
        "SophiaState",
        "optax.contrib._sophia",
        &["count", "mu", "nu", "hessian_fn_state"],
    ),
    (
        "MadgradState",
        "optax.contrib._madgrad",
        &["count", "grad_sum_sq", "s", "x0"],
    ),
    (
        "MechanicState",
        "optax.contrib._mechanic",
        &["base_optimizer_state", "count", "r", "m", "v", "s", "x0"],
    ),
    (
        "MomoState",
        "optax.contrib._momo",
        &["exp_avg", "barf", "gamma", "lb", "count"],
    ),
    (
        "MomoAdamState",
        "optax.contrib._momo",
        &["exp_avg", "exp_avg_sq", "barf", "gamma", "lb", "count"],
    ),
    (
        "ProdigyState",
        "optax.contrib._prodigy",
        &[
            "exp_avg",
            "exp_avg_sq",
            "grad_sum",
            "params0",
            "estim_lr",
            "numerator_weighted",
            "count",
        ],
    ),
    (
        "ReduceLROnPlateauState",
        "optax.contrib._reduce_on_plateau",
        &[
            "scale",
            "best_value",
            "plateau_count",
            "cooldown_count",
            "count",
            "avg_value",
        ],
    ),
    (
        "ScheduleFreeState",
        "optax.contrib._schedule_free",
        &[
            "b1",
            "weight_sum",
            "step_count",
            "max_lr",
            "base_optimizer_state",
            "z",
        ],
    ),
    (
        "SplitRealAndImaginaryState",
        "optax.contrib._complex_valued",
        &["inner_state"],
    ),
    (
        "DifferentiallyPrivateAggregateState",
        "optax.contrib._privacy",
        &["rng_key"],
    ),
];

/// The names `optax` exports for another state's class (the stateless
/// transformations all keep an `EmptyState`).
const ALIASES: &[(&str, &str)] = &[
    ("AdaptiveGradClipState", "EmptyState"),
    ("AddDecayedWeightsState", "EmptyState"),
    ("ClipByGlobalNormState", "EmptyState"),
    ("ClipState", "EmptyState"),
    ("NonNegativeParamsState", "EmptyState"),
    ("ScaleState", "EmptyState"),
    ("ScaleByTrustRatioState", "EmptyState"),
    ("MultiTransformState", "PartitionState"),
];

/// The default of a field, where optax gives one.
fn default_of(class: &str, field: &str) -> Option<fn() -> Obj> {
    match (class, field) {
        ("MultiStepsState", "skip_state") => Some(|| Obj::tuple(vec![])),
        _ => None,
    }
}

/// The class attributes a state class has beyond its fields.
fn extras_of(class: &str) -> Vec<(String, Obj)> {
    match class {
        "LookaheadParams" => super::wrappers_more::lookahead_params_extras(),
        _ => vec![],
    }
}

thread_local! {
    static CLASSES: RefCell<HashMap<&'static str, Rc<Class>>> = RefCell::new(HashMap::new());
}

/// Drops the classes an earlier run made. Reused by a later run in the
/// same thread, they left that run's states leaves of its pytrees, so
/// each run that imports optax makes its own.
pub(super) fn forget() {
    CLASSES.with(|c| c.borrow_mut().clear());
}

/// The class named `name` in [`STATES`], made on first use.
fn table_class(name: &str) -> Option<Rc<Class>> {
    let row = STATES.iter().find(|r| r.0 == name)?;
    if let Some(c) = CLASSES.with(|c| c.borrow().get(row.0).cloned()) {
        return Some(c);
    }
    let fields: Vec<OwnedField> = row
        .2
        .iter()
        .map(|f| (f.to_string(), default_of(row.0, f)))
        .collect();
    // Every transformation that takes extra arguments is a transformation.
    let bases = match row.0 {
        "GradientTransformationExtraArgs" => {
            table_class("GradientTransformation").into_iter().collect()
        }
        _ => vec![],
    };
    let class = named_class(row.0, Some(row.1), bases, fields, extras_of(row.0));
    CLASSES.with(|c| c.borrow_mut().insert(row.0, class.clone()));
    Some(class)
}

/// The class of the state `name` with these fields, when the table has it
/// (a different field list is a different class).
pub(super) fn class_for(name: &str, fields: &[&str]) -> Option<Rc<Class>> {
    let row = STATES.iter().find(|r| r.0 == name)?;
    if row.2 != fields {
        return None;
    }
    table_class(name)
}

/// Registers on `b` the state classes whose real module is under `prefix`
/// (`optax.contrib` for that module) and that `module` exports, with the
/// aliases for the top level.
pub(super) fn register(b: &mut Builder, module: &str) {
    let contrib = module == "optax.contrib";
    for row in STATES {
        if row.1.starts_with("optax.contrib") != contrib || !super::super::real_name(module, row.0)
        {
            continue;
        }
        if let Some(c) = table_class(row.0) {
            b.attr(row.0, Obj::Class(c));
        }
    }
    if contrib {
        return;
    }
    for (alias, of) in ALIASES {
        if let Some(c) = table_class(of) {
            b.attr(alias, Obj::Class(c));
        }
    }
}
