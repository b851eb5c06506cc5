//! Dead-code elimination: the equations whose results nothing uses,
//! removed, as XLA removes them before it partitions a program. A gradient
//! taken with respect to some arguments computes the cotangents of the
//! others too; left in, their products would each add a collective to the
//! per-device program that no device needs.

use std::collections::HashSet;

use super::{Atom, Jaxpr, Var};
use crate::primitives::Prim;

/// What a backward walk from a program's outputs finds: which equations
/// it keeps and every variable a kept equation or an output reads.
pub struct Liveness {
    /// One flag per equation.
    pub kept: Vec<bool>,
    /// The variables read.
    pub live: HashSet<Var>,
}

fn vars(atoms: &[Atom]) -> impl Iterator<Item = Var> + '_ {
    atoms.iter().filter_map(|a| match a {
        Atom::Var(v) => Some(*v),
        Atom::Lit(_) => None,
    })
}

impl Jaxpr {
    /// Walks back from the outputs, keeping an equation when
    /// `keep(eqn, used)` says so (`used`: some output of it is read by a
    /// kept equation or by the program's outputs).
    pub fn liveness(&self, keep: impl Fn(&super::Eqn, bool) -> bool) -> Liveness {
        let mut live: HashSet<Var> = vars(&self.outvars).collect();
        let mut kept = vec![false; self.eqns.len()];
        for (i, eqn) in self.eqns.iter().enumerate().rev() {
            let used = eqn.outputs.iter().any(|v| live.contains(v));
            if keep(eqn, used) {
                kept[i] = true;
                live.extend(vars(&eqn.inputs));
            }
        }
        Liveness { kept, live }
    }

    /// This program with only the equations `kept` flags.
    pub fn keeping(&self, kept: &[bool]) -> Jaxpr {
        Jaxpr {
            eqns: self
                .eqns
                .iter()
                .zip(kept)
                .filter(|(_, k)| **k)
                .map(|(e, _)| e.clone())
                .collect(),
            ..self.clone()
        }
    }

    /// This program without the equations whose results are unused (only
    /// those without effects: a print or a host callback stays, and so
    /// does every equation that holds programs of its own, which might).
    pub fn without_dead_code(&self) -> Jaxpr {
        let l = self.liveness(|eqn, used| {
            let pure = !matches!(eqn.prim, Prim::DebugPrint(_) | Prim::HostCallback(_))
                && eqn.prim.sub_jaxprs().is_empty();
            used || !pure
        });
        self.keeping(&l.kept)
    }
}
