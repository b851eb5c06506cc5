//! `NamedSharding.is_equivalent_to(other, ndim)`: whether two shardings lay
//! out an array of `ndim` dimensions the same way, which JAX decides on the
//! layouts themselves rather than on their spellings: `P('x')` and
//! `P('x', None)` agree, and so do specs that differ only by mesh axes of
//! size one.
//!
//! Every device must hold the same part of the array under both, and the
//! memory kinds must agree. The parts are compared on an array whose every
//! dimension has as many elements as the mesh has devices, so that any split
//! divides it evenly.

use crate::bail;
use crate::error::Result;
use crate::python::builtins::to_int;
use crate::python::value::{Args, Obj};

use super::NamedSharding;

/// The bound method `s.is_equivalent_to`.
pub fn method(s: &NamedSharding) -> Obj {
    let me = s.clone();
    Obj::native("NamedSharding.is_equivalent_to", move |_, a: Args| {
        let other = a.req(Some(0), "other", "is_equivalent_to")?;
        let ndim = to_int(&a.req(Some(1), "ndim", "is_equivalent_to")?)?;
        let Some(o) = other.downcast::<NamedSharding>() else {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: is_equivalent_to with a {}",
                other.type_name()
            );
        };
        Ok(Obj::Bool(equivalent(
            &me,
            o,
            usize::try_from(ndim).unwrap_or(0),
        )?))
    })
}

/// Whether `a` and `b` place the same parts of an `ndim`-dimensional array
/// on the same devices, in the same memory.
fn equivalent(a: &NamedSharding, b: &NamedSharding, ndim: usize) -> Result<bool> {
    if a.memory_kind != b.memory_kind {
        return Ok(false);
    }
    let mut ids_a = a.mesh.device_ids().to_vec();
    let mut ids_b = b.mesh.device_ids().to_vec();
    ids_a.sort_unstable();
    ids_b.sort_unstable();
    if ids_a != ids_b {
        return Ok(false);
    }
    let shape = vec![a.mesh.size().max(1); ndim];
    let parts = |s: &NamedSharding| -> Result<Vec<(usize, Vec<std::ops::Range<usize>>)>> {
        let mut out = s
            .mesh
            .device_ids()
            .iter()
            .enumerate()
            .map(|(pos, &id)| Ok((id, s.spec.shard_slices(&s.mesh, pos, &shape)?)))
            .collect::<Result<Vec<_>>>()?;
        out.sort_by_key(|(id, _)| *id);
        Ok(out)
    };
    Ok(parts(a)? == parts(b)?)
}
