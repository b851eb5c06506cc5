//! The `checkpoint` primitive (JAX's `remat2`, from `jax.checkpoint`) and
//! the `name` primitive (from `checkpoint_name`).
//!
//! A checkpointed function is staged as one equation holding its body and
//! the policy that says which of the body's values the backward pass may
//! keep; everything else it recomputes. Values never change: evaluating the
//! equation runs the body, and its derivatives are those of the body. The
//! policy matters to what is saved, which `print_saved_residuals` shows.

use super::Prim;
use crate::error::Result;
use crate::ir::{Aval, Jaxpr};
use crate::trace::Value;
use crate::transforms::{jvp_jaxpr_eval, vjp_jaxpr_eval};

/// Which values of a checkpointed body the backward pass may keep: the
/// policies of `jax.checkpoint_policies`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(target_arch = "wasm32", derive(serde::Serialize, serde::Deserialize))]
pub enum Policy {
    /// No policy given: nothing is saved.
    Default,
    /// `everything_saveable` (and `save_anything_except_these_names`,
    /// which JAX defines as saving everything).
    Everything(String),
    /// `nothing_saveable`.
    Nothing,
    /// `dots_saveable` (false) or `dots_with_no_batch_dims_saveable` (true).
    Dots(bool),
    /// `save_only_these_names(...)`.
    OnlyNames(Vec<String>),
    /// `save_any_names_but_these(...)`.
    AnyNameBut(Vec<String>),
    /// `save_from_both_policies(a, b)`.
    Both(Box<Policy>, Box<Policy>),
    /// A policy written in Python, by its function's name. It cannot change
    /// a value, so a checkpoint with it evaluates and differentiates; only
    /// what would be saved is unknown (`print_saved_residuals` refuses).
    Python(String),
}

/// `frozenset({'a', 'b'})` as Python prints it (insertion order; JAX's
/// set order follows string hashes, which vary between runs).
fn frozenset(names: &[String]) -> String {
    if names.is_empty() {
        return "frozenset()".into();
    }
    let items: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
    format!("frozenset({{{}}})", items.join(", "))
}

impl Policy {
    /// Whether the output of an equation of `prim` may be saved.
    pub fn saveable(&self, prim: &Prim) -> bool {
        match self {
            Policy::Default | Policy::Nothing => false,
            Policy::Everything(_) => true,
            Policy::Dots(no_batch) => match prim {
                Prim::DotGeneral { batch, .. } => {
                    !no_batch || (batch.0.is_empty() && batch.1.is_empty())
                }
                Prim::Conv(_) => !no_batch,
                _ => false,
            },
            Policy::OnlyNames(names) => {
                matches!(prim, Prim::Name(n) if names.iter().any(|m| m == n.as_str()))
            }
            Policy::AnyNameBut(names) => {
                matches!(prim, Prim::Name(n) if !names.iter().any(|m| m == n.as_str()))
            }
            Policy::Both(a, b) => a.saveable(prim) || b.saveable(prim),
            // Never consulted: residuals refuse a Python policy first.
            Policy::Python(_) => true,
        }
    }

    /// How a jaxpr prints the policy parameter.
    pub fn text(&self) -> String {
        match self {
            Policy::Default => "None".into(),
            Policy::Everything(name) => format!("<function {name}>"),
            Policy::Nothing => "<function nothing_saveable>".into(),
            Policy::Dots(b) => {
                let b = if *b { "True" } else { "False" };
                format!("DotsSaveable(only_if_no_batch_dims={b})")
            }
            Policy::OnlyNames(n) => format!("SaveOnlyTheseNames(saveable_names={})", frozenset(n)),
            Policy::AnyNameBut(n) => format!("SaveAnyNamesButThese(names={})", frozenset(n)),
            Policy::Both(..) => "<function save_from_both_policies.<locals>.policy>".into(),
            Policy::Python(name) => format!("<function {name}>"),
        }
    }
}

/// Parameters of a checkpoint equation.
#[derive(Debug, Clone)]
#[cfg_attr(target_arch = "wasm32", derive(serde::Serialize, serde::Deserialize))]
pub struct RematParams {
    /// The checkpointed function's program: its flat array arguments, then
    /// the values it closed over.
    pub body: Jaxpr,
    /// `prevent_cse=`.
    pub prevent_cse: bool,
    /// True once the equation is in a derivative program.
    pub differentiated: bool,
    /// Which values the backward pass may keep.
    pub policy: Policy,
}

impl RematParams {
    /// Parameters for the printer (JAX sorts them; the body is printed by
    /// the printer itself).
    pub fn params(&self) -> Vec<(String, String)> {
        let flag = |b: bool| if b { "True" } else { "False" }.to_string();
        vec![
            ("differentiated".into(), flag(self.differentiated)),
            ("policy".into(), self.policy.text()),
            ("prevent_cse".into(), flag(self.prevent_cse)),
        ]
    }

    /// Shape rule: the body's outputs.
    pub fn abstract_eval(&self, ins: &[Aval]) -> Result<Vec<Aval>> {
        if ins.len() != self.body.invars.len() {
            crate::bail!(
                TypeError,
                "checkpoint program takes {} inputs, got {}",
                self.body.invars.len(),
                ins.len()
            );
        }
        Ok(self.body.out_avals())
    }

    /// Forward mode: the body's tangent program.
    pub fn jvp(&self, p: &[Value], t: &[Option<Value>]) -> Result<Vec<Option<Value>>> {
        Ok(jvp_jaxpr_eval(&self.body, p, t)?.1)
    }

    /// Reverse mode: the body runs again and its cotangent program follows,
    /// which is what rematerialization means (a split of the pullback
    /// keeps only what the policy saves).
    pub fn vjp(&self, p: &[Value], cts: &[Option<Value>]) -> Result<Vec<Option<Value>>> {
        crate::transforms::split::in_checkpoint(&self.policy, || {
            Ok(vjp_jaxpr_eval(&self.body, p, cts)?.1)
        })
    }
}
