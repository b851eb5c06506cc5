//! Mutable array references (`jax.new_ref`) as traces see them.
//!
//! A ref is a [`RefSlot`]: a cell holding the value the ref has now. Its
//! operations are discharged as they are traced: reading yields the value,
//! writing replaces it with a value computed by ordinary primitives
//! (`x_ref[1] += 1.` becomes a scatter). What this cannot express alone is a
//! ref that lives outside a traced function: a jitted function or a loop
//! body is traced once and run later (or many times), so the ref's value at
//! trace time means nothing. Such a frame *lifts* every outer ref it touches:
//! the ref's value becomes an extra input of the traced program and its last
//! value an extra output, which the transformation writes back after the run
//! (jit) or carries from one iteration to the next (scan, while). Frames
//! that run their function once, right where they are traced (grad, vmap),
//! reach through to the outer value instead, and refuse writes of values
//! that depend on their own inputs with JAX's errors. Every other frame
//! refuses outer refs by name.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use crate::error::{Error, Result};
use std::collections::{HashMap, HashSet};

use crate::ir::{Atom, Aval, Jaxpr, Var};
use crate::primitives::Prim;

use super::{Frame, Source, Tracer, Value, STACK};

/// What a trace frame does with a ref created outside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RefPolicy {
    /// Not supported: any use raises NotImplementedError.
    #[default]
    Refuse,
    /// The ref becomes an input and an output of the traced program.
    Lift,
    /// Uses reach the outer value; writes of values computed from the
    /// frame's inputs raise the error of this transformation.
    Direct(Direct),
}

/// The transformations that reach through to outer refs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direct {
    /// vmap: reads see the outer value; a write would be batched, which an
    /// unbatched ref cannot take.
    Vmap,
    /// grad, jvp, vjp: a differentiated value cannot go into a ref that is
    /// not differentiated.
    Differentiate,
}

/// The storage of one ref.
pub struct RefSlot {
    value: RefCell<Value>,
    /// The trace level its value belongs to; None outside every trace.
    home: Cell<Option<usize>>,
    /// Where `jax.new_ref` was called, as JAX's messages name it.
    pub created: Option<Source>,
}

/// An outer ref a frame lifted: the value and level to restore when the
/// frame ends, and the input variable that stands for it.
pub(super) struct Lifted {
    slot: Rc<RefSlot>,
    outer: Value,
    outer_home: Option<usize>,
    pub(super) var: Var,
}

/// The refs a jitted function was passed, which it may not also close over.
#[derive(Clone)]
pub struct ArgRefs {
    /// The refs and the names of the arguments they were passed as.
    pub slots: Vec<(Rc<RefSlot>, String)>,
    /// `f at file:line`: the traced function, as JAX's messages name it.
    pub function: String,
}

thread_local! {
    /// How many ref operations ran: printing a program that used refs
    /// would show their discharged form, not JAX's.
    static USES: Cell<u64> = const { Cell::new(0) };
}

/// A count that grows with every ref operation.
pub fn uses() -> u64 {
    USES.with(Cell::get)
}

fn used() {
    USES.with(|u| u.set(u.get() + 1));
}

impl RefSlot {
    /// A new ref holding `value`, owned by the innermost trace.
    pub fn new(value: Value) -> Rc<RefSlot> {
        used();
        let depth = super::depth();
        Rc::new(RefSlot {
            value: RefCell::new(value),
            home: Cell::new(depth.checked_sub(1)),
            created: super::current_source(),
        })
    }

    /// The abstract value of what the ref holds now.
    pub fn aval(&self) -> Aval {
        self.value.borrow().aval()
    }

    /// `Ref{float32[3]}`: the ref's type as JAX's messages print it.
    pub fn type_text(&self) -> String {
        let aval = self.aval();
        let dims: Vec<String> = aval.shape.iter().map(usize::to_string).collect();
        format!("Ref{{{}[{}]}}", aval.dtype.name(), dims.join(","))
    }

    /// The trace level the ref's value belongs to; None outside every trace.
    pub fn home(&self) -> Option<usize> {
        self.home.get()
    }

    /// The value without entering the current trace: for printing a ref
    /// outside every trace.
    pub fn peek(&self) -> Value {
        self.value.borrow().clone()
    }
}

/// Sets what the innermost frame does with outer refs.
pub fn set_policy(policy: RefPolicy) {
    STACK.with(|s| {
        if let Some(f) = s.borrow_mut().last_mut() {
            f.ref_policy = policy;
        }
    });
}

