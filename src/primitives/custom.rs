//! `custom_jvp_call` and `custom_vjp_call`: functions whose derivatives are
//! given by rules rather than found by differentiating their bodies.
//!
//! Both are staged only while a differentiation traces the function (outside
//! one, the Python function runs as itself, as in JAX). By then the rules
//! are traced programs:
//!
//! - a custom_jvp equation holds the jvp rule as one program from
//!   `(primals, tangents)` to `(outputs, output tangents)`. Its value is the
//!   rule's outputs at zero tangents, its forward derivative the rule itself,
//!   and its reverse derivative the transpose of the rule's tangent map
//!   (which is linear in the tangents), found by pulling the cotangents back
//!   through that map.
//! - a custom_vjp equation holds the forward rule, from the primals to the
//!   outputs and residuals, and the backward rule, from the residuals and
//!   output cotangents to the inputs' cotangents. Forward mode is an error,
//!   as in JAX.

use super::Prim;
use crate::error::Result;
use crate::ir::{Aval, Jaxpr};
use crate::ops;
use crate::trace::{eval_jaxpr, Value};
use crate::transforms::vjp_jaxpr_eval;

/// Parameters of a `custom_jvp_call` equation. Its inputs are the primals,
/// then the values the rule closed over.
#[derive(Debug, Clone)]
#[cfg_attr(target_arch = "wasm32", derive(serde::Serialize, serde::Deserialize))]
pub struct CustomJvpParams {
    /// The custom function's name.
    pub name: String,
    /// The jvp rule's name.
    pub jvp_name: String,
    /// The rule: primals, tangents, closed-over values to outputs, then
    /// output tangents.
    pub rule: Jaxpr,
    /// The primal function as the rule computes it at zero tangents:
    /// primals and closed-over values to outputs.
    pub call: Jaxpr,
    /// The number of primal inputs.
    pub n_args: usize,
}

impl CustomJvpParams {
    /// Parameters for the printer (the primal program is printed by the
    /// printer itself).
    pub fn params(&self) -> Vec<(String, String)> {
        vec![
            ("name".into(), self.name.clone()),
            ("jvp".into(), self.jvp_name.clone()),
            ("symbolic_zeros".into(), "False".into()),
        ]
    }

    /// Shape rule: the primal program's outputs.
    pub fn abstract_eval(&self, _: &[Aval]) -> Result<Vec<Aval>> {
        Ok(self.call.out_avals())
    }

    fn rule_inputs(&self, ins: &[Value], tangents: &[Option<Value>]) -> Vec<Value> {
        let (primals, rest) = ins.split_at(self.n_args);
        let mut all = primals.to_vec();
        all.extend(primals.iter().enumerate().map(|(i, p)| {
            tangents
                .get(i)
                .cloned()
                .flatten()
                .unwrap_or_else(|| ops::zeros_like(p))
        }));
        all.extend(rest.iter().cloned());
        all
    }

    /// Forward mode: the rule's output tangents.
    pub fn jvp(&self, ins: &[Value], tangents: &[Option<Value>]) -> Result<Vec<Option<Value>>> {
        let outs = eval_jaxpr(&self.rule, &self.rule_inputs(ins, tangents))?;
        let n_outs = self.call.outvars.len();
        Ok(outs.into_iter().skip(n_outs).map(Some).collect())
    }

    /// Reverse mode: the cotangents pulled back through the rule's tangent
    /// map (at zero tangents, which it does not depend on).
    pub fn vjp(&self, ins: &[Value], cts: &[Option<Value>]) -> Result<Vec<Option<Value>>> {
        let n_outs = self.call.outvars.len();
        let mut all_cts = vec![None; n_outs];
        all_cts.extend(cts.iter().cloned());
        let inputs = self.rule_inputs(ins, &[]);
        let (_, in_cts) = vjp_jaxpr_eval(&self.rule, &inputs, &all_cts)?;
        let mut out: Vec<Option<Value>> = in_cts
            .into_iter()
            .skip(self.n_args)
            .take(self.n_args)
            .collect();
        out.resize(ins.len(), None);
        Ok(out)
    }
}

