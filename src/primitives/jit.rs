//! The `jit` primitive: a call of a traced program, as JAX stages a jitted
//! function inside another trace (`b = jit[name=f jaxpr={ ... }] a`).
//!
//! Evaluating the equation runs the body on the same lanes as the equation
//! itself, so a jitted function works at top level, inside a shard_map body
//! and inside a vmap alike. Its derivatives are those of the body, inlined
//! into the trace that differentiates it.

use std::sync::Arc;

use super::Prim;
use crate::error::Result;
use crate::ir::{Aval, Jaxpr};
use crate::trace::Value;
use crate::transforms::{jvp_jaxpr_eval, vjp_jaxpr_eval};

/// Parameters of a `jit` equation.
#[derive(Debug, Clone)]
#[cfg_attr(target_arch = "wasm32", derive(serde::Serialize, serde::Deserialize))]
pub struct JitParams {
    /// The jitted function's name (`<lambda>` for lambdas).
    pub name: String,
    /// The traced program: the flat dynamic arguments, then the values the
    /// function closed over.
    pub body: Jaxpr,
    /// For each input, whether the caller donated its buffer.
    pub donated: Vec<bool>,
    /// `keep_unused=True`: unused inputs stay inputs of the compiled program.
    pub keep_unused: bool,
}

impl JitParams {
    /// Parameters for the printer, in JAX's order, leaving out those at their
    /// defaults as JAX does (the body is printed by the printer itself).
    pub fn params(&self) -> Vec<(String, String)> {
        let mut out = vec![("name".to_string(), self.name.clone())];
        if self.donated.iter().any(|&d| d) {
            let flags: Vec<&str> = self
                .donated
                .iter()
                .map(|&d| if d { "True" } else { "False" })
                .collect();
            let text = if flags.len() == 1 {
                format!("({},)", flags[0])
            } else {
                format!("({})", flags.join(", "))
            };
            out.push(("donated_invars".into(), text));
        }
        if self.keep_unused {
            out.push(("keep_unused".into(), "True".into()));
        }
        out
    }

    /// Shape rule: the body's outputs.
    pub fn abstract_eval(&self, ins: &[Aval]) -> Result<Vec<Aval>> {
        if ins.len() != self.body.invars.len() {
            crate::bail!(
                TypeError,
                "jit program {} takes {} inputs, got {}",
                self.name,
                self.body.invars.len(),
                ins.len()
            );
        }
        Ok(self.body.out_avals())
    }

    /// Forward mode: the body's tangent program, inlined.
    pub fn jvp(&self, p: &[Value], t: &[Option<Value>]) -> Result<Vec<Option<Value>>> {
        Ok(jvp_jaxpr_eval(&self.body, p, t)?.1)
    }

    /// Reverse mode: the body's cotangent program, inlined. The body's
    /// forward pass runs again there; its prints already happened when the
    /// call itself ran, so they are left out of the rerun.
    pub fn vjp(&self, p: &[Value], cts: &[Option<Value>]) -> Result<Vec<Option<Value>>> {
        if !prints(&self.body) {
            return Ok(vjp_jaxpr_eval(&self.body, p, cts)?.1);
        }
        Ok(vjp_jaxpr_eval(&without_prints(&self.body), p, cts)?.1)
    }
}

/// Whether a program (or a program it calls) has a `debug_print`.
fn prints(body: &Jaxpr) -> bool {
    body.eqns.iter().any(|e| match &e.prim {
        Prim::DebugPrint(_) => true,
        Prim::Jit(j) => prints(&j.body),
        _ => false,
    })
}

/// The program without its `debug_print` equations (which have no
/// outputs), in it and in the programs it calls.
fn without_prints(body: &Jaxpr) -> Jaxpr {
    let mut out = body.clone();
    out.eqns.retain(|e| !matches!(e.prim, Prim::DebugPrint(_)));
    for e in &mut out.eqns {
        if let Prim::Jit(j) = &e.prim {
            if prints(&j.body) {
                let mut inner = (**j).clone();
                inner.body = without_prints(&j.body);
                e.prim = Prim::Jit(Arc::new(inner));
            }
        }
    }
    out
}
