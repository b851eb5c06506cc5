//! Where the results of a `scan` live when its operands are laid out over
//! a mesh.
//!
//! The body sees each scanned array one slice at a time, so a slice's
//! placement is its array's without the leading entry; the carry keeps its
//! own. The body's rules then place the new carry (which JAX's carry check
//! has made the same type as the old one) and each per-step output, which
//! is stacked along a new leading dimension that is whole. This is what
//! JAX's sharding-in-types gives a scan over stacked layers: weights
//! `float32[2,1024,1024@model]` are `float32[1024,1024@model]` in the body.

use std::sync::Arc;

use super::control::ScanParams;
use super::placement::{propagate_jaxpr, Operand};
use super::placement_vmap::{stacked, without_dim};
use crate::error::Result;
use crate::sharding::Placement;
use crate::trace::Value;

/// Where a value lives, if anywhere.
pub type Placed = Option<Arc<Placement>>;

/// Where each of `vals` lives: a concrete array's placement, or what the
/// sharding rules give a tracer of a jitted function.
pub fn value_placements(vals: &[Value]) -> Result<Vec<Placed>> {
    vals.iter()
        .map(|v| match v {
            Value::Concrete(c) => Ok(c.placement_rc()),
            Value::Traced(t) => match &t.known {
                Some(a) => Ok(a.placement_rc()),
                None => crate::trace::tracer_placement(t),
            },
        })
        .collect()
}

/// What a scan body sees of operands placed at `ins` (of ranks `ndims`)
/// of which the first `scanned` are consts and carry, the rest scanned.
pub fn step_placements(scanned: usize, ins: &[Placed], ndims: &[usize]) -> Vec<Placed> {
    ins.iter()
        .zip(ndims)
        .enumerate()
        .map(|(i, (placed, &ndim))| match placed.as_deref() {
            Some(Placement::Named(s)) if i >= scanned => Some(Arc::new(without_dim(s, ndim, 0))),
            _ => placed.clone(),
        })
        .collect()
}

/// The placements of a scan's results, or None when no operand is placed
/// and the body places nothing itself (the general rule then applies).
pub fn scan_outs(p: &ScanParams, ins: &[Operand]) -> Result<Option<Vec<Placed>>> {
    let placed: Vec<Placed> = ins
        .iter()
        .map(|o| o.placement.cloned().map(Arc::new))
        .collect();
    let places_itself = p
        .body
        .eqns
        .iter()
        .any(|e| super::placement::has_own_rule(&e.prim));
    if placed.iter().all(Option::is_none) && !places_itself {
        return Ok(None);
    }
    if let Some(u) = placed
        .iter()
        .flatten()
        .find(|q| matches!(***q, Placement::Unknown(_)))
    {
        return Ok(Some(vec![Some(u.clone()); p.body.outvars.len()]));
    }
    let refs: Vec<&Placement> = ins.iter().filter_map(|o| o.placement).collect();
    super::placement::same_abstract_mesh(&refs)?;
    let ndims: Vec<usize> = ins.iter().map(|o| o.shape.len()).collect();
    let scanned = p.num_consts + p.num_carry;
    let outs = propagate_jaxpr(&p.body, &step_placements(scanned, &placed, &ndims))?;
    let mesh = refs.iter().find_map(|q| match q {
        Placement::Named(s) => Some(s.mesh.clone()),
        _ => None,
    });
    outs.iter()
        .zip(&p.body.outvars)
        .enumerate()
        .map(|(i, (q, var))| {
            if i < p.num_carry {
                return Ok(q.clone());
            }
            let ndim = p.body.atom_aval(var).shape.len();
            stacked(q.as_deref(), &None, mesh.as_ref(), ndim, 0)
        })
        .collect::<Result<Vec<_>>>()
        .map(Some)
}