/// Parameters of a `custom_vjp_call` equation. Its inputs are the primals,
/// the values the forward rule closed over, then those the backward rule
/// closed over.
#[derive(Debug, Clone)]
#[cfg_attr(target_arch = "wasm32", derive(serde::Serialize, serde::Deserialize))]
pub struct CustomVjpParams {
    /// The custom function's name.
    pub name: String,
    /// The forward rule's name.
    pub fwd_name: String,
    /// The backward rule's name.
    pub bwd_name: String,
    /// The forward rule: primals and its closed-over values to outputs,
    /// then residuals.
    pub fwd: Jaxpr,
    /// The backward rule: residuals, output cotangents and its closed-over
    /// values to one cotangent per primal.
    pub bwd: Jaxpr,
    /// The number of primal inputs.
    pub n_args: usize,
    /// The number of outputs (the forward rule's other outputs are residuals).
    pub n_outs: usize,
    /// What the backward rule printed when it was traced. JAX calls the
    /// rule when the pullback is applied, not when the function is
    /// called, so the text comes out each time this equation is
    /// transposed, where JAX's rule would print it.
    pub bwd_printed: String,
    /// The front end's number for the Python backward rule, which it calls
    /// when the equation is transposed where it can ([`set_bwd_hook`]).
    pub bwd_id: Option<u64>,
}

/// How the front end applies a backward rule: its number, the residuals and
/// the output cotangents; the inputs' cotangents, or None where it cannot
/// (the traced rule runs then).
pub type BwdHook = fn(u64, &[Value], &[Value]) -> Result<Option<Vec<Value>>>;

static BWD_HOOK: std::sync::OnceLock<BwdHook> = std::sync::OnceLock::new();

/// Installs the front end's hook (the first installation stays).
pub fn set_bwd_hook(f: BwdHook) {
    let _ = BWD_HOOK.get_or_init(|| f);
}

impl CustomVjpParams {
    /// Parameters for the printer (the forward program is printed by the
    /// printer itself).
    pub fn params(&self) -> Vec<(String, String)> {
        vec![
            ("name".into(), self.name.clone()),
            ("bwd".into(), self.bwd_name.clone()),
            ("symbolic_zeros".into(), "False".into()),
        ]
    }

    /// The number of inputs of the forward rule (primals and its closure).
    pub fn n_fwd_inputs(&self) -> usize {
        self.fwd.invars.len()
    }

    /// Shape rule: the forward rule's outputs without the residuals.
    pub fn abstract_eval(&self, _: &[Aval]) -> Result<Vec<Aval>> {
        let mut outs = self.fwd.out_avals();
        outs.truncate(self.n_outs);
        Ok(outs)
    }

    /// Reverse mode: the forward rule's residuals, then the backward rule.
    pub fn vjp(&self, ins: &[Value], cts: &[Option<Value>]) -> Result<Vec<Option<Value>>> {
        let (fwd_ins, bwd_closure) = ins.split_at(self.n_fwd_inputs());
        let outs = eval_jaxpr(&self.fwd, fwd_ins)?;
        let (ys, res) = outs.split_at(self.n_outs);
        let cts: Vec<Value> = ys
            .iter()
            .zip(cts)
            .map(|(y, c)| c.clone().unwrap_or_else(|| ops::zeros_like(y)))
            .collect();
        // JAX calls the Python rule now, on these values.
        if let (Some(id), Some(hook)) = (self.bwd_id, BWD_HOOK.get()) {
            if let Some(out) = hook(id, res, &cts)? {
                let mut out: Vec<Option<Value>> = out.into_iter().map(Some).collect();
                out.resize(ins.len(), None);
                return Ok(out);
            }
        }
        if !self.bwd_printed.is_empty() {
            crate::exec::run::defer_text(&self.bwd_printed);
        }
        let mut bwd_ins = res.to_vec();
        bwd_ins.extend(cts);
        bwd_ins.extend(bwd_closure.iter().cloned());
        let mut out: Vec<Option<Value>> = eval_jaxpr(&self.bwd, &bwd_ins)?
            .into_iter()
            .map(Some)
            .collect();
        out.resize(ins.len(), None);
        Ok(out)
    }
}

/// Forward mode of a custom_vjp function: JAX's error.
pub fn custom_vjp_jvp_error() -> crate::error::Error {
    crate::err!(
        TypeError,
        "can't apply forward-mode autodiff (jvp) to a custom_vjp function."
    )
}

/// The program an evaluator runs for a custom call, how many of its leading
/// inputs it takes and how many of its leading outputs it gives.
pub fn evaluated(prim: &Prim) -> Option<(&Jaxpr, usize, usize)> {
    match prim {
        Prim::CustomJvp(c) => Some((&c.call, c.call.invars.len(), c.call.outvars.len())),
        Prim::CustomVjp(c) => Some((&c.fwd, c.n_fwd_inputs(), c.n_outs)),
        _ => None,
    }
}
