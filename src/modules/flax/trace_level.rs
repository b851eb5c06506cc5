//! The trace an nnx object belongs to, and Flax's `TraceContextError`.
//!
//! Flax gives each `nnx.Pytree` the trace it was made under (a module made
//! or rebuilt inside `jax.jit` belongs to that trace) and refuses to change
//! its attributes under another one: a module captured by a function that
//! `jax.vmap` maps cannot be assigned to inside it. shardlab counts traces
//! by depth; objects made outside any trace are not recorded (depth 0).
//! nnx's own transforms run the program's function on the caller's objects
//! at the levels they open, which they register, as Flax's transforms make
//! those objects belong to their traces.

use std::rc::Weak;

use super::*;

/// What the run knows of traces and nnx objects, kept in the run context
/// (`exec::run::local`) so that nothing of it reaches the next run on the
/// same thread; outside a run nothing is recorded (every object is made
/// at depth 0).
#[derive(Default)]
struct Levels {
    /// Objects made under a trace, with its depth.
    made_at: RefCell<Vec<(Weak<Instance>, usize)>>,
    /// The trace depths at which an nnx transform runs the program's
    /// function on the caller's objects.
    nnx: RefCell<Vec<usize>>,
}

fn levels() -> Option<Rc<Levels>> {
    crate::exec::run::local::<Levels>()
}

/// Records that `i` is made (or rebuilt) now, under the current trace.
pub(super) fn note_made(i: &Rc<Instance>) {
    let depth = crate::trace::depth();
    if let Some(levels) = levels() {
        let mut m = levels.made_at.borrow_mut();
        m.retain(|(w, _)| w.strong_count() > 0);
        if depth > 0 {
            m.push((Rc::downgrade(i), depth));
        }
    }
}

/// The trace depth `i` belongs to.
fn made_at(i: &Rc<Instance>) -> usize {
    levels().map_or(0, |levels| {
        levels
            .made_at
            .borrow()
            .iter()
            .find(|(w, _)| std::ptr::eq(w.as_ptr(), Rc::as_ptr(i)))
            .map_or(0, |(_, d)| *d)
    })
}

/// Runs `f` (an nnx transform calling the program's function) with the
/// current trace depth counted as the caller's objects' own.
pub(super) fn at_nnx_level<T>(f: impl FnOnce() -> T) -> T {
    let depth = crate::trace::depth();
    let levels = levels();
    if let Some(levels) = &levels {
        levels.nnx.borrow_mut().push(depth);
    }
    let out = f();
    if let Some(levels) = &levels {
        let mut l = levels.nnx.borrow_mut();
        if let Some(k) = l.iter().rposition(|d| *d == depth) {
            l.remove(k);
        }
    }
    out
}

/// Flax's check before an nnx object's attribute changes: the current
/// trace must be the object's, or one that nnx transforms opened on top
/// of it.
pub(super) fn check_mutable(i: &Rc<Instance>) -> Result<()> {
    let (own, now) = (made_at(i), crate::trace::depth());
    let opened_by_nnx = now > own
        && levels().is_some_and(|levels| {
            let l = levels.nnx.borrow();
            (own + 1..=now).all(|d| l.contains(&d))
        });
    if now == own || opened_by_nnx {
        return Ok(());
    }
    bail!(
        TraceContextError,
        "Cannot mutate '{}' from different trace level (https://flax.readthedocs.io/en/latest/api_reference/flax.errors.html#flax.errors.TraceContextError)",
        i.class.name
    );
}
