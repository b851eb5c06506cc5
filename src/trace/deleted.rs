//! Deleted arrays: `x.delete()` and buffer donation (`jax.jit(f,
//! donate_argnums=0)`) end an array's life while the program still names it,
//! and JAX then refuses every read of its data with a RuntimeError (its
//! shape and dtype stay readable).
//!
//! Arrays are values here: every reference to a Python array holds a copy
//! that shares the elements, so "the same array object" is what Python's `is`
//! tests ([`Array::is_same`]). The run keeps the deleted arrays (holding
//! their buffers, so no later array can reuse their addresses), and the reads
//! of data ([`super::Value::concrete_for`], printing) ask it first. The list
//! lives in the run context, so nothing of it reaches the next run.

use std::cell::RefCell;

use crate::array::Array;
use crate::bail;
use crate::error::Result;

/// The arrays the run has deleted.
#[derive(Default)]
struct Deleted(RefCell<Vec<Array>>);

/// Marks `a` (and every reference to it) deleted.
pub fn delete(a: &Array) {
    let Some(d) = crate::exec::run::local::<Deleted>() else {
        return;
    };
    let mut list = d.0.borrow_mut();
    if !list.iter().any(|x| x.is_same(a)) {
        list.push(a.clone());
    }
}

/// `x.is_deleted()`.
pub fn is_deleted(a: &Array) -> bool {
    crate::exec::run::local::<Deleted>().is_some_and(|d| d.0.borrow().iter().any(|x| x.is_same(a)))
}

/// JAX's RuntimeError when `a` was deleted.
pub fn check(a: &Array) -> Result<()> {
    if is_deleted(a) {
        bail!(
            RuntimeError,
            "Array has been deleted with shape={}.",
            crate::sharding::aval_text(a.shape(), a.dtype(), None)
        );
    }
    Ok(())
}
