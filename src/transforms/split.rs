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

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use super::{forward_tape, pull_back, Pullback};
use crate::bail;
use crate::error::Result;
use crate::ir::{Atom, Aval, Jaxpr, Var};
use crate::ops;
use crate::primitives::{Policy, Prim};
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
    /// The arrays the forward program holds, which JAX keeps as residuals
    /// like any other value the backward pass reads.
    consts: Vec<Value>,
    captured: Vec<Value>,
    outs: Vec<Aval>,
}

/// `jaxpr` with each array (not scalar) it holds made an extra input, and
/// those arrays.
fn hoist_consts(jaxpr: &Jaxpr) -> (Jaxpr, Vec<Value>) {
    let mut j = jaxpr.clone();
    let mut consts = vec![];
    for k in 0..j.eqns.len() {
        for i in 0..j.eqns[k].inputs.len() {
            let Atom::Lit(a) = &j.eqns[k].inputs[i] else {
                continue;
            };
            // Scalars stay literals (JAX keeps the Python numbers a rule
            // multiplies by, which shardlab's literals no longer tell apart).
            if a.shape().is_empty() {
                continue;
            }
            let a = a.clone();
            let var = Var(j.avals.len() as u32);
            j.avals.push(Aval::of(&a));
            j.invars.push(var);
            consts.push(Value::Concrete(a));
            j.eqns[k].inputs[i] = Atom::Var(var);
        }
    }
    (j, consts)
}

/// Where the rule of a forward equation starts among the traced backward
/// pass's equations: (first equation, index of the forward equation).
type Mark = (usize, usize);

/// A traced backward pass: the program, the checkpoint rules and forward
/// equations' rules met, and the arrays hoisted out of the forward program.
type TracedBackward = (crate::trace::Traced, Vec<Remat>, Vec<Mark>, Vec<Value>);

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
    fn trace_backward(&self) -> Result<TracedBackward> {
        let (jaxpr, consts) = hoist_consts(&self.jaxpr);
        let mut avals: Vec<Aval> = self.primals.iter().map(|p| p.aval()).collect();
        avals.extend(consts.iter().map(|c| c.aval()));
        let n = avals.len();
        avals.extend(jaxpr.out_avals());
        let splitting = Splitting::start();
        let marks = RefCell::new(vec![]);
        let traced = crate::trace::trace(&avals, FrameAxes::default(), |v: &[Value]| {
            let (primals, cts) = v.split_at(n);
            let (_, tape) = forward_tape(&jaxpr, primals)?;
            let cts: Vec<Option<Value>> = cts.iter().cloned().map(Some).collect();
            let mut mark = |k| marks.borrow_mut().push((crate::trace::eqn_count(), k));
            let in_cts = pull_back(&jaxpr, tape, &cts, &mut mark)?;
            Ok(in_cts
                .into_iter()
                .take(self.n_args)
                .zip(primals)
                .map(|(c, p)| c.unwrap_or_else(|| ops::zeros_like(p)))
                .collect())
        })?;
        let met = splitting.met();
        Ok((traced, met, marks.into_inner(), consts))
    }

    /// This pullback as residuals and a backward program.
    pub fn split(&self) -> Result<Split> {
        let (traced, met, marks, consts) = self.trace_backward()?;
        for (_, k) in &marks {
            checked_rule(&self.jaxpr.eqns[*k])?;
        }
        let b = traced.jaxpr;
        let n = self.primals.len() + consts.len();
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
        refuse_inner_residuals(&backward, &residuals)?;
        let first = first_reads(&b, &sides, &marks);
        let arg_index: HashMap<Var, usize> = b.invars[..self.n_args]
            .iter()
            .enumerate()
            .map(|(k, v)| (*v, k))
            .collect();
        // Arguments first, in their order, then the other values in the
        // order JAX's linearization meets them: by the forward equation
        // whose rule first reads them; within it, the forward pass's values
        // in the order the rule reads them, then those the rule makes.
        let made_in_rules = made_in_rules(&b, &marks);
        let mut order: Vec<Var> = residuals;
        order.sort_by_key(|v| match arg_index.get(v) {
            Some(k) => (0, *k, 0, 0),
            None => {
                let (rule, at) = first.get(v).copied().unwrap_or((usize::MAX, usize::MAX));
                match made_in_rules.contains(v) {
                    false => (1, rule, 0, at),
                    true => (1, rule, 1, v.0 as usize),
                }
            }
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
            consts,
            captured: traced.captured,
            outs: self.jaxpr.out_avals(),
        })
    }

    /// The residuals' values for `split`, computed from this pullback's
    /// primals (in the current trace, if any).
    pub fn residuals(&self, split: &Split) -> Result<Vec<Value>> {
        let mut ins = self.primals.clone();
        ins.extend(split.consts.iter().cloned());
        ins.extend(split.captured.iter().cloned());
        crate::trace::eval_jaxpr(&split.known, &ins)
    }
}

