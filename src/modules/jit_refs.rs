//! Array refs passed to and closed over by a jitted function.
//!
//! A ref argument enters the traced program as its value; inside, the
//! function sees a ref of its own holding that input, whose last value is
//! an extra output. A ref the function closes over is lifted by the trace
//! (see [`crate::trace::refs`]): an extra input after the captured values
//! and an extra output after those of the ref arguments. After a run, the
//! extra outputs are written back, so the effects show after the call as
//! in JAX. JAX's aliasing rules are checked here: a ref may be passed only
//! once, may not be both passed and closed over, and may not be returned.

use std::rc::Rc;

use crate::error::Result;
use crate::python::interp::Interp;
use crate::python::pytree::{flatten, TreeDef};
use crate::python::value::Obj;
use crate::trace::refs::{read, write, RefSlot};
use crate::trace::Value;

use super::refs::{new_ref_obj, slot_of};

/// The ref among each flat argument, if it is one.
pub fn arg_slots(leaves: &[Obj]) -> Vec<Option<Rc<RefSlot>>> {
    leaves.iter().map(slot_of).collect()
}

/// JAX's error for a ref passed twice; `function` is `f at file:line`.
pub fn check_aliases(
    slots: &[Option<Rc<RefSlot>>],
    names: &[String],
    function: &str,
) -> Result<()> {
    for (i, a) in slots.iter().enumerate() {
        let Some(a) = a else { continue };
        let again = slots[i + 1..]
            .iter()
            .position(|b| b.as_ref().is_some_and(|b| Rc::ptr_eq(a, b)));
        if let Some(j) = again {
            let name = |k: usize| names.get(k).cloned().unwrap_or_default();
            crate::bail!(
                ValueError,
                "only one reference to a mutable array may be passed as an argument to a \
                 function, but when tracing {function} for jit the mutable array reference of \
                 type {} appeared at both {} and {}.",
                a.type_text(),
                name(i),
                name(i + 1 + j)
            );
        }
    }
    Ok(())
}

/// The refs a traced function sees in place of its ref arguments: new refs
/// holding the input tracers `vals`. Other leaves are returned unchanged.
pub fn fresh_refs(
    leaves: Vec<Obj>,
    vals: &[Value],
    is_ref: &[bool],
) -> (Vec<Obj>, Vec<Rc<RefSlot>>) {
    let mut fresh = vec![];
    let leaves = leaves
        .into_iter()
        .zip(vals)
        .zip(is_ref)
        .map(|((leaf, v), &r)| match r {
            true => {
                let obj = new_ref_obj(v.clone());
                if let Some(slot) = slot_of(&obj) {
                    fresh.push(slot);
                }
                obj
            }
            false => leaf,
        })
        .collect();
    (leaves, fresh)
}

/// JAX's error for a ref among the outputs of the traced function.
pub fn check_returned(
    interp: &mut Interp,
    out: &Obj,
    fresh: &[(Rc<RefSlot>, String)],
    function: &str,
    traced_for: &str,
) -> Result<()> {
    let (leaves, def) = flatten(interp, out)?;
    let paths = def.leaf_paths("result");
    for (i, leaf) in leaves.iter().enumerate() {
        let Some(slot) = slot_of(leaf) else { continue };
        let at = match (&def, paths.get(i)) {
            (TreeDef::Leaf, _) | (_, None) => String::new(),
            (_, Some(p)) => format!(" at output tree path {p}"),
        };
        let passed = fresh.iter().find(|(s, _)| Rc::ptr_eq(s, &slot));
        let origin = match (passed, &slot.created) {
            (Some((_, name)), _) => {
                format!("\n\nThe returned mutable array was passed in as the argument {name}.")
            }
            (None, Some(src)) if src_inside(&slot) => format!(
                "\n\nThe returned mutable array was created on line {}:{}:{} ({}).",
                crate::trace::program_file(),
                src.line,
                src.col,
                src.function
            ),
            _ => String::new(),
        };
        crate::bail!(
            ValueError,
            "function {function} traced for {traced_for} returned a mutable array reference of \
             type {}{at}, but mutable array references cannot be returned.{origin}",
            slot.type_text()
        );
    }
    Ok(())
}

/// Whether the ref was created inside the trace now innermost.
fn src_inside(slot: &RefSlot) -> bool {
    slot.home() == crate::trace::depth().checked_sub(1)
}

/// The last values of the function's own refs: extra outputs.
pub fn last_values(fresh: &[Rc<RefSlot>]) -> Result<Vec<Value>> {
    fresh.iter().map(read).collect()
}

/// Whether the function wrote to each of its own refs: whether its last
/// value is another than the input it started with.
pub fn written(inputs: &[Value], lasts: &[Value]) -> Vec<bool> {
    inputs
        .iter()
        .zip(lasts)
        .map(|(input, last)| match input {
            Value::Traced(t) => !crate::trace::is_var(last, t.level, t.var),
            Value::Concrete(_) => true,
        })
        .collect()
}

/// Writes the extra outputs back to the refs they belong to (first the ref
/// arguments, then the refs the function closed over), those the function
/// wrote to: writing back a ref it only read would be a write, which grad
/// and vmap around the call may refuse.
pub fn write_back(
    outs: &mut Vec<Value>,
    args: &[Rc<RefSlot>],
    closed: &[Rc<RefSlot>],
    written: &[bool],
) -> Result<()> {
    let n = args.len() + closed.len();
    let extra = outs.split_off(outs.len().saturating_sub(n));
    for ((slot, v), &w) in args.iter().chain(closed).zip(extra).zip(written) {
        if w {
            write(slot, v)?;
        }
    }
    Ok(())
}
