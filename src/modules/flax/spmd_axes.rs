//! `transform_metadata` of nnx's lifted transforms: the sharding names of
//! the axis a transform maps over.
//!
//! A variable stacked by `nnx.vmap` gains an axis its `out_sharding` does
//! not name; with `transform_metadata={nnx.PARTITION_NAME: name}` Flax
//! inserts `name` there when a module leaves the transform and takes it out
//! again when a mapped module enters one, checking that the entry it
//! removes is that name. Other entries of `transform_metadata` do the same
//! to the variable metadata of that name when it is a non-empty tuple.

use super::nnx::collect_vars;
use super::*;
use crate::python::ops::{getattr, iterate, py_eq};

const PARTITION_NAME: &str = "partition_name";

/// The name inserted into `out_sharding` and the other metadata to update.
pub(super) struct AxisMetadata {
    name: Obj,
    other: Vec<(String, Obj)>,
}

/// The axis metadata of a `transform_metadata` mapping, or `None` when it
/// names no partition (Flax then leaves metadata alone).
pub(super) fn axis_metadata(interp: &mut Interp, meta: &Obj) -> Result<Option<AxisMetadata>> {
    let items = getattr(interp, meta, "items")?;
    let pairs = interp.call(&items, Args::default())?;
    let mut name = None;
    let mut other = vec![];
    for pair in iterate(&pairs)? {
        let kv = iterate(&pair)?;
        let (Some(k), Some(v)) = (kv.first(), kv.get(1)) else {
            continue;
        };
        match str_of(k) {
            key if key == PARTITION_NAME => name = Some(v.clone()),
            key => other.push((key, v.clone())),
        }
    }
    Ok(name.map(|name| AxisMetadata { name, other }))
}

/// Takes `m`'s names out of the metadata of every variable of `node` at
/// `index` (a module entering a transform mapped along that axis).
pub(super) fn remove_axis(node: &Obj, index: usize, m: &AxisMetadata) -> Result<()> {
    for var in variables(node) {
        if let Some(s) = iattr(&var, "out_sharding").filter(|s| !matches!(s, Obj::None)) {
            set_iattr(&var, "out_sharding", removed(&s, index, &m.name)?);
        }
        for (k, v) in &m.other {
            if let Some(t) = iattr(&var, k).filter(nonempty_tuple) {
                set_iattr(&var, k, removed(&t, index, v)?);
            }
        }
    }
    Ok(())
}

/// Puts `m`'s names into the metadata of every variable of `node` at
/// `index` (a module leaving a transform stacked along that axis).
pub(super) fn add_axis(node: &Obj, index: usize, m: &AxisMetadata) -> Result<()> {
    for var in variables(node) {
        if let Some(s) = iattr(&var, "out_sharding") {
            if truthy(&s, "out_sharding")? {
                set_iattr(&var, "out_sharding", inserted(&s, index, &m.name)?);
            }
        }
        for (k, v) in &m.other {
            if let Some(t) = iattr(&var, k).filter(nonempty_tuple) {
                set_iattr(&var, k, inserted(&t, index, v)?);
            }
        }
    }
    Ok(())
}

fn variables(node: &Obj) -> Vec<Rc<Instance>> {
    let mut all = vec![];
    collect_vars(node, &mut vec![], &|_| true, &mut all);
    all.into_iter().map(|(_, v)| v).collect()
}

fn nonempty_tuple(o: &Obj) -> bool {
    matches!(o, Obj::Tuple(t) if !t.is_empty())
}

/// `fields` as a tuple with `value` at `index`, padded with `None`s when it
/// is shorter.
fn inserted(fields: &Obj, index: usize, value: &Obj) -> Result<Obj> {
    let mut v = iterate(fields)?;
    while v.len() < index {
        v.push(Obj::None);
    }
    v.insert(index, value.clone());
    Ok(Obj::tuple(v))
}

/// `fields` as a tuple without its entry at `index`, which must be `value`.
fn removed(fields: &Obj, index: usize, value: &Obj) -> Result<Obj> {
    let mut v = iterate(fields)?;
    if index >= v.len() {
        bail!(IndexError, "pop index out of range");
    }
    let gone = v.remove(index);
    if !py_eq(&gone, value) {
        bail!(
            ValueError,
            "Expected to remove {} at index {index} from {}, but found {}.",
            repr_of(value),
            repr_of(fields),
            repr_of(&gone)
        );
    }
    Ok(Obj::tuple(v))
}
