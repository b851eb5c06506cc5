//! Which values reverse mode keeps from the forward pass: JAX's residuals,
//! as `jax.ad_checkpoint.print_saved_residuals` lists them.
//!
//! JAX linearizes a function and splits the result into the forward
//! computation and a linear backward one; the residuals are the forward
//! values the backward one reads. This module derives the same list from a
//! traced program: each primitive's derivative reads known values (`mul`
//! reads the other operand, `sin` a `cos` it computes, `exp` its own
//! result), only derivatives that reach an output count, and inside a
//! `checkpoint` a value its policy does not save is recomputed, so what is
//! kept instead are the values it is recomputed from.

use std::collections::{BTreeSet, HashMap, HashSet};

use crate::array::DType;
use crate::bail;
use crate::error::Result;
use crate::ir::{Atom, Aval, Eqn, Jaxpr, Var};
use crate::primitives::{Policy, Prim};

/// A value the backward pass reads, as JAX lists it.
#[derive(Debug, Clone)]
pub struct Residual {
    /// Its type.
    pub aval: Aval,
    /// Where it comes from: `from the argument x`, `output of sin from ...`.
    pub source: String,
}

/// What one derivative rule reads.
enum Need {
    /// An operand.
    In(usize),
    /// A result.
    Out(usize),
    /// A value the rule computes from the operands, by the named primitive.
    New(&'static str),
}

/// A known value of the forward pass.
struct Val {
    aval: Aval,
    /// `Some(k)` for the k-th argument.
    arg: Option<usize>,
    /// The text after the type, for values made by equations.
    label: String,
    /// Position in the forward pass, for ordering.
    order: (usize, usize),
    /// When a checkpoint does not save it: the values it is recomputed from.
    recompute: Option<Vec<usize>>,
}

#[derive(Default)]
struct State {
    vals: Vec<Val>,
    saved: BTreeSet<usize>,
    literals: Vec<Aval>,
    visited: HashSet<usize>,
    eqns: usize,
}

impl State {
    fn push(&mut self, v: Val) -> usize {
        self.vals.push(v);
        self.vals.len() - 1
    }

