//! `jax.tree.broadcast` (a prefix tree's leaves repeated over the full
//! tree's subtrees) and `jax.tree.reduce_associative` (a balanced
//! reduction of the leaves: each half reduced, then the halves combined).

use crate::bail;
use crate::error::Result;
use crate::python::interp::Interp;
use crate::python::pytree::{flatten_full, flatten_up_to, unflatten};
use crate::python::value::{Args, Obj};

use super::errors;

/// `broadcast(prefix_tree, full_tree, is_leaf=None)`.
pub(super) fn broadcast(i: &mut Interp, a: Args) -> Result<Obj> {
    let func = "tree_broadcast";
    let prefix = a.req(Some(0), "prefix_tree", func)?;
    let full = a.req(Some(1), "full_tree", func)?;
    let is_leaf = a.opt(Some(2), "is_leaf");
    let (leaves, _, def) = flatten_full(i, &prefix, is_leaf.as_ref(), false)?;
    let subtrees = match flatten_up_to(i, &def, &full) {
        Ok(s) => s,
        Err(e) => {
            let name = "broadcast_prefix prefix_tree";
            return Err(
                errors::prefix_error(i, &prefix, &full, is_leaf.as_ref(), name)?.unwrap_or(e),
            );
        }
    };
    let mut out = vec![];
    for (leaf, sub) in leaves.into_iter().zip(subtrees) {
        let n = flatten_full(i, &sub, None, false)?.2.num_leaves();
        out.extend(std::iter::repeat_n(leaf, n));
    }
    let (_, _, full_def) = flatten_full(i, &full, None, false)?;
    unflatten(i, &full_def, &out)
}

/// `reduce_associative(operation, tree, *, identity=..., is_leaf=None)`.
pub(super) fn reduce_associative(i: &mut Interp, a: Args) -> Result<Obj> {
    let func = "tree_reduce_associative";
    let op = a.req(Some(0), "operation", func)?;
    let tree = a.req(Some(1), "tree", func)?;
    let is_leaf = a.opt(None, "is_leaf");
    let (leaves, _, _) = flatten_full(i, &tree, is_leaf.as_ref(), false)?;
    if leaves.is_empty() {
        return match a.opt(None, "identity") {
            Some(identity) => Ok(identity),
            None => bail!(
                TypeError,
                "Must specify identity for parallel reduction of empty sequence."
            ),
        };
    }
    halves(i, &op, &leaves)
}

/// The reduction of a non-empty run of leaves: the first `len / 2` and the
/// rest reduced apart, then combined.
fn halves(i: &mut Interp, op: &Obj, leaves: &[Obj]) -> Result<Obj> {
    if let [only] = leaves {
        return Ok(only.clone());
    }
    let (left, right) = leaves.split_at(leaves.len() / 2);
    let a = halves(i, op, left)?;
    let b = halves(i, op, right)?;
    i.call(op, Args::new(vec![a, b]))
}
