//! The function `jax.vjp` returns, as JAX holds it: the residuals (the
//! values its backward pass reads) and a backward program that takes them
//! with the cotangents.
//!
//! A [`Pullback`] keeps the whole forward program and its inputs. To split
//! it, its backward pass is traced on symbolic primals and cotangents; the
//! equations that depend only on the primals are known (the forward pass
//! and what the rules compute from it, `cos x` for `sin`), the others form
//! the backward program, and the known values those read are the
//! residuals. Inside a checkpoint's rule, a value its policy does not save
//! goes to the backward program, which recomputes it, as JAX's
//! rematerialization does. Equations made of constants alone go to both
//! sides rather than being kept.

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};

use super::{forward_tape, pull_back, Pullback};
use crate::bail;
use crate::error::Result;
use crate::ir::{Atom, Aval, Jaxpr, Var};
use crate::ops;
use crate::primitives::Policy;
use crate::trace::{FrameAxes, Value};

/// A pullback split into residuals and a backward program.
pub struct Split {
    /// Primals (then any values the trace captured) to residuals.
    known: Jaxpr,
    /// Residuals then output cotangents to the arguments' cotangents.
    backward: Jaxpr,
    /// For each residual, the argument it is, if it is one (JAX keeps those
    /// apart from the values computed from them).
    pub arg_of: Vec<Option<usize>>,
    captured: Vec<Value>,
    outs: Vec<Aval>,
}

/// A checkpoint rule met while a backward pass is traced for a split: the
/// equations it added and its policy.
type Remat = (usize, usize, Policy);

thread_local! {
    /// While a split traces a backward pass: the level of that trace and the
    /// checkpoint rules met in it.
    static SPLITTING: RefCell<Option<(usize, Vec<Remat>)>> = const { RefCell::new(None) };
}

/// Runs a checkpoint's reverse-mode rule `f`, noting for a split in
/// progress which equations it adds: those its policy does not save are
/// recomputed by the backward program.
pub fn in_checkpoint<T>(policy: &Policy, f: impl FnOnce() -> Result<T>) -> Result<T> {
    let level = SPLITTING.with(|s| s.borrow().as_ref().map(|(l, _)| *l));
    if level.is_none_or(|l| crate::trace::depth() != l + 1) {
        return f();
    }
    let start = crate::trace::eqn_count();
    let out = f()?;
    let end = crate::trace::eqn_count();
    SPLITTING.with(|s| {
        if let Some((_, met)) = &mut *s.borrow_mut() {
            met.push((start, end, policy.clone()));
        }
    });
    Ok(out)
}

/// Sets [`SPLITTING`] for the trace about to start, and restores what was
/// there when dropped.
struct Splitting(Option<(usize, Vec<Remat>)>);

impl Splitting {
    fn start() -> Self {
        let level = crate::trace::depth();
        Splitting(SPLITTING.with(|s| s.borrow_mut().replace((level, vec![]))))
    }

    fn met(&self) -> Vec<Remat> {
        SPLITTING.with(|s| {
            s.borrow()
                .as_ref()
                .map(|(_, m)| m.clone())
                .unwrap_or_default()
        })
    }
}

impl Drop for Splitting {
    fn drop(&mut self) {
        let outer = self.0.take();
        SPLITTING.with(|s| *s.borrow_mut() = outer);
    }
}

impl Pullback {
    /// The backward pass traced on symbolic primals and cotangents, the
    /// checkpoint rules met, and where the forward pass ended.
    fn trace_backward(&self) -> Result<(crate::trace::Traced, Vec<Remat>, usize)> {
        let n = self.primals.len();
        let mut avals: Vec<Aval> = self.primals.iter().map(|p| p.aval()).collect();
        avals.extend(self.jaxpr.out_avals());
        let splitting = Splitting::start();
        let forward_end = Cell::new(0);
        let traced = crate::trace::trace(&avals, FrameAxes::default(), |v: &[Value]| {
            let (primals, cts) = v.split_at(n);
            let (_, tape) = forward_tape(&self.jaxpr, primals)?;
            forward_end.set(crate::trace::eqn_count());
            let cts: Vec<Option<Value>> = cts.iter().cloned().map(Some).collect();
            let in_cts = pull_back(&self.jaxpr, tape, &cts)?;
            Ok(in_cts
                .into_iter()
                .take(self.n_args)
                .zip(primals)
                .map(|(c, p)| c.unwrap_or_else(|| ops::zeros_like(p)))
                .collect())
        })?;
        let met = splitting.met();
        Ok((traced, met, forward_end.get()))
    }

    /// This pullback as residuals and a backward program.
    pub fn split(&self) -> Result<Split> {
        let (traced, met, forward_end) = self.trace_backward()?;
        let b = traced.jaxpr;
        let n = self.primals.len();
        let n_out = self.jaxpr.outvars.len();
        let sides = sides(&b, n, n_out, &met);
        let cts: Vec<Var> = b.invars[n..n + n_out].to_vec();
        let backward = Jaxpr {
            avals: b.avals.clone(),
            invars: vec![],
            eqns: pick(&b, &sides, Side::Backward),
            outvars: b.outvars.clone(),
        }
        .without_dead_code();
        let residuals = residual_vars(&backward, &cts.iter().copied().collect());
        let anchor = anchors(&b, &sides, forward_end);
        let arg_index: HashMap<Var, usize> = b.invars[..self.n_args]
            .iter()
            .enumerate()
            .map(|(k, v)| (*v, k))
            .collect();
        // Arguments first, in their order, then the computed values in the
        // order the forward pass made them (made together: in the order
        // they were made), as JAX lists them.
        let mut order: Vec<Var> = residuals;
        order.sort_by_key(|v| match arg_index.get(v) {
            Some(k) => (0, *k as i64, 0),
            None => (1, anchor.get(v).copied().unwrap_or(-1), v.0),
        });
        let mut known_in: Vec<Var> = b.invars[..n].to_vec();
        known_in.extend(&b.invars[n + n_out..]);
        let known = Jaxpr {
            avals: b.avals.clone(),
            invars: known_in,
            eqns: pick(&b, &sides, Side::Known),
            outvars: order.iter().map(|v| Atom::Var(*v)).collect(),
        }
        .without_dead_code();
        let mut back_in = order.clone();
        back_in.extend(&cts);
        let backward = Jaxpr {
            invars: back_in,
            ..backward
        };
        Ok(Split {
            known,
            backward,
            arg_of: order.iter().map(|v| arg_index.get(v).copied()).collect(),
            captured: traced.captured,
            outs: self.jaxpr.out_avals(),
        })
    }

