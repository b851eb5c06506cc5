//! The state an `nnx.Optimizer` keeps, as Flax keeps it.
//!
//! Every leaf of `tx.init(params)` becomes a variable: an `OptVariable`
//! where the leaf was a variable of the model (with that variable's
//! metadata; its `optimizer_sharding` becomes the `out_sharding` the state
//! is placed by), an `OptArray` elsewhere. The transformation itself sees
//! pure arrays (`nnx.as_pure`), and its new state is written back into
//! these variables, so their metadata stays.

use std::rc::Rc;

use super::{instance, is_variable, set_iattr};
use crate::bail;
use crate::error::Result;
use crate::python::interp::Interp;
use crate::python::pytree::{flatten_full, unflatten};
use crate::python::value::{Class, Instance, Obj};

/// The classes the optimizer's state is made of.
#[derive(Clone)]
pub(super) struct OptClasses {
    pub opt_array: Rc<Class>,
    pub opt_variable: Rc<Class>,
}

/// `OptArray` and `OptVariable`, subclasses of `OptState`.
pub(super) fn opt_classes(opt_state: &Rc<Class>) -> OptClasses {
    let sub = |name: &str| {
        super::new_class(
            name,
            vec![opt_state.clone()],
            vec![("__module__".into(), Obj::str("flax.nnx.training.optimizer"))],
        )
    };
    OptClasses {
        opt_array: sub("OptArray"),
        opt_variable: sub("OptVariable"),
    }
}

/// A predicate that makes variables leaves of a flattening.
fn variable_leaf() -> Obj {
    Obj::native("is_variable", |_, a| {
        Ok(Obj::Bool(
            matches!(a.pos.first(), Some(Obj::Instance(i)) if is_variable(i)),
        ))
    })
}

pub(super) fn variable_leaves(
    interp: &mut Interp,
    tree: &Obj,
) -> Result<(Vec<Obj>, crate::python::pytree::TreeDef)> {
    let leaf = variable_leaf();
    let (leaves, _, def) = flatten_full(interp, tree, Some(&leaf), false)?;
    Ok((leaves, def))
}

/// `nnx.as_pure(tree)`: every variable replaced by its value.
pub(super) fn as_pure(interp: &mut Interp, tree: &Obj) -> Result<Obj> {
    let (leaves, def) = variable_leaves(interp, tree)?;
    let pure: Vec<Obj> = leaves
        .into_iter()
        .map(|l| match &l {
            Obj::Instance(i) if is_variable(i) => super::iattr(i, "value").unwrap_or(Obj::None),
            _ => l,
        })
        .collect();
    unflatten(interp, &def, &pure)
}

/// Flax's `to_opt_state`: the optimizer's state with each leaf wrapped.
pub(super) fn to_opt_state(interp: &mut Interp, c: &OptClasses, tree: &Obj) -> Result<Obj> {
    let (leaves, def) = variable_leaves(interp, tree)?;
    let mut out = Vec::with_capacity(leaves.len());
    for l in leaves {
        out.push(match &l {
            Obj::Instance(i) if is_variable(i) => opt_variable(interp, c, i)?,
            _ => instance(&c.opt_array, vec![("value".into(), l)]),
        });
    }
    unflatten(interp, &def, &out)
}

fn opt_variable(interp: &mut Interp, c: &OptClasses, v: &Instance) -> Result<Obj> {
    let attrs = v.attrs.borrow().clone();
    let value = attrs
        .iter()
        .find(|(k, _)| k == "value")
        .map(|(_, v)| v.clone())
        .unwrap_or(Obj::None);
    let mut metadata: Vec<(String, Obj)> =
        attrs.into_iter().filter(|(k, _)| k != "value").collect();
    if let Some(pos) = metadata.iter().position(|(k, _)| k == "optimizer_sharding") {
        let (_, s) = metadata.remove(pos);
        metadata.retain(|(k, _)| k != "out_sharding");
        metadata.push(("out_sharding".into(), s));
    }
    super::metadata::new_variable(interp, &c.opt_variable, value, &metadata)
}

/// Writes the pure state `new` (as `tx.update` returned it) into the
/// variables of `state`, which has the same structure.
pub(super) fn update_opt_state(interp: &mut Interp, state: &Obj, new: &Obj) -> Result<()> {
    let (vars, _) = variable_leaves(interp, state)?;
    let (vals, _) = variable_leaves(interp, new)?;
    if vars.len() != vals.len() {
        bail!(
            ValueError,
            "the optimizer's new state has {} leaves but its state has {}",
            vals.len(),
            vars.len()
        );
    }
    for (var, val) in vars.iter().zip(vals) {
        let Obj::Instance(i) = var else {
            bail!(
                TypeError,
                "the optimizer's state holds a leaf that is not a variable"
            );
        };
        let val = match &val {
            Obj::Instance(v) if is_variable(v) => super::iattr(v, "value").unwrap_or(Obj::None),
            _ => val,
        };
        set_iattr(i, "value", val);
    }
    Ok(())
}