    /// Keeps `id`, or what it is recomputed from.
    fn save(&mut self, id: usize) {
        if !self.visited.insert(id) {
            return;
        }
        match self.vals[id].recompute.clone() {
            Some(from) => from.into_iter().for_each(|f| self.save(f)),
            None => {
                self.saved.insert(id);
            }
        }
    }
}

fn float(a: &Aval) -> bool {
    a.dtype == DType::F32
}

/// The values each primitive's derivative reads, given which operands carry
/// tangents; JAX's rules, by what they read.
fn needs(prim: &Prim, tan: &[bool]) -> Result<Vec<Need>> {
    let name = prim.name();
    let other = |k: usize| {
        if tan[k] {
            vec![Need::In(1 - k)]
        } else {
            vec![]
        }
    };
    Ok(match name.as_str() {
        "add"
        | "sub"
        | "neg"
        | "reduce_sum"
        | "broadcast_in_dim"
        | "reshape"
        | "transpose"
        | "squeeze"
        | "expand_dims"
        | "slice"
        | "concatenate"
        | "pad"
        | "rev"
        | "copy"
        | "convert_element_type"
        | "name"
        | "stop_gradient"
        | "sharding_constraint"
        | "reduce_precision"
        | "cumsum" => vec![],
        "select_n" | "dynamic_slice" | "gather" => vec![Need::In(0)],
        "dynamic_update_slice" => vec![],
        "sin" => vec![Need::New("cos")],
        "cos" => vec![Need::New("sin")],
        "exp" => vec![Need::Out(0)],
        "tanh" => vec![Need::Out(0), Need::New("sub")],
        "log" => vec![Need::In(0)],
        "logistic" => vec![Need::New("mul")],
        "sqrt" => vec![Need::New("div")],
        "integer_pow" => match prim {
            Prim::IntegerPow(0 | 1) => vec![],
            _ => vec![Need::New("mul")],
        },
        "mul" | "dot_general" => {
            let mut n = other(1);
            n.extend(other(0));
            n
        }
        "div" => {
            let mut n = other(0);
            if tan[1] {
                n.extend([Need::In(0), Need::New("integer_pow")]);
            }
            n
        }
        "max" | "min" => tan
            .iter()
            .filter(|t| **t)
            .map(|_| Need::New("div"))
            .collect(),
        "reduce_max" | "reduce_min" => {
            vec![Need::New("convert_element_type"), Need::New("reduce_sum")]
        }
        other => bail!(
            NotImplementedError,
            "not supported by shardlab yet: print_saved_residuals of a function using {other}"
        ),
    })
}

/// Which outputs of `jaxpr` carry tangents when the inputs `tan` do.
fn tangents(jaxpr: &Jaxpr, tan: &[bool]) -> HashSet<Var> {
    let mut set: HashSet<Var> = HashSet::new();
    for (v, t) in jaxpr.invars.iter().zip(tan) {
        if *t && float(jaxpr.aval(*v)) {
            set.insert(*v);
        }
    }
    for eqn in &jaxpr.eqns {
        let ins = in_tangents(eqn, &set);
        let outs: Vec<bool> = match &eqn.prim {
            Prim::StopGradient => vec![false; eqn.outputs.len()],
            Prim::Remat(r) => {
                let inner = tangents(&r.body, &ins);
                r.body
                    .outvars
                    .iter()
                    .map(|a| matches!(a, Atom::Var(v) if inner.contains(v)))
                    .collect()
            }
            _ => vec![ins.iter().any(|t| *t); eqn.outputs.len()],
        };
        for (v, t) in eqn.outputs.iter().zip(outs) {
            if t && float(jaxpr.aval(*v)) {
                set.insert(*v);
            }
        }
    }
    set
}

fn in_tangents(eqn: &Eqn, set: &HashSet<Var>) -> Vec<bool> {
    eqn.inputs
        .iter()
        .map(|a| matches!(a, Atom::Var(v) if set.contains(v)))
        .collect()
}

/// The equations whose derivatives reach a live output, by index.
fn live_eqns(jaxpr: &Jaxpr, tan: &HashSet<Var>, live_out: &[bool]) -> Vec<bool> {
    let mut live: HashSet<Var> = HashSet::new();
    for (a, l) in jaxpr.outvars.iter().zip(live_out) {
        if let (Atom::Var(v), true) = (a, l) {
            if tan.contains(v) {
                live.insert(*v);
            }
        }
    }
    let mut out = vec![false; jaxpr.eqns.len()];
    for (i, eqn) in jaxpr.eqns.iter().enumerate().rev() {
        if eqn.outputs.iter().any(|v| live.contains(v)) {
            out[i] = true;
            for a in &eqn.inputs {
                if let Atom::Var(v) = a {
                    if tan.contains(v) {
                        live.insert(*v);
                    }
                }
            }
        }
    }
    out
}

/// The text JAX gives a value made by `eqn`.
fn label(eqn: &Eqn, prim: &str) -> String {
    let src = eqn
        .source
        .as_ref()
        .map_or_else(|| "unknown".to_string(), |s| s.summarize());
    match &eqn.prim {
        Prim::Name(n) => format!("named '{n}' from {src}"),
        Prim::Jit(j) => format!("output of jitted function '{}' from {src}", j.name),
        _ => format!("output of {prim} from {src}"),
    }
}

/// What an operand stands for: a known value, or a literal.
#[derive(Clone)]
enum Origin {
    Id(usize),
    Lit(Aval),
}

/// The values equation `eqn` (the `order`th met) makes, computed from the
/// values `from`, recomputed rather than saved where `policy` says so.
fn eqn_values(
    jaxpr: &Jaxpr,
    eqn: &crate::ir::Eqn,
    order: usize,
    from: &[usize],
    policy: Option<&Policy>,
    st: &mut State,
) -> Result<Vec<Origin>> {
    if let Some(Policy::Python(_)) = policy {
        crate::bail!(
            NotImplementedError,
            "not supported by shardlab yet: saved residuals under a checkpoint policy written in Python"
        );
    }
    let saveable = policy.is_none_or(|p| p.saveable(&eqn.prim));
    let name = eqn.prim.name();
    Ok(eqn
        .outputs
        .iter()
        .enumerate()
        .map(|(k, v)| {
            Origin::Id(st.push(Val {
                aval: jaxpr.aval(*v).clone(),
                arg: None,
                label: label(eqn, &name),
                order: (order, k),
                recompute: (!saveable).then(|| from.to_vec()),
            }))
        })
        .collect())
}

/// Walks `jaxpr` (the whole function, or a checkpoint's body under
/// `policy`), saving what its live derivatives read. Returns the origins
/// of its outputs.
fn walk(
    jaxpr: &Jaxpr,
    ins: &[Origin],
    in_tan: &[bool],
    live_out: &[bool],
    policy: Option<&Policy>,
    st: &mut State,
) -> Result<Vec<Origin>> {
    let tan = tangents(jaxpr, in_tan);
    let live = live_eqns(jaxpr, &tan, live_out);
    let mut env: HashMap<Var, Origin> = jaxpr
        .invars
        .iter()
        .copied()
        .zip(ins.iter().cloned())
        .collect();
    let read = |env: &HashMap<Var, Origin>, a: &Atom| match a {
        Atom::Var(v) => env
            .get(v)
            .cloned()
            .unwrap_or(Origin::Lit(jaxpr.aval(*v).clone())),
        Atom::Lit(x) => Origin::Lit(Aval::of(x)),
    };
    for (eqn, live) in jaxpr.eqns.iter().zip(live) {
        st.eqns += 1;
        let order = st.eqns;
        let origins: Vec<Origin> = eqn.inputs.iter().map(|a| read(&env, a)).collect();
        let from: Vec<usize> = origins
            .iter()
            .filter_map(|o| match o {
                Origin::Id(i) => Some(*i),
                Origin::Lit(_) => None,
            })
            .collect();
        let outs = match &eqn.prim {
            Prim::Remat(r) => {
                let in_tan = in_tangents(eqn, &tan);
                let live_out: Vec<bool> = eqn
                    .outputs
                    .iter()
                    .map(|v| live && tan.contains(v))
                    .collect();
                let inner = walk(&r.body, &origins, &in_tan, &live_out, Some(&r.policy), st)?;
                let recompute = policy.map(|_| from.clone());
                inner
                    .into_iter()
                    .map(|o| outer_origin(o, recompute.clone(), st))
                    .collect()
            }
            _ => {
                let outs = eqn_values(jaxpr, eqn, order, &from, policy, st)?;
                if live {
                    let in_tan = in_tangents(eqn, &tan);
                    save_needs(eqn, &in_tan, &origins, &outs, policy, &from, order, st)?;
                }
                outs
            }
        };
        for (v, o) in eqn.outputs.iter().zip(outs) {
            env.insert(*v, o);
        }
    }
    Ok(jaxpr.outvars.iter().map(|a| read(&env, a)).collect())
}

/// A checkpoint's output as the code after it sees it: a known value the
/// forward pass keeps whatever the checkpoint's policy, unless an enclosing
/// checkpoint recomputes it (then from the inner checkpoint's operands,
/// `recompute`).
fn outer_origin(o: Origin, recompute: Option<Vec<usize>>, st: &mut State) -> Origin {
    let Origin::Id(i) = o else {
        return o;
    };
    if st.vals[i].recompute.is_none() {
        return Origin::Id(i);
    }
    let v = &st.vals[i];
    let copy = Val {
        aval: v.aval.clone(),
        arg: v.arg,
        label: v.label.clone(),
        order: v.order,
        recompute,
    };
    Origin::Id(st.push(copy))
}

/// Saves what the derivative of a live `eqn` reads.
#[allow(clippy::too_many_arguments)]
fn save_needs(
    eqn: &Eqn,
    in_tan: &[bool],
    ins: &[Origin],
    outs: &[Origin],
    policy: Option<&Policy>,
    from: &[usize],
    order: usize,
    st: &mut State,
) -> Result<()> {
    if matches!(
        eqn.prim,
        Prim::Jit(_)
            | Prim::Cond(_)
            | Prim::While(_)
            | Prim::Scan(_)
            | Prim::CustomJvp(_)
            | Prim::CustomVjp(_)
            | Prim::Map(_)
            | Prim::ShardMap(_)
    ) {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: print_saved_residuals of a function using {}",
            eqn.prim.name()
        );
    }
    let keeps_new = policy.is_none_or(|p| matches!(p, Policy::Everything(_)));
    let mut k_new = eqn.outputs.len();
    for need in needs(&eqn.prim, in_tan)? {
        let origin = match need {
            Need::In(k) => ins[k].clone(),
            Need::Out(k) => outs[k].clone(),
            Need::New(prim) => {
                let aval = outs
                    .first()
                    .map(|o| match o {
                        Origin::Id(i) => st.vals[*i].aval.clone(),
                        Origin::Lit(a) => a.clone(),
                    })
                    .unwrap_or_else(|| Aval::new(&[], DType::F32));
                // A maximum's derivative counts the operand's elements equal
                // to it: a mask of the operand's shape, summed.
                let operand = || match ins.first() {
                    Some(Origin::Id(i)) => st.vals[*i].aval.clone(),
                    Some(Origin::Lit(a)) => a.clone(),
                    None => aval.clone(),
                };
                let aval = match prim {
                    "reduce_sum" => aval.with_shape(vec![]),
                    "convert_element_type" => operand().with_dtype(aval.dtype),
                    _ => aval,
                };
                k_new += 1;
                Origin::Id(st.push(Val {
                    aval,
                    arg: None,
                    label: label(eqn, prim),
                    order: (order, k_new),
                    recompute: (!keeps_new).then(|| from.to_vec()),
                }))
            }
        };
        match origin {
            Origin::Id(i) => st.save(i),
            Origin::Lit(a) => st.literals.push(a),
        }
    }
    Ok(())
}