/// Declares the refs passed to the function the innermost frame traces.
pub fn declare_args(args: ArgRefs) {
    STACK.with(|s| {
        if let Some(f) = s.borrow_mut().last_mut() {
            f.arg_refs = Some(args);
        }
    });
}

/// The ref's value, as the innermost trace sees it.
pub fn read(slot: &Rc<RefSlot>) -> Result<Value> {
    used();
    enter(slot)?;
    Ok(slot.value.borrow().clone())
}

/// Replaces the ref's value with `v` (`ref[idx] = v`, JAX's `swap`).
pub fn write(slot: &Rc<RefSlot>, v: Value) -> Result<()> {
    write_as(slot, v, "a set/swap")
}

/// Replaces the ref's value with `v`, for the operation `op` (`a set/swap`,
/// `an addupdate`) as JAX's messages name it.
pub fn write_as(slot: &Rc<RefSlot>, v: Value, op: &str) -> Result<()> {
    used();
    enter(slot)?;
    unbatched(slot, op)?;
    let v = strong(reachable(slot, v)?)?;
    *slot.value.borrow_mut() = v;
    Ok(())
}

/// A written value loses its weak type, as JAX's ref buffers do: only
/// `new_ref` of a Python scalar makes a weakly typed ref.
fn strong(v: Value) -> Result<Value> {
    match v {
        Value::Concrete(a) => Ok(Value::Concrete(a.with_weak(false))),
        Value::Traced(t) if t.aval.weak && t.level + 1 == super::depth() => {
            crate::ops::convert_weak(&Value::Traced(t.clone()), t.aval.dtype, false)
        }
        other => Ok(other),
    }
}

/// JAX's error for a write under vmap to a ref from outside it: the
/// write would be batched, the ref is not.
fn unbatched(slot: &RefSlot, op: &str) -> Result<()> {
    let start = slot.home.get().map_or(0, |h| h + 1);
    let vmapped = STACK.with(|s| {
        s.borrow()
            .iter()
            .skip(start)
            .any(|f| f.ref_policy == RefPolicy::Direct(Direct::Vmap))
    });
    if vmapped {
        return Err(Error::new(
            crate::error::ErrorKind::Exception,
            format!(
                "performing {op} operation with vmapped value on an unbatched array reference \
                 of type {}. Move the array reference to be an argument to the vmapped \
                 function?",
                slot.type_text()
            ),
        ));
    }
    Ok(())
}

/// Lifts `slot` into every frame between its home and the innermost one
/// that lifts refs, outermost first.
fn enter(slot: &Rc<RefSlot>) -> Result<()> {
    let depth = super::depth();
    let start = slot.home.get().map_or(0, |h| h + 1);
    for level in start..depth {
        let policy = STACK.with(|s| s.borrow()[level].ref_policy);
        match policy {
            RefPolicy::Lift => lift(slot, level)?,
            RefPolicy::Direct(_) => {}
            RefPolicy::Refuse => crate::bail!(
                NotImplementedError,
                "not supported by shardlab yet: an array ref (jax.new_ref) created outside this \
                 transformation used inside it"
            ),
        }
    }
    Ok(())
}

fn lift(slot: &Rc<RefSlot>, level: usize) -> Result<()> {
    STACK.with(|s| {
        let mut stack = s.borrow_mut();
        let frame: &mut Frame = &mut stack[level];
        if let Some(args) = &frame.arg_refs {
            if let Some((_, name)) = args.slots.iter().find(|(r, _)| Rc::ptr_eq(r, slot)) {
                crate::bail!(
                    ValueError,
                    "when tracing {} for jit, a mutable array reference of type {} was both \
                     closed over and passed as the argument {name}",
                    args.function,
                    slot.type_text()
                );
            }
        }
        let outer = slot.value.borrow().clone();
        let aval = outer.aval();
        let var = frame.new_var(aval.clone());
        frame.lifted.push(Lifted {
            slot: slot.clone(),
            outer,
            outer_home: slot.home.get(),
            var,
        });
        *slot.value.borrow_mut() = Value::Traced(Tracer {
            level,
            var,
            aval,
            known: None,
        });
        slot.home.set(Some(level));
        Ok(())
    })
}

