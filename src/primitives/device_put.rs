//! `device_put`: `jax.device_put` of traced values, staged as one equation
//! whose operands are the leaves put and whose parameters say where each
//! goes (`devices`), as JAX 0.10.2 stages it inside `jit`.
//!
//! Values pass through unchanged; the placement rules (`placement`) give
//! each result the sharding its target names. JAX honours a sharding target
//! inside `jit` but ignores a bare device there (the result stays where its
//! operand is), so the rules do too. The devices a sharding target names
//! are devices of the computation: `jit` refuses, as JAX does, a program
//! whose `device_put` targets and committed arguments disagree.
//!
//! Forward mode puts the tangents where the primals go. Reverse mode (a
//! `device_put` back to where the operand came from, in JAX) is not
//! modelled and refuses.

use std::sync::Arc;

use super::Prim;
use crate::error::Result;
use crate::ir::Aval;
use crate::mesh::{fmt_types, AxisType};
use crate::sharding::{NamedSharding, Placement};
use crate::trace::Value;

/// Where one operand of a `device_put` equation goes.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(target_arch = "wasm32", derive(serde::Serialize, serde::Deserialize))]
pub enum PutTarget {
    /// No target: the value stays where it is.
    Stay,
    /// A bare device (`jax.devices()[i]`).
    Device(usize),
    /// `SingleDeviceSharding(device)`.
    Single(usize),
    /// A `NamedSharding` (or a `PartitionSpec` over the context mesh).
    Named(NamedSharding),
}

impl PutTarget {
    /// The target as JAX prints it in the equation's `devices`.
    fn text(&self) -> String {
        match self {
            PutTarget::Stay => "None".into(),
            PutTarget::Device(d) => format!("CpuDevice(id={d})"),
            PutTarget::Single(d) => {
                format!("SingleDeviceSharding(device=CpuDevice(id={d}), memory_kind=device)")
            }
            PutTarget::Named(s) => format!(
                "NamedSharding(mesh=Mesh({}, axis_types={}), spec={}, memory_kind={})",
                s.mesh.axes_text(),
                fmt_types(&s.mesh.axis_types()),
                s.spec,
                s.memory_kind.name()
            ),
        }
    }

    /// The devices the target makes part of the computation, if any.
    pub fn device_ids(&self) -> Option<Vec<usize>> {
        match self {
            PutTarget::Single(d) => Some(vec![*d]),
            PutTarget::Named(s) => Some(s.mesh.device_ids().to_vec()),
            PutTarget::Stay | PutTarget::Device(_) => None,
        }
    }

    /// The placement of a result put here from an operand at `from`.
    pub fn placement(&self, from: Option<&Arc<Placement>>) -> Option<Arc<Placement>> {
        match self {
            PutTarget::Stay | PutTarget::Device(_) => from.cloned(),
            PutTarget::Single(d) => Some(Arc::new(Placement::Device(*d))),
            // Over `Auto` axes the compiler chooses the layouts of what
            // follows (often replicating), which shardlab does not model.
            PutTarget::Named(s) if s.mesh.axis_types().contains(&AxisType::Auto) => {
                Some(Arc::new(Placement::Unknown("device_put".into())))
            }
            PutTarget::Named(s) => Some(Arc::new(Placement::Named(s.clone()))),
        }
    }
}

/// Parameters of a `device_put` equation: one target per operand.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(target_arch = "wasm32", derive(serde::Serialize, serde::Deserialize))]
pub struct DevicePutParams {
    /// Where each operand goes.
    pub targets: Vec<PutTarget>,
}

impl DevicePutParams {
    /// Parameters for the printer, as JAX 0.10.2 prints them.
    pub fn params(&self) -> Vec<(String, String)> {
        let tuple = |items: Vec<String>| {
            if items.len() == 1 {
                format!("({},)", items[0])
            } else {
                format!("({})", items.join(", "))
            }
        };
        let n = self.targets.len();
        vec![
            (
                "copy_semantics".into(),
                tuple(vec!["ArrayCopySemantics.REUSE_INPUT".into(); n]),
            ),
            (
                "devices".into(),
                tuple(self.targets.iter().map(PutTarget::text).collect()),
            ),
            ("srcs".into(), tuple(vec!["None".into(); n])),
        ]
    }

    /// Shape rule: each operand's aval, after checking that its target
    /// splits it evenly.
    pub fn abstract_eval(&self, ins: &[Aval]) -> Result<Vec<Aval>> {
        if ins.len() != self.targets.len() {
            crate::bail!(
                TypeError,
                "device_put has {} targets but {} operands",
                self.targets.len(),
                ins.len()
            );
        }
        for (x, t) in ins.iter().zip(&self.targets) {
            if let PutTarget::Named(s) = t {
                s.shard_shape(&x.shape)?;
            }
        }
        Ok(ins.to_vec())
    }

    /// Forward mode: each nonzero tangent goes where its primal goes, in
    /// one equation as JAX binds it.
    pub fn jvp(&self, tangents: &[Option<Value>]) -> Result<Vec<Option<Value>>> {
        let mut targets = vec![];
        let mut values = vec![];
        for (t, target) in tangents.iter().zip(&self.targets) {
            if let Some(t) = t {
                targets.push(target.clone());
                values.push(t.clone());
            }
        }
        if values.is_empty() {
            return Ok(vec![None; tangents.len()]);
        }
        let prim = Prim::DevicePut(Arc::new(DevicePutParams { targets }));
        let mut put = crate::trace::bind(prim, &values)?.into_iter();
        Ok(tangents
            .iter()
            .map(|t| t.as_ref().and_then(|_| put.next()))
            .collect())
    }

    /// Reverse mode is not modelled.
    pub fn vjp(&self) -> Result<Vec<Option<Value>>> {
        crate::bail!(
            NotImplementedError,
            "not supported by shardlab yet: reverse-mode differentiation of jax.device_put"
        )
    }
}
