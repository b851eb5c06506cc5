//! Dead-code elimination: the equations whose results nothing uses,
//! removed, as XLA removes them before it partitions a program. A gradient
//! taken with respect to some arguments computes the cotangents of the
//! others too; left in, their products would each add a collective to the
//! per-device program that no device needs.

use std::collections::HashSet;

use super::{Atom, Jaxpr, Var};
use crate::primitives::Prim;

impl Jaxpr {
    /// This program without the equations whose results are unused (only
    /// those without effects: a print or a host callback stays, and so
    /// does every equation that holds programs of its own, which might).
    pub fn without_dead_code(&self) -> Jaxpr {
        let mut live: HashSet<Var> = self
            .outvars
            .iter()
            .filter_map(|a| match a {
                Atom::Var(v) => Some(*v),
                Atom::Lit(_) => None,
            })
            .collect();
        let mut kept = vec![true; self.eqns.len()];
        for (i, eqn) in self.eqns.iter().enumerate().rev() {
            let used = eqn.outputs.iter().any(|v| live.contains(v));
            let pure = !matches!(eqn.prim, Prim::DebugPrint(_) | Prim::HostCallback(_))
                && eqn.prim.sub_jaxprs().is_empty();
            if !used && pure {
                kept[i] = false;
                continue;
            }
            live.extend(eqn.inputs.iter().filter_map(|a| match a {
                Atom::Var(v) => Some(*v),
                Atom::Lit(_) => None,
            }));
        }
        Jaxpr {
            eqns: self
                .eqns
                .iter()
                .zip(kept)
                .filter(|(_, k)| *k)
                .map(|(e, _)| e.clone())
                .collect(),
            ..self.clone()
        }
    }
}