    /// The residuals' values for `split`, computed from this pullback's
    /// primals (in the current trace, if any).
    pub fn residuals(&self, split: &Split) -> Result<Vec<Value>> {
        let mut ins = self.primals.clone();
        ins.extend(split.captured.iter().cloned());
        crate::trace::eval_jaxpr(&split.known, &ins)
    }
}

impl Split {
    /// The arguments' cotangents for the output cotangents `cts`, from
    /// `residuals`.
    pub fn call(&self, residuals: &[Value], cts: &[Value]) -> Result<Vec<Value>> {
        if cts.len() != self.outs.len() {
            bail!(
                TypeError,
                "vjp function takes {} cotangents, got {}",
                self.outs.len(),
                cts.len()
            );
        }
        for (i, (c, o)) in cts.iter().zip(&self.outs).enumerate() {
            if c.shape() != o.shape {
                bail!(
                    ValueError,
                    "unexpected JAX type (e.g. shape/dtype) for argument {i} to vjp function: \
                     got shape {:?}, expected shape {:?}",
                    c.shape(),
                    o.shape
                );
            }
        }
        if residuals.len() != self.arg_of.len() {
            bail!(
                TypeError,
                "vjp function holds {} residuals, got {}",
                self.arg_of.len(),
                residuals.len()
            );
        }
        let mut ins = residuals.to_vec();
        ins.extend(cts.iter().cloned());
        crate::trace::eval_jaxpr(&self.backward, &ins)
    }
}

/// Which program an equation of the traced backward pass goes to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    /// Computed from the primals alone: the forward part.
    Known,
    /// Reads a cotangent or is recomputed: the backward program.
    Backward,
    /// Made of constants: both.
    Both,
}

/// Each equation's side. The first `n` inputs are primals, the next
/// `n_out` cotangents.
fn sides(b: &Jaxpr, n: usize, n_out: usize, met: &[Remat]) -> Vec<Side> {
    let mut backward: HashSet<Var> = b.invars[n..n + n_out].iter().copied().collect();
    let mut out = Vec::with_capacity(b.eqns.len());
    for (k, eqn) in b.eqns.iter().enumerate() {
        let vars: Vec<Var> = eqn
            .inputs
            .iter()
            .filter_map(|a| match a {
                Atom::Var(v) => Some(*v),
                Atom::Lit(_) => None,
            })
            .collect();
        let recomputed = met
            .iter()
            .any(|(s, e, p)| (*s..*e).contains(&k) && !p.saveable(&eqn.prim));
        let side = if recomputed || vars.iter().any(|v| backward.contains(v)) {
            backward.extend(&eqn.outputs);
            Side::Backward
        } else if vars.is_empty() && eqn.prim.sub_jaxprs().is_empty() {
            Side::Both
        } else {
            Side::Known
        };
        out.push(side);
    }
    out
}

/// The known values `backward` reads, in the order it reads them:
/// neither cotangents (`not_known`) nor what it computes itself.
fn residual_vars(backward: &Jaxpr, not_known: &HashSet<Var>) -> Vec<Var> {
    let made: HashSet<Var> = backward
        .eqns
        .iter()
        .flat_map(|e| e.outputs.iter().copied())
        .collect();
    let reads = backward
        .eqns
        .iter()
        .flat_map(|e| e.inputs.iter())
        .chain(backward.outvars.iter());
    let mut seen = HashSet::new();
    let mut out = vec![];
    for a in reads {
        if let Atom::Var(v) = a {
            if !made.contains(v) && !not_known.contains(v) && seen.insert(*v) {
                out.push(*v);
            }
        }
    }
    out
}

/// For each known value, the last equation of the forward pass it depends
/// on (-1 for the inputs): the order JAX's forward pass makes residuals in.
fn anchors(b: &Jaxpr, sides: &[Side], forward_end: usize) -> HashMap<Var, i64> {
    let mut at: HashMap<Var, i64> = b.invars.iter().map(|v| (*v, -1)).collect();
    for (k, (eqn, side)) in b.eqns.iter().zip(sides).enumerate() {
        if *side == Side::Backward {
            continue;
        }
        let a = if k < forward_end {
            k as i64
        } else {
            eqn.inputs
                .iter()
                .filter_map(|x| match x {
                    Atom::Var(v) => at.get(v).copied(),
                    Atom::Lit(_) => None,
                })
                .max()
                .unwrap_or(-1)
        };
        for v in &eqn.outputs {
            at.insert(*v, a);
        }
    }
    at
}

/// The equations of one side (those on both sides included).
fn pick(b: &Jaxpr, sides: &[Side], side: Side) -> Vec<crate::ir::Eqn> {
    b.eqns
        .iter()
        .zip(sides)
        .filter(|(_, s)| **s == side || **s == Side::Both)
        .map(|(e, _)| e.clone())
        .collect()
}
