//! `sharding_constraint` and `reshard`: the identity on values that fixes
//! where its result lives, as `jax.lax.with_sharding_constraint` (over
//! `Auto` mesh axes) and `jax.sharding.reshard` (over `Explicit` ones) stage
//! it inside a traced program.
//!
//! Values pass through unchanged, so the derivatives are the identity too.
//! What the equation carries is the sharding: the placement rules
//! (`placement`) give its result exactly that sharding, whatever its
//! operand's was.

use std::sync::Arc;

use super::Prim;
use crate::error::Result;
use crate::ir::Aval;
use crate::mesh::{fmt_types, Mesh};
use crate::sharding::{NamedSharding, Placement};
use crate::trace::Value;

/// Parameters of a `sharding_constraint` or `reshard` equation.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(target_arch = "wasm32", derive(serde::Serialize, serde::Deserialize))]
pub struct ConstraintParams {
    /// The sharding the result gets.
    pub sharding: NamedSharding,
    /// True for `reshard` (explicit axes), false for `sharding_constraint`.
    pub reshard: bool,
    /// The context mesh when the constraint was staged (`jax.set_mesh`),
    /// which JAX records as a parameter.
    pub context_mesh: Option<Mesh>,
    /// True when the sharding was given as a bare `PartitionSpec` resolved
    /// over the context mesh: JAX then prints it over the abstract mesh.
    pub from_spec: bool,
}

impl ConstraintParams {
    /// The placement of the result.
    pub fn placement(&self) -> Placement {
        Placement::Named(self.sharding.clone())
    }

    /// The primitive's name in a jaxpr.
    pub fn name(&self) -> &'static str {
        if self.reshard {
            "reshard"
        } else {
            "sharding_constraint"
        }
    }

    /// Parameters for the printer, as JAX 0.10.2 prints them.
    pub fn params(&self) -> Vec<(String, String)> {
        if self.reshard {
            return vec![];
        }
        let context = match &self.context_mesh {
            Some(m) => m.abstract_text(),
            None => "Mesh()".into(),
        };
        let mesh = &self.sharding.mesh;
        let sharding = if self.from_spec {
            format!(
                "NamedSharding(mesh={}, spec={})",
                mesh.abstract_text(),
                self.sharding.spec
            )
        } else {
            format!(
                "NamedSharding(mesh=Mesh({}, axis_types={}), spec={}, memory_kind={})",
                mesh.axes_text(),
                fmt_types(&mesh.axis_types()),
                self.sharding.spec,
                self.sharding.memory_kind.name()
            )
        };
        vec![
            ("context_mesh".into(), context),
            ("layout".into(), "None".into()),
            ("sharding".into(), sharding),
            ("unconstrained_dims".into(), "frozenset({})".into()),
        ]
    }

    /// Shape rule: the operand's aval.
    pub fn abstract_eval(&self, ins: &[Aval]) -> Result<Vec<Aval>> {
        match ins {
            [x] => {
                self.sharding.shard_shape(&x.shape)?;
                Ok(vec![x.clone()])
            }
            _ => crate::bail!(
                TypeError,
                "{} takes one operand, got {}",
                self.name(),
                ins.len()
            ),
        }
    }
}

/// Forward and reverse mode alike: the tangent or cotangent goes through the
/// same constraint, as JAX's rules constrain it.
pub fn constrained(c: &Arc<ConstraintParams>, ts: &[Option<Value>]) -> Result<Vec<Option<Value>>> {
    ts.iter()
        .map(|t| match t {
            Some(t) => Ok(Some(crate::trace::bind1(
                Prim::ShardingConstraint(c.clone()),
                std::slice::from_ref(t),
            )?)),
            None => Ok(None),
        })
        .collect()
}