/// `v` as a value the ref may hold: one of its home level or outside it.
/// A value of a deeper frame that reaches through to the ref is refused
/// with that frame's error.
fn reachable(slot: &RefSlot, v: Value) -> Result<Value> {
    let Value::Traced(t) = &v else {
        return Ok(v);
    };
    if slot.home.get().is_some_and(|h| t.level <= h) {
        return Ok(v);
    }
    let (policy, dependent) = STACK.with(|s| {
        let stack = s.borrow();
        let frame = &stack[t.level];
        (frame.ref_policy, depends_on_inputs(frame, t.var))
    });
    match policy {
        RefPolicy::Direct(Direct::Differentiate) if dependent => Err(Error::new(
            crate::error::ErrorKind::Exception,
            format!(
                "performing a set/swap operation with a differentiated value on a \
                 non-differentiated array reference of type {}. Move the array reference to be \
                 an argument of the differentiated function?",
                slot.type_text()
            ),
        )),
        // A value that depends on no input of an eager frame is known.
        _ if slot.home.get().is_none() && !dependent => match &t.known {
            Some(k) => Ok(Value::Concrete(k.clone())),
            None => Err(escaping()),
        },
        _ => Err(escaping()),
    }
}

fn escaping() -> Error {
    crate::err!(
        NotImplementedError,
        "not supported by shardlab yet: writing a value computed inside a transformation to an \
         array ref created outside it"
    )
}

/// Whether `var` of `frame` depends on the frame's explicit inputs other
/// than through `stop_gradient`: for differentiation, whether it carries a
/// derivative.
fn depends_on_inputs(frame: &Frame, var: Var) -> bool {
    let mut dep: HashSet<Var> = frame.invars.iter().copied().collect();
    for eqn in &frame.eqns {
        let hit: Vec<bool> = eqn
            .inputs
            .iter()
            .map(|a| matches!(a, Atom::Var(v) if dep.contains(v)))
            .collect();
        for (k, out) in eqn.outputs.iter().enumerate() {
            if output_depends(&eqn.prim, k, &hit) {
                dep.insert(*out);
            }
        }
    }
    dep.contains(&var)
}

/// Whether output `k` of an equation of `prim` depends on the inputs that
/// `hit` marks: through a jitted program, output by output (a counter a
/// jitted loss function bumps does not depend on its argument); through
/// `stop_gradient`, never; through anything else, when any input is hit.
fn output_depends(prim: &Prim, k: usize, hit: &[bool]) -> bool {
    match prim {
        Prim::StopGradient => false,
        Prim::Jit(p) => jaxpr_deps(&p.body)
            .get(k)
            .is_some_and(|ins| ins.iter().any(|&i| hit.get(i).copied().unwrap_or(true))),
        _ => hit.iter().any(|&h| h),
    }
}

/// For each output of `jaxpr`, the positions of the inputs it depends on.
fn jaxpr_deps(jaxpr: &Jaxpr) -> Vec<HashSet<usize>> {
    let mut env: HashMap<Var, HashSet<usize>> = HashMap::new();
    for (i, v) in jaxpr.invars.iter().enumerate() {
        env.insert(*v, HashSet::from([i]));
    }
    let of = |env: &HashMap<Var, HashSet<usize>>, a: &Atom| match a {
        Atom::Var(v) => env.get(v).cloned().unwrap_or_default(),
        Atom::Lit(_) => HashSet::new(),
    };
    for eqn in &jaxpr.eqns {
        let ins: Vec<HashSet<usize>> = eqn.inputs.iter().map(|a| of(&env, a)).collect();
        let all: HashSet<usize> = ins.iter().flatten().copied().collect();
        for (k, out) in eqn.outputs.iter().enumerate() {
            let set = match &eqn.prim {
                Prim::StopGradient => HashSet::new(),
                Prim::Jit(p) => jaxpr_deps(&p.body)
                    .get(k)
                    .map(|d| {
                        d.iter()
                            .flat_map(|&i| ins.get(i).cloned().unwrap_or_default())
                            .collect()
                    })
                    .unwrap_or_else(|| all.clone()),
                _ => all.clone(),
            };
            env.insert(*out, set);
        }
    }
    jaxpr.outvars.iter().map(|a| of(&env, a)).collect()
}

/// At the end of a frame: each lifted ref's last value (an extra output),
/// and the ref given back its outer value.
pub(super) fn finish(lifted: Vec<Lifted>) -> Vec<(Rc<RefSlot>, Value)> {
    lifted
        .into_iter()
        .map(|l| {
            let last = std::mem::replace(&mut *l.slot.value.borrow_mut(), l.outer);
            l.slot.home.set(l.outer_home);
            (l.slot, last)
        })
        .collect()
}
