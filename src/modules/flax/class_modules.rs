//! The Python modules Flax defines nnx's classes in, which `__module__`
//! and `repr(type(x))` name (`<class 'flax.nnx.nn.linear.Linear'>`).
//! shardlab builds the classes in one place, so each is given its module
//! here by name when `flax.nnx` is built.

use super::*;

/// Flax's module of each class `flax.nnx` exports.
const MODULES: [(&str, &[&str]); 16] = [
    ("flax.nnx.module", &["Module"]),
    ("flax.nnx.pytreelib", &["Object", "Pytree"]),
    ("flax.nnx.statelib", &["FlatState", "State"]),
    ("flax.nnx.graphlib", &["GraphDef", "GraphState"]),
    (
        "flax.nnx.rnglib",
        &["RngCount", "RngKey", "RngState", "RngStream", "Rngs"],
    ),
    ("flax.nnx.helpers", &["Dict", "Sequential", "TrainState"]),
    (
        "flax.nnx.nn.linear",
        &[
            "Conv",
            "ConvTranspose",
            "Einsum",
            "Embed",
            "Linear",
            "LinearGeneral",
        ],
    ),
    (
        "flax.nnx.nn.normalization",
        &[
            "BatchNorm",
            "GroupNorm",
            "InstanceNorm",
            "LayerNorm",
            "RMSNorm",
            "SpectralNorm",
            "WeightNorm",
        ],
    ),
    (
        "flax.nnx.nn.recurrent",
        &[
            "Bidirectional",
            "GRUCell",
            "LSTMCell",
            "OptimizedLSTMCell",
            "RNN",
            "RNNCellBase",
            "SimpleCell",
        ],
    ),
    ("flax.nnx.nn.stochastic", &["Dropout"]),
    ("flax.nnx.nn.attention", &["MultiHeadAttention"]),
    ("flax.nnx.nn.activations", &["PReLU"]),
    ("flax.nnx.nn.lora", &["LoRA", "LoRALinear", "LoRAParam"]),
    ("flax.nnx.training.ema", &["EMA"]),
    ("flax.nnx.training.metrics", &["Metric", "MultiMetric"]),
    (
        "flax.nnx.training.optimizer",
        &[
            "ModelAndOptimizer",
            "OptArray",
            "OptState",
            "OptVariable",
            "Optimizer",
        ],
    ),
];

/// `nnx` with each of its classes that names no module of its own given
/// Flax's.
pub(super) fn with_modules(nnx: Obj) -> Obj {
    if let Obj::Module(m) = &nnx {
        set_modules(m);
    }
    nnx
}

fn set_modules(m: &crate::python::value::Module) {
    for (name, value) in m.attrs.borrow().iter() {
        let Obj::Class(c) = value else { continue };
        let Some((module, _)) = MODULES
            .iter()
            .find(|(_, names)| names.contains(&name.as_str()))
        else {
            continue;
        };
        let mut attrs = c.attrs.borrow_mut();
        if c.name == *name && !attrs.iter().any(|(k, _)| k == "__module__") {
            attrs.push(("__module__".into(), Obj::str(*module)));
        }
    }
}
