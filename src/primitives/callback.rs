//! `pure_callback` and `io_callback`: a Python function called on the host
//! in the middle of a traced program, with the values of its operands.
//!
//! The equation holds the front end's number for the function (the
//! function itself is a Python object, which a program cannot carry), the
//! types it promised to return and how it behaves under `vmap`. Running it
//! asks the front end, through the hook it installs ([`set_host`]), to call
//! the function; only a program run where the front end can be reached
//! (in the thread that runs the Python program, outside any shard_map or
//! pmap body) can do that.

use std::sync::OnceLock;

use crate::array::Array;
use crate::bail;
use crate::error::Result;
use crate::ir::Aval;

/// Which API made the equation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(target_arch = "wasm32", derive(serde::Serialize, serde::Deserialize))]
pub enum CallbackKind {
    /// `jax.pure_callback`: may be dropped when nothing reads its results.
    Pure,
    /// `jax.experimental.io_callback(ordered=...)`: always runs.
    Io {
        /// `ordered=True`: runs in program order (shardlab runs every
        /// callback in program order) and refuses `vmap`.
        ordered: bool,
    },
}

/// Parameters of a `pure_callback` or `io_callback` equation.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(target_arch = "wasm32", derive(serde::Serialize, serde::Deserialize))]
pub struct HostCallbackParams {
    /// Which API.
    pub kind: CallbackKind,
    /// The front end's number for the Python function.
    pub id: u64,
    /// How JAX names the function in a jaxpr (`<function f at 0x...>`).
    pub callback_repr: String,
    /// The operands' structure as JAX prints it (`PyTreeDef(((*,), {}))`).
    pub in_tree: String,
    /// The declared result types, flattened.
    pub result_avals: Vec<Aval>,
    /// `vmap_method` of a pure callback (None: vmap is refused).
    pub vmap_method: Option<String>,
}

impl HostCallbackParams {
    /// The equation's name.
    pub fn name(&self) -> &'static str {
        match self.kind {
            CallbackKind::Pure => "pure_callback",
            CallbackKind::Io { .. } => "io_callback",
        }
    }

    /// Parameters as JAX 0.10.2 prints them.
    pub fn params(&self) -> Vec<(String, String)> {
        let avals: Vec<String> = self
            .result_avals
            .iter()
            .map(|a| {
                let dims: Vec<String> = a.shape.iter().map(|d| d.to_string()).collect();
                format!("ShapedArray({}[{}])", a.dtype.name(), dims.join(","))
            })
            .collect();
        let avals = match avals.len() {
            1 => format!("({},)", avals[0]),
            _ => format!("({})", avals.join(", ")),
        };
        let callback = format!(
            "_FlatCallback(callback_func={}, in_tree={})",
            self.callback_repr, self.in_tree
        );
        let mut out = vec![("callback".to_string(), callback)];
        if let CallbackKind::Io { ordered } = self.kind {
            let o = if ordered { "True" } else { "False" };
            out.push(("ordered".into(), o.into()));
        }
        out.push(("result_avals".into(), avals));
        out.push(("sharding".into(), "None".into()));
        if self.kind == CallbackKind::Pure {
            let m = self.vmap_method.as_deref().unwrap_or("None");
            out.push(("vmap_method".into(), m.into()));
        }
        out
    }

    /// Shape rule: the declared results.
    pub fn abstract_eval(&self, _: &[Aval]) -> Result<Vec<Aval>> {
        Ok(self.result_avals.clone())
    }

    /// Forward mode: refused with JAX's message.
    pub fn jvp_error(&self) -> crate::error::Error {
        match self.kind {
            CallbackKind::Pure => crate::err!(
                ValueError,
                "Pure callbacks do not support JVP. Please use `jax.custom_jvp` to use callbacks while taking gradients."
            ),
            CallbackKind::Io { .. } => crate::err!(ValueError, "IO callbacks do not support JVP."),
        }
    }

    /// Whether the equation must run though nothing reads its results.
    pub fn has_effect(&self) -> bool {
        matches!(self.kind, CallbackKind::Io { .. })
    }
}

/// How the front end calls a callback: the parameters, then one operand
/// per input; returns one array per declared result.
pub type HostFn = fn(&HostCallbackParams, &[Array]) -> Result<Vec<Array>>;

static HOST: OnceLock<HostFn> = OnceLock::new();

/// Installs the front end's hook (the first installation stays).
pub fn set_host(f: HostFn) {
    let _ = HOST.get_or_init(|| f);
}

/// Calls the callback of `params` once with `args`.
pub fn call_host(params: &HostCallbackParams, args: &[Array]) -> Result<Vec<Array>> {
    let Some(f) = HOST.get() else {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.{} outside a Python program",
            params.name()
        );
    };
    f(params, args)
}