/// The residuals of reverse mode on `jaxpr` at all its float inputs, in
/// JAX's order: literals, then arguments, then values in program order.
/// `arg_names` names the inputs (`params[0]`, `x`).
pub fn saved_residuals(jaxpr: &Jaxpr, arg_names: &[String]) -> Result<Vec<Residual>> {
    let mut st = State::default();
    let ins: Vec<Origin> = jaxpr
        .invars
        .iter()
        .enumerate()
        .map(|(k, v)| {
            Origin::Id(st.push(Val {
                aval: jaxpr.aval(*v).clone(),
                arg: Some(k),
                label: String::new(),
                order: (0, k),
                recompute: None,
            }))
        })
        .collect();
    let in_tan = vec![true; jaxpr.invars.len()];
    let live_out = vec![true; jaxpr.outvars.len()];
    walk(jaxpr, &ins, &in_tan, &live_out, None, &mut st)?;
    let mut out: Vec<Residual> = st
        .literals
        .iter()
        .map(|a| Residual {
            aval: a.clone(),
            source: "from a literal".into(),
        })
        .collect();
    let mut saved: Vec<&Val> = st.saved.iter().map(|i| &st.vals[*i]).collect();
    saved.sort_by_key(|v| (v.arg.is_none(), v.order));
    for v in saved {
        let source = match v.arg {
            Some(k) => format!(
                "from the argument {}",
                arg_names.get(k).map_or("unknown", |s| s.as_str())
            ),
            None => v.label.clone(),
        };
        out.push(Residual {
            aval: v.aval.clone(),
            source,
        });
    }
    Ok(out)
}
