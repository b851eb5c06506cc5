//! Where the results of a `vmap` live when its operands, or what its body
//! makes, are laid out over a mesh.
//!
//! The body sees each mapped operand without its mapped dimension, so its
//! placement loses that dimension's entry; the body's own rules then place
//! its results, and each result gets the mapped dimension back at its
//! `out_axes` position, split as the operands' mapped dimensions were. This
//! is what JAX's batching gives sharded types: `vmap(f)` of an array split
//! `P('data', 'model')` over its rows is split `P('data', ...)` over the
//! rows of the result, and a draw with `out_sharding=P(None, 'model')`
//! inside the body is `P(None, None, 'model')` once stacked.

use std::sync::Arc;

use super::maps::MapParams;
use super::placement::{propagate_jaxpr, Operand};
use crate::bail;
use crate::error::Result;
use crate::mesh::Mesh;
use crate::sharding::{NamedSharding, PartitionSpec, Placement};

type Placed = Option<Arc<Placement>>;

/// The placements of a vmap's `n` results, or None where the operands are
/// not laid out over a mesh and the body places nothing itself (the
/// general rule then applies).
pub fn vmap_outs(m: &MapParams, ins: &[Operand], n: usize) -> Result<Option<Vec<Placed>>> {
    if ins
        .iter()
        .any(|o| matches!(o.placement, Some(Placement::Device(_))))
    {
        return Ok(None);
    }
    if ins
        .iter()
        .any(|o| matches!(o.placement, Some(Placement::Unknown(_))))
    {
        let unknown = Arc::new(Placement::Unknown("vmap".into()));
        return Ok(Some(vec![Some(unknown); n]));
    }
    let named: Vec<&NamedSharding> = ins
        .iter()
        .filter_map(|o| match o.placement {
            Some(Placement::Named(s)) => Some(s),
            _ => None,
        })
        .collect();
    if named.is_empty() && !places_itself(m) {
        return Ok(None);
    }
    let placed: Vec<&Placement> = ins.iter().filter_map(|o| o.placement).collect();
    super::placement::same_abstract_mesh(&placed)?;
    let batch = mapped_entry(m, ins)?;
    let body_ins: Vec<Placed> = ins
        .iter()
        .zip(&m.in_axes)
        .map(|(o, axis)| match (o.placement, axis) {
            (Some(Placement::Named(s)), Some(a)) => {
                Ok(Some(Arc::new(without_dim(s, o.shape.len(), *a))))
            }
            (p, _) => Ok(p.cloned().map(Arc::new)),
        })
        .collect::<Result<_>>()?;
    let outs = propagate_jaxpr(&m.body, &body_ins)?;
    let mesh = named.first().map(|s| s.mesh.clone());
    outs.iter()
        .zip(&m.out_axes)
        .zip(&m.body.outvars)
        .map(|((p, &axis), var)| {
            let ndim = m.body.atom_aval(var).shape.len();
            stacked(p.as_deref(), &batch, mesh.as_ref(), ndim, axis)
        })
        .collect::<Result<Vec<_>>>()
        .map(Some)
}

/// Whether the body places some result whatever its operands are (a draw
/// with `out_sharding`, a `reshard`, a nested vmap that does).
fn places_itself(m: &MapParams) -> bool {
    m.body
        .eqns
        .iter()
        .any(|e| super::placement::has_own_rule(&e.prim))
}

/// How the mapped dimension is split: the entry the mapped operands give
/// it. Operands that split it differently are JAX's ValueError.
fn mapped_entry(m: &MapParams, ins: &[Operand]) -> Result<Option<Vec<String>>> {
    let mut found: Option<Option<Vec<String>>> = None;
    for (o, axis) in ins.iter().zip(&m.in_axes) {
        let (Some(Placement::Named(s)), Some(a)) = (o.placement, axis) else {
            continue;
        };
        if !s.spec.unreduced.is_empty() || !s.spec.reduced.is_empty() {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: vmap of arrays with unreduced or reduced mesh axes"
            );
        }
        let entry = s.spec.entries.get(*a).cloned().flatten();
        match &found {
            Some(seen) if *seen != entry => bail!(
                ValueError,
                "Mapped away dimension of inputs passed to vmap should be sharded the same. Got inconsistent axis specs: {} vs {}",
                entry_text(seen),
                entry_text(&entry)
            ),
            _ => found = Some(entry),
        }
    }
    Ok(found.flatten())
}

/// An entry as JAX's message shows it: `data`, `None`, `('data', 'model')`.
fn entry_text(e: &Option<Vec<String>>) -> String {
    match e {
        None => "None".into(),
        Some(names) if names.len() == 1 => names[0].clone(),
        Some(names) => format!(
            "({})",
            names
                .iter()
                .map(|n| format!("'{n}'"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// `s` for the body's view of an operand of rank `ndim` mapped over `axis`.
pub fn without_dim(s: &NamedSharding, ndim: usize, axis: usize) -> Placement {
    let mut entries = s.spec.entries.clone();
    entries.resize(ndim, None);
    entries.remove(axis);
    let spec = PartitionSpec::new(entries);
    Placement::Named(NamedSharding::new(s.mesh.clone(), spec).in_memory(s.memory_kind))
}

/// A body result's placement `p` (rank `ndim`) with the mapped dimension
/// put back at `axis`, split as `batch`.
pub(super) fn stacked(
    p: Option<&Placement>,
    batch: &Option<Vec<String>>,
    mesh: Option<&Mesh>,
    ndim: usize,
    axis: usize,
) -> Result<Placed> {
    let (mesh, mut entries, memory) = match p {
        Some(Placement::Named(s)) => {
            if !s.spec.unreduced.is_empty() || !s.spec.reduced.is_empty() {
                bail!(
                    NotImplementedError,
                    "not supported by shardlab yet: vmap of a result with unreduced or reduced mesh axes"
                );
            }
            (s.mesh.clone(), s.spec.entries.clone(), s.memory_kind)
        }
        Some(other) => return Ok(Some(Arc::new(other.clone()))),
        None => match (batch, mesh) {
            (Some(_), Some(m)) => (m.clone(), vec![], Default::default()),
            _ => return Ok(None),
        },
    };
    entries.resize(ndim, None);
    entries.insert(axis.min(ndim), batch.clone());
    let spec = PartitionSpec::new(entries);
    Ok(Some(Arc::new(Placement::Named(
        NamedSharding::new(mesh, spec).in_memory(memory),
    ))))
}
