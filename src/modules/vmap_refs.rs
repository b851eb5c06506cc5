//! Array refs passed to a vmapped function.
//!
//! A ref mapped over an axis (`in_axes=0`) enters the batched program as its
//! value; inside, the function sees a ref of its own holding one slice, and
//! that ref's last value is an extra output stacked on the same axis, which
//! is written back to the ref after the call. A ref with `in_axes=None`
//! passes through unchanged: the function reaches the outer ref, where a
//! write of a batched value is JAX's error (see [`crate::trace::refs`]).

use std::cell::RefCell;
use std::rc::Rc;

use crate::bail;
use crate::error::Result;
use crate::python::interp::Interp;
use crate::python::ops::iterate;
use crate::python::pytree::{flatten, unflatten, TreeDef};
use crate::python::value::{Args, Obj};
use crate::trace::refs::{read, write, RefSlot};
use crate::trace::Value;

use super::random::{keyed_objs, keyed_values};
use super::refs::{new_ref_obj, slot_of};

/// The refs among a vmapped call's flat arguments.
pub struct MapRefs {
    /// The ref among each leaf, if it is one.
    slots: Vec<Option<Rc<RefSlot>>>,
    /// The leaves as given, to pass unbatched refs through.
    leaves: Vec<Obj>,
}

impl MapRefs {
    /// The refs among `leaves`.
    pub fn of(leaves: &[Obj]) -> MapRefs {
        MapRefs {
            slots: leaves.iter().map(slot_of).collect(),
            leaves: leaves.to_vec(),
        }
    }

    /// Whether any argument is a ref.
    pub fn any(&self) -> bool {
        self.slots.iter().any(Option::is_some)
    }

    /// The leaves with each ref replaced by its value.
    pub fn plain_leaves(&self) -> Result<Vec<Obj>> {
        self.leaves
            .iter()
            .zip(&self.slots)
            .map(|(l, s)| match s {
                Some(s) => Ok(Obj::Array(read(s)?)),
                None => Ok(l.clone()),
            })
            .collect()
    }

    /// The refs mapped over an axis, which must be where the outputs are
    /// stacked: their new values come back as outputs.
    pub fn check_axes(&self, axes: &[Option<usize>], out_ax: &[i64]) -> Result<()> {
        for (s, ax) in self.slots.iter().zip(axes) {
            if let (Some(_), Some(ax)) = (s, ax) {
                if out_ax.len() != 1 || out_ax[0] != *ax as i64 {
                    bail!(
                        NotImplementedError,
                        "not supported by shardlab yet: vmap of a ref argument mapped over an \
                         axis other than out_axes"
                    );
                }
            }
        }
        Ok(())
    }

    /// Calls the function on one slice of its arguments (`vals`), giving it
    /// a ref of its own for each mapped ref; returns its flat outputs and
    /// then those refs' last values.
    #[allow(clippy::too_many_arguments)]
    pub fn call_body(
        &self,
        interp: &mut Interp,
        f: &Obj,
        in_def: &TreeDef,
        kw: &[(String, Obj)],
        vals: &[Value],
        in_keys: &[bool],
        axes: &[Option<usize>],
        out_def: &RefCell<Option<TreeDef>>,
        out_keys: &RefCell<Vec<bool>>,
    ) -> Result<Vec<Value>> {
        let mut fresh = vec![];
        let leaves: Vec<Obj> = keyed_objs(vals, in_keys)?
            .into_iter()
            .enumerate()
            .map(|(i, leaf)| match (&self.slots[i], axes[i]) {
                (Some(_), Some(_)) => {
                    let obj = new_ref_obj(vals[i].clone());
                    fresh.extend(slot_of(&obj));
                    obj
                }
                (Some(_), None) => self.leaves[i].clone(),
                _ => leaf,
            })
            .collect();
        let args = unflatten(interp, in_def, &leaves)?;
        let pos = iterate(&args)?;
        let out = interp.call(f, Args::with(pos, kw.to_vec()))?;
        let (leaves, def) = flatten(interp, &out)?;
        if leaves.iter().any(|l| slot_of(l).is_some()) {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: vmap of a function that returns an array ref"
            );
        }
        *out_def.borrow_mut() = Some(def);
        let (mut outs, keys) = keyed_values(&leaves)?;
        *out_keys.borrow_mut() = keys;
        for slot in &fresh {
            outs.push(read(slot)?);
        }
        Ok(outs)
    }

    /// Writes the last values of the mapped refs (the trailing outputs)
    /// back to them.
    pub fn write_back(&self, outs: &mut Vec<Value>, axes: &[Option<usize>]) -> Result<()> {
        let mapped: Vec<&Rc<RefSlot>> = self
            .slots
            .iter()
            .zip(axes)
            .filter_map(|(s, ax)| s.as_ref().filter(|_| ax.is_some()))
            .collect();
        let extra = outs.split_off(outs.len().saturating_sub(mapped.len()));
        for (slot, v) in mapped.into_iter().zip(extra) {
            write(slot, v)?;
        }
        Ok(())
    }
}
