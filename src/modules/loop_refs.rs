//! Array refs used inside loop bodies (`scan`, `fori_loop`, `while_loop`).
//!
//! A loop body traced once runs many times, so an outer ref it touches is
//! lifted by its trace (see [`crate::trace::refs`]): the ref's value is an
//! extra input of the body and its last value an extra output. Here those
//! become extra carries, ahead of the loop's own, and the loop's final
//! carries for them are written back to the refs.

use std::rc::Rc;

use crate::bail;
use crate::error::Result;
use crate::ir::{Atom, Jaxpr, Var};
use crate::trace::refs::{read, write, RefSlot};
use crate::trace::Value;

/// The outer refs a traced body lifted, with their input and output in its
/// jaxpr (split off it, so the body reads as if it had none).
#[derive(Default)]
pub struct BodyRefs {
    /// The refs, in the order the body first touched them.
    pub slots: Vec<Rc<RefSlot>>,
    invars: Vec<Var>,
    outvars: Vec<Atom>,
    /// Whether the body wrote to each ref (else it only read it).
    written: Vec<bool>,
}

impl BodyRefs {
    /// Takes the refs' inputs and outputs (the trailing ones) off `jaxpr`.
    pub fn split(jaxpr: &mut Jaxpr, slots: Vec<Rc<RefSlot>>, written: Vec<bool>) -> BodyRefs {
        let n = slots.len();
        let invars = jaxpr.invars.split_off(jaxpr.invars.len() - n);
        let outvars = jaxpr.outvars.split_off(jaxpr.outvars.len() - n);
        BodyRefs {
            slots,
            invars,
            outvars,
            written,
        }
    }

    /// Whether the body used no outer ref.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Refuses outer refs in a body that `what` cannot carry them through.
    pub fn refuse(&self, what: &str) -> Result<()> {
        if !self.is_empty() {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: an array ref created outside {what} used inside it"
            );
        }
        Ok(())
    }

    /// When the body leaves a ref with another weak type than it found
    /// (`ref[...] += x` of a strong `x`), gives the outer value that type,
    /// so that the carry keeps one type; true when the body must be traced
    /// again.
    pub fn promote(&self, jaxpr: &Jaxpr) -> Result<bool> {
        let mut again = false;
        for ((slot, v), out) in self.slots.iter().zip(&self.invars).zip(&self.outvars) {
            let (before, after) = (jaxpr.aval(*v).clone(), jaxpr.atom_aval(out));
            if before.weak != after.weak {
                let value = read(slot)?;
                write(
                    slot,
                    crate::ops::convert_weak(&value, after.dtype, after.weak)?,
                )?;
                again = true;
            }
        }
        Ok(again)
    }

    /// Makes the refs carries of `jaxpr`: their inputs go at `at` (after
    /// the constants), their outputs first. Returns the refs, with whether
    /// the body wrote to each.
    pub fn into_carries(self, jaxpr: &mut Jaxpr, at: usize) -> Written {
        let tail = jaxpr.invars.split_off(at);
        jaxpr.invars.extend(self.invars);
        jaxpr.invars.extend(tail);
        let outs = std::mem::take(&mut jaxpr.outvars);
        jaxpr.outvars = self.outvars;
        jaxpr.outvars.extend(outs);
        Written {
            slots: self.slots,
            written: self.written,
        }
    }

    /// Adds unused inputs for the refs to a jaxpr that shares the carries
    /// of the body (a while loop's condition), at `at`.
    pub fn add_unused_inputs(&self, other: &mut Jaxpr, at: usize, body: &Jaxpr) {
        let tail = other.invars.split_off(at);
        for v in &self.invars {
            other.avals.push(body.aval(*v).clone());
            other.invars.push(Var(other.avals.len() as u32 - 1));
        }
        other.invars.extend(tail);
    }
}

/// Refs carried by a loop, and whether its body wrote to each.
pub struct Written {
    slots: Vec<Rc<RefSlot>>,
    written: Vec<bool>,
}

impl Written {
    /// How many refs the loop carries.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether the loop carries no ref.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The refs' values now: the loop's initial carries for them.
    pub fn values(&self) -> Result<Vec<Value>> {
        self.slots.iter().map(read).collect()
    }

    /// Writes the loop's final carries for the refs it wrote to (the
    /// leading results) back to them and returns the other results. A ref
    /// the body only read keeps its value: writing it back would be a
    /// write, which grad and vmap around the loop may refuse.
    pub fn write_back(&self, mut results: Vec<Value>) -> Result<Vec<Value>> {
        let rest = results.split_off(self.slots.len().min(results.len()));
        for ((slot, v), &w) in self.slots.iter().zip(results).zip(&self.written) {
            if w {
                write(slot, v)?;
            }
        }
        Ok(rest)
    }
}