impl Split {
    /// The arguments' cotangents for the output cotangents `cts`, from
    /// `residuals`.
    pub fn call(&self, residuals: &[Value], cts: &[Value]) -> Result<Vec<Value>> {
        super::check_cotangents(cts, &self.outs)?;
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
    /// Reads a cotangent: the backward program.
    Backward,
    /// Made of constants, or recomputed by a checkpoint: both.
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
        // A recomputed value is on both sides: the backward program
        // recomputes it, and a value the policy saves may be made from it.
        let side = if vars.iter().any(|v| backward.contains(v)) {
            backward.extend(&eqn.outputs);
            Side::Backward
        } else if recomputed || (vars.is_empty() && eqn.prim.sub_jaxprs().is_empty()) {
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

/// The primitives whose reverse-mode rules read what JAX's save, as
/// compared with JAX: a rule of any other primitive may read other values
/// (`abs` reads the operand where JAX keeps its sign as booleans, `max`
/// and `select_n` fewer values than JAX), so a split meeting it is refused.
const CHECKED: &[&str] = &[
    "sin",
    "cos",
    "exp",
    "tanh",
    "log",
    "sqrt",
    "logistic",
    "integer_pow",
    "mul",
    "div",
    "add",
    "add_any",
    "sub",
    "neg",
    "dot_general",
    "reduce_sum",
    "broadcast_in_dim",
    "reshape",
    "transpose",
    "squeeze",
    "expand_dims",
    "convert_element_type",
    "slice",
    "cumsum",
    "copy",
    "stop_gradient",
    "name",
    "remat2",
    "jit",
    "custom_vjp_call",
];

/// Refuses a forward equation whose rule runs unless its residuals are
/// JAX's; checkpointed and jitted bodies are checked throughout.
fn checked_rule(eqn: &crate::ir::Eqn) -> Result<()> {
    let name = eqn.prim.name();
    if !CHECKED.contains(&name.as_str()) {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: the residuals of the function jax.vjp returns, \
             through {name}"
        );
    }
    // JAX keeps a Python number that `x * 2.0` or `x / 2.0` reads, but not
    // every other constant scalar; shardlab's literals do not tell which.
    let scalar = eqn
        .inputs
        .iter()
        .any(|a| matches!(a, Atom::Lit(x) if x.shape().is_empty()));
    if scalar && matches!(name.as_str(), "mul" | "div") {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: the residuals of the function jax.vjp returns, \
             through {name} by a constant scalar"
        );
    }
    // Policies that save several values of a body were compared with JAX
    // only for dots and names; others may list them in another order.
    if let Prim::Remat(r) = &eqn.prim {
        if !matches!(
            r.policy,
            Policy::Default | Policy::Nothing | Policy::Dots(_) | Policy::OnlyNames(_)
        ) {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: the residuals of the function jax.vjp returns, \
                 through a checkpoint with policy {}",
                r.policy.text()
            );
        }
    }
    if matches!(eqn.prim, Prim::Remat(_) | Prim::Jit(_)) {
        for body in eqn.prim.sub_jaxprs() {
            body.eqns.iter().try_for_each(checked_rule)?;
        }
    }
    Ok(())
}

/// Refuses a split whose backward program runs control flow or a mapped
/// body on residuals: JAX splits those bodies too and keeps their inner
/// values (one per iteration for a scan), a list shardlab does not make.
fn refuse_inner_residuals(backward: &Jaxpr, residuals: &[Var]) -> Result<()> {
    let res: HashSet<Var> = residuals.iter().copied().collect();
    for eqn in &backward.eqns {
        let inner = matches!(
            eqn.prim,
            Prim::Cond(_) | Prim::Scan(_) | Prim::While(_) | Prim::Map(_) | Prim::ShardMap(_)
        );
        let reads = eqn
            .inputs
            .iter()
            .any(|a| matches!(a, Atom::Var(v) if res.contains(v)));
        if inner && reads {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: the residuals of the function jax.vjp returns, \
                 through {}",
                eqn.prim.name()
            );
        }
    }
    Ok(())
}

/// For each value the backward program reads, where it is first read:
/// the forward equation whose rule reads it, and the equation that does.
fn first_reads(b: &Jaxpr, sides: &[Side], marks: &[Mark]) -> HashMap<Var, (usize, usize)> {
    let mut first: HashMap<Var, (usize, usize)> = HashMap::new();
    for (j, (eqn, side)) in b.eqns.iter().zip(sides).enumerate() {
        if *side == Side::Known {
            continue;
        }
        let rule = marks
            .iter()
            .rev()
            .find(|(start, _)| *start <= j)
            .map_or(usize::MAX, |(_, k)| *k);
        for a in &eqn.inputs {
            if let Atom::Var(v) = a {
                let e = first.entry(*v).or_insert((rule, j));
                *e = (*e).min((rule, j));
            }
        }
    }
    first
}

/// The values made by the rules (after the forward pass).
fn made_in_rules(b: &Jaxpr, marks: &[Mark]) -> HashSet<Var> {
    let start = marks.iter().map(|m| m.0).min().unwrap_or(b.eqns.len());
    b.eqns[start.min(b.eqns.len())..]
        .iter()
        .flat_map(|e| e.outputs.iter().copied())
        .collect()
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
