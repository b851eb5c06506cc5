//! `jax.custom_jvp` and `jax.custom_vjp`: functions with their own
//! derivative rules.
//!
//! Outside differentiation a call runs the Python function itself, as JAX
//! does (under `jit` and `vmap` too). While a differentiation traces it, a
//! call runs the rule instead, one level down (a call of the function inside
//! its own rule runs the function, or for grad of grad the rule again), and
//! stages a `custom_jvp_call` or `custom_vjp_call` equation that holds the
//! traced rules (see `primitives::custom`). The backward rule of a custom_vjp
//! function is traced right after its forward rule, so its Python code runs
//! when the function is called rather than when the cotangents flow back.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use crate::error::Result;
use crate::ir::Aval;
use crate::primitives::{CustomJvpParams, CustomVjpParams, Prim};
use crate::trace::{FrameAxes, Value};
use crate::transforms::{below_innermost, differentiating, Mode};
use crate::{bail, err, ops as jops};

use super::jax::func_name;
use crate::python::builtins::to_int;
use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::ops::iterate;
use crate::python::pytree::{flatten, leaf_values, unflatten, value_objs, TreeDef};
use crate::python::value::{Args, Obj};

/// The argument positions given as `nondiff_argnums`.
fn nondiff_argnums(a: &Args) -> Result<Vec<usize>> {
    match a.get(None, "nondiff_argnums") {
        None | Some(Obj::None) => Ok(vec![]),
        Some(o) => iterate(&o)?
            .iter()
            .map(|n| to_int(n).map(|n| n as usize))
            .collect(),
    }
}

/// The positional arguments split into the non-differentiable ones (in
/// order) and the others.
fn split_args(args: &[Obj], nondiff: &[usize]) -> (Vec<Obj>, Vec<Obj>) {
    let (mut fixed, mut diff) = (vec![], vec![]);
    for (k, a) in args.iter().enumerate() {
        if nondiff.contains(&k) {
            fixed.push(a.clone());
        } else {
            diff.push(a.clone());
        }
    }
    (fixed, diff)
}

/// The full argument list from the fixed and differentiated arguments.
fn merge_args(fixed: &[Obj], diff: Vec<Obj>, nondiff: &[usize]) -> Vec<Obj> {
    let n = fixed.len() + diff.len();
    let (mut fixed_it, mut diff_it) = (fixed.iter().cloned(), diff.into_iter());
    (0..n)
        .filter_map(|k| {
            if nondiff.contains(&k) {
                fixed_it.next()
            } else {
                diff_it.next()
            }
        })
        .collect()
}

fn positional(args: Args, name: &str) -> Result<Vec<Obj>> {
    if !args.kw.is_empty() {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: keyword arguments to the custom-derivative function {name}"
        );
    }
    Ok(args.pos)
}

fn pair(o: Obj, what: impl FnOnce() -> String) -> Result<(Obj, Obj)> {
    let parts = match &o {
        Obj::Tuple(_) | Obj::List(_) => iterate(&o)?,
        _ => vec![],
    };
    match parts.as_slice() {
        [a, b] => Ok((a.clone(), b.clone())),
        _ => Err(err!(TypeError, "{}", what())),
    }
}

fn leaves_of(interp: &mut Interp, o: &Obj) -> Result<(Vec<Value>, TreeDef)> {
    let (leaves, def) = flatten(interp, o)?;
    // JAX passes a ref to the rules as a ref (a residual the backward rule
    // may write to); shardlab's rules take arrays.
    if leaves.iter().any(|l| super::refs::slot_of(l).is_some()) {
        crate::bail!(
            NotImplementedError,
            "not supported by shardlab yet: an array ref passed to a custom_jvp or custom_vjp \
             function where its rules run"
        );
    }
    Ok((leaf_values(&leaves)?, def))
}

/// A traced rule's primal program: `rule` at zero tangents, keeping its
/// first `n_outs` outputs.
fn primal_program(
    rule: &crate::ir::Jaxpr,
    n_args: usize,
    n_outs: usize,
) -> Result<crate::ir::Jaxpr> {
    let avals: Vec<Aval> = rule.invars.iter().map(|v| rule.aval(*v).clone()).collect();
    let mut call_avals = avals[..n_args].to_vec();
    call_avals.extend(avals[2 * n_args..].iter().cloned());
    let traced = crate::trace::trace(&call_avals, FrameAxes::default(), |v: &[Value]| {
        let mut ins = v[..n_args].to_vec();
        ins.extend(
            avals[n_args..2 * n_args]
                .iter()
                .map(|a| Value::Concrete(crate::array::Array::zeros(&a.shape, a.dtype))),
        );
        ins.extend(v[n_args..].iter().cloned());
        let mut outs = crate::trace::eval_jaxpr(rule, &ins)?;
        outs.truncate(n_outs);
        Ok(outs)
    })?;
    Ok(without_unused(traced.jaxpr))
}

/// The program without the equations whose results nothing uses (the
/// rule's tangent computations, at zero tangents); equations without
/// results (prints) stay.
fn without_unused(jaxpr: crate::ir::Jaxpr) -> crate::ir::Jaxpr {
    let l = jaxpr.liveness(|eqn, used| used || eqn.outputs.is_empty());
    jaxpr.keeping(&l.kept)
}

/// Refuses rules that close over values of the computation being
/// differentiated: JAX cannot differentiate with respect to them either
/// (it fails with an `UnexpectedTracerError`), and leaving them out would
/// silently drop part of the derivative.
fn check_closure(captured: &[Value], kind: &str, name: &str) -> Result<()> {
    let Some(level) = crate::transforms::differentiated_level() else {
        return Ok(());
    };
    let inner = |v: &Value| matches!(v, Value::Traced(t) if t.level >= level && t.aval.dtype == crate::array::DType::F32);
    if captured.iter().any(inner) {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: differentiating the {kind} function {name} with respect to a value it closes over"
        );
    }
    Ok(())
}

/// The jvp rule of a custom_jvp function.
#[derive(Clone)]
enum JvpRule {
    /// From `defjvp`: `rule(*nondiff, primals, tangents) -> (out, out_dot)`.
    Joint(Obj),
    /// From `defjvps`: one `jvp(t, ans, *primals)` per argument (None for
    /// a zero contribution), summed.
    PerArg(Vec<Obj>),
}

/// A `jax.custom_jvp` function.
struct CustomJvp {
    fun: Obj,
    nondiff: Vec<usize>,
    rule: RefCell<Option<JvpRule>>,
}

impl CustomJvp {
    /// The rule's outputs `(out, out_dot)` for the primal and tangent tuples.
    fn apply_rule(
        &self,
        interp: &mut Interp,
        this: &Obj,
        rule: &JvpRule,
        fixed: &[Obj],
        ps: Obj,
        ts: Obj,
    ) -> Result<(Obj, Obj)> {
        match rule {
            JvpRule::Joint(r) => {
                let mut pos = fixed.to_vec();
                pos.extend([ps, ts]);
                let out = interp.call(r, Args::with(pos, vec![]))?;
                pair(out, || {
                    "Custom JVP rule must produce a pair (list or tuple of length two) representing primal and tangent outputs.".into()
                })
            }
            JvpRule::PerArg(jvps) => {
                let primals = iterate(&ps)?;
                let ans = interp.call(this, Args::with(primals.clone(), vec![]))?;
                let (ans_leaves, ans_def) = leaves_of(interp, &ans)?;
                let mut total: Vec<Value> = ans_leaves.iter().map(jops::zeros_like).collect();
                for (jvp, t) in jvps.iter().zip(iterate(&ts)?) {
                    if matches!(jvp, Obj::None) {
                        continue;
                    }
                    let mut pos = vec![t, ans.clone()];
                    pos.extend(primals.iter().cloned());
                    let part = interp.call(jvp, Args::with(pos, vec![]))?;
                    let (part, _) = leaves_of(interp, &part)?;
                    total = total
                        .iter()
                        .zip(&part)
                        .map(|(a, b)| jops::add(a, b))
                        .collect::<Result<_>>()?;
                }
                let tangent = unflatten(interp, &ans_def, &value_objs(&total))?;
                Ok((ans, tangent))
            }
        }
    }

    fn call_rule(&self, interp: &mut Interp, this: &Obj, args: Args) -> Result<Obj> {
        let name = func_name(&self.fun);
        let rule = self.rule.borrow().clone().ok_or_else(|| {
            err!(
                AttributeError,
                "No JVP defined for custom_jvp function {name} using defjvp."
            )
        })?;
        if matches!(rule, JvpRule::PerArg(_)) && !self.nondiff.is_empty() {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: defjvps with nondiff_argnums"
            );
        }
        let (fixed, diff) = split_args(&positional(args, &name)?, &self.nondiff);
        let (primals, in_def) = leaves_of(interp, &Obj::tuple(diff))?;
        let n = primals.len();
        let mut rule_args = primals.clone();
        rule_args.extend(primals.iter().map(jops::zeros_like));
        let out_def = RefCell::new(None);
        let traced = below_innermost(|| {
            crate::trace::trace_values(&rule_args, |v: &[Value]| {
                let ps = unflatten(interp, &in_def, &value_objs(&v[..n]))?;
                let ts = unflatten(interp, &in_def, &value_objs(&v[n..]))?;
                let (out, out_dot) = self.apply_rule(interp, this, &rule, &fixed, ps, ts)?;
                let (mut outs, def) = leaves_of(interp, &out)?;
                let (dots, _) = leaves_of(interp, &out_dot)?;
                if dots.len() != outs.len()
                    || outs.iter().zip(&dots).any(|(o, d)| o.shape() != d.shape())
                {
                    bail!(
                        TypeError,
                        "Custom JVP rule must produce primal and tangent outputs with equal container (pytree) structures and corresponding shapes."
                    );
                }
                *out_def.borrow_mut() = Some(def);
                outs.extend(dots);
                Ok(outs)
            })
        })?;
        check_closure(&traced.captured, "custom_jvp", &name)?;
        let out_def = out_def.into_inner().unwrap_or(TreeDef::None);
        let n_outs = out_def.num_leaves();
        let call = primal_program(&traced.jaxpr, n, n_outs)?;
        let jvp_name = match &rule {
            JvpRule::Joint(r) => func_name(r),
            JvpRule::PerArg(_) => "jvp".into(),
        };
        let params = CustomJvpParams {
            name,
            jvp_name,
            rule: traced.jaxpr,
            call,
            n_args: n,
        };
        let mut ins = primals;
        ins.extend(traced.captured);
        let outs = crate::trace::bind(Prim::CustomJvp(Arc::new(params)), &ins)?;
        unflatten(interp, &out_def, &value_objs(&outs))
    }
}

impl Object for CustomJvp {
    fn type_name(&self) -> String {
        "custom_jvp".into()
    }

    fn getattr(&self, _: &mut Interp, this: &Obj, name: &str) -> Result<Option<Obj>> {
        let me = this.clone();
        Ok(match name {
            "defjvp" => Some(Obj::native("defjvp", move |_, a| {
                let jvp = a.req(Some(0), "jvp", "defjvp")?;
                if a.get(None, "symbolic_zeros")
                    .is_some_and(|o| matches!(o, Obj::Bool(true)))
                {
                    bail!(
                        NotImplementedError,
                        "not supported by shardlab yet: custom_jvp.defjvp with symbolic_zeros=True"
                    );
                }
                if let Some(c) = me.downcast::<CustomJvp>() {
                    *c.rule.borrow_mut() = Some(JvpRule::Joint(jvp.clone()));
                }
                Ok(jvp)
            })),
            "defjvps" => Some(Obj::native("defjvps", move |_, a| {
                if let Some(c) = me.downcast::<CustomJvp>() {
                    *c.rule.borrow_mut() = Some(JvpRule::PerArg(a.pos.clone()));
                }
                Ok(Obj::None)
            })),
            "fun" | "__wrapped__" => Some(self.fun.clone()),
            "__name__" => Some(Obj::str(func_name(&self.fun))),
            "nondiff_argnums" => Some(Obj::tuple(
                self.nondiff.iter().map(|&k| Obj::Int(k as i64)).collect(),
            )),
            _ => None,
        })
    }

    fn call(&self, interp: &mut Interp, this: &Obj, args: Args) -> Option<Result<Obj>> {
        if self.rule.borrow().is_none() {
            return Some(Err(err!(
                AttributeError,
                "No JVP defined for custom_jvp function {} using defjvp.",
                func_name(&self.fun)
            )));
        }
        Some(match differentiating() {
            None => interp.call(&self.fun, args),
            Some(_) => self.call_rule(interp, this, args),
        })
    }

    fn callable(&self) -> bool {
        true
    }
}

/// A custom_vjp's backward rule with what it is called with besides the
/// residuals and cotangents, and the structures to rebuild them.
struct BwdRule {
    name: String,
    bwd: Obj,
    fixed: Vec<Obj>,
    diff: Vec<Obj>,
    res_def: TreeDef,
    out_def: TreeDef,
    /// The forward rule's output types: outputs, then residuals.
    fwd_avals: Vec<crate::ir::Aval>,
}

/// Calls the backward rule on residual and cotangent leaves; returns one
/// cotangent leaf per differentiated argument leaf (zeros for None), with
/// JAX's errors for a result of the wrong structure.
fn apply_bwd(
    interp: &mut Interp,
    rule: &BwdRule,
    res: &[Value],
    ct: &[Value],
) -> Result<Vec<Value>> {
    let name = &rule.name;
    let res = unflatten(interp, &rule.res_def, &value_objs(res))?;
    let ct = unflatten(interp, &rule.out_def, &value_objs(ct))?;
    let mut pos = rule.fixed.clone();
    pos.extend([res, ct]);
    let out = interp.call(&rule.bwd, Args::with(pos, vec![]))?;
    let entries = match &out {
        Obj::Tuple(_) | Obj::List(_) => iterate(&out)?,
        _ => bail!(
            TypeError,
            "Custom VJP bwd rule must produce a tuple or list, but got {} for function {name}.",
            out.type_name()
        ),
    };
    if entries.len() != rule.diff.len() {
        bail!(
            TypeError,
            "Custom VJP bwd rule must produce an output with the same container (pytree) structure as the args tuple of the primal function, and in particular must produce a tuple of length equal to the number of arguments to the primal function, but got bwd output of length {} for {} arguments of function {name}.",
            entries.len(),
            rule.diff.len()
        );
    }
    let mut cts = vec![];
    for (entry, arg) in entries.iter().zip(&rule.diff) {
        let (arg_leaves, _) = leaves_of(interp, arg)?;
        if matches!(entry, Obj::None) {
            cts.extend(arg_leaves.iter().map(jops::zeros_like));
            continue;
        }
        let (leaves, _) = leaves_of(interp, entry)?;
        if leaves.len() != arg_leaves.len() {
            bail!(
                TypeError,
                "Custom VJP bwd rule must produce an output with the same container (pytree) structure as the args tuple of the primal function {name}."
            );
        }
        cts.extend(leaves);
    }
    Ok(cts)
}

/// The run's custom_vjp backward rules, by the number their equations hold
/// (run state).
#[derive(Default)]
struct BwdRules(Vec<Rc<BwdRule>>);

/// Applies backward rule `id` on the interpreter lent to the evaluation,
/// as JAX calls it when the pullback is applied; None where no interpreter
/// is lent (the traced rule is used then).
fn run_bwd(id: u64, res: &[Value], ct: &[Value]) -> Result<Option<Vec<Value>>> {
    super::callbacks::try_with_lent(|interp| {
        let rule = interp.state::<BwdRules>().0.get(id as usize).cloned();
        let Some(rule) = rule else {
            bail!(RuntimeError, "custom_vjp: the backward rule is gone");
        };
        apply_bwd(interp, &rule, res, ct)
    })
}

/// Keeps `rule` for the run; returns its number.
fn register_bwd(interp: &mut Interp, rule: BwdRule) -> u64 {
    crate::primitives::custom::set_bwd_hook(run_bwd);
    let rules = &mut interp.state::<BwdRules>().0;
    rules.push(Rc::new(rule));
    rules.len() as u64 - 1
}

/// A `jax.custom_vjp` function.
struct CustomVjp {
    fun: Obj,
    nondiff: Vec<usize>,
    rules: RefCell<Option<(Obj, Obj)>>,
}

/// The forward rule traced: its program, the output and residual trees, and
/// the values it closed over.
struct TracedFwd {
    traced: crate::trace::Traced,
    out_def: TreeDef,
    res_def: TreeDef,
}

impl CustomVjp {
    fn trace_fwd(
        &self,
        interp: &mut Interp,
        fwd: &Obj,
        fixed: &[Obj],
        in_def: &TreeDef,
        primals: &[Value],
    ) -> Result<TracedFwd> {
        let defs = RefCell::new(None);
        let name = func_name(&self.fun);
        let traced = below_innermost(|| {
            crate::trace::trace_values(primals, |v: &[Value]| {
                let diff = iterate(&unflatten(interp, in_def, &value_objs(v))?)?;
                let pos = merge_args(fixed, diff, &self.nondiff);
                let out = interp.call(fwd, Args::with(pos, vec![]))?;
                let (y, res) = pair(out, || {
                    format!("Custom VJP fwd rule {} for function {name} must produce a pair (list or tuple of length two) where the first element represents the primal output and the second element represents residuals.", func_name(fwd))
                })?;
                let (mut ys, out_def) = leaves_of(interp, &y)?;
                let (res, res_def) = leaves_of(interp, &res)?;
                *defs.borrow_mut() = Some((out_def, res_def));
                ys.extend(res);
                Ok(ys)
            })
        })?;
        let (out_def, res_def) = defs
            .into_inner()
            .ok_or_else(|| err!(RuntimeError, "the fwd rule of {name} was not traced"))?;
        Ok(TracedFwd {
            traced,
            out_def,
            res_def,
        })
    }

    /// Traces the backward rule on the residuals and output cotangents; its
    /// result has one entry per differentiated argument (None for zeros).
    fn trace_bwd(&self, interp: &mut Interp, rule: &BwdRule) -> Result<crate::trace::Traced> {
        let _ = self;
        let avals = rule.fwd_avals.clone();
        let n_outs = rule.out_def.num_leaves();
        let n_res = avals.len() - n_outs;
        let mut in_avals = avals[n_outs..].to_vec();
        in_avals.extend(avals[..n_outs].iter().cloned());
        below_innermost(|| {
            crate::trace::trace(&in_avals, FrameAxes::default(), |v: &[Value]| {
                apply_bwd(interp, rule, &v[..n_res], &v[n_res..])
            })
        })
    }

    fn call_rules(&self, interp: &mut Interp, mode: Mode, args: Args) -> Result<Obj> {
        let name = func_name(&self.fun);
        let (fwd, bwd) = self.rules.borrow().clone().ok_or_else(|| {
            err!(
                AttributeError,
                "No VJP defined for custom_vjp function {name} using defvjp."
            )
        })?;
        let (fixed, diff) = split_args(&positional(args, &name)?, &self.nondiff);
        let (primals, in_def) = leaves_of(interp, &Obj::tuple(diff.clone()))?;
        let traced_fwd = self.trace_fwd(interp, &fwd, &fixed, &in_def, &primals)?;
        if mode == Mode::Forward {
            return Err(crate::primitives::custom::custom_vjp_jvp_error());
        }
        // What the rule prints now is shown when it is applied (see
        // `CustomVjpParams::bwd_printed`).
        let rule = BwdRule {
            name: name.clone(),
            bwd: bwd.clone(),
            fixed: fixed.clone(),
            diff: diff.clone(),
            res_def: traced_fwd.res_def.clone(),
            out_def: traced_fwd.out_def.clone(),
            fwd_avals: traced_fwd.traced.jaxpr.out_avals(),
        };
        let before = interp.out.len();
        let traced_bwd = self.trace_bwd(interp, &rule);
        let bwd_printed = interp.out.get(before..).unwrap_or_default().to_string();
        interp.out.truncate(before);
        let traced_bwd = traced_bwd?;
        check_closure(&traced_fwd.traced.captured, "custom_vjp", &name)?;
        check_closure(&traced_bwd.captured, "custom_vjp", &name)?;
        let params = CustomVjpParams {
            name,
            fwd_name: func_name(&fwd),
            bwd_name: func_name(&bwd),
            fwd: traced_fwd.traced.jaxpr,
            bwd: traced_bwd.jaxpr,
            n_args: primals.len(),
            n_outs: traced_fwd.out_def.num_leaves(),
            bwd_printed,
            bwd_id: Some(register_bwd(interp, rule)),
        };
        let mut ins = primals;
        ins.extend(traced_fwd.traced.captured);
        ins.extend(traced_bwd.captured);
        let outs = crate::trace::bind(Prim::CustomVjp(Arc::new(params)), &ins)?;
        unflatten(interp, &traced_fwd.out_def, &value_objs(&outs))
    }
}

impl Object for CustomVjp {
    fn type_name(&self) -> String {
        "custom_vjp".into()
    }

    fn getattr(&self, _: &mut Interp, this: &Obj, name: &str) -> Result<Option<Obj>> {
        let me = this.clone();
        Ok(match name {
            "defvjp" => Some(Obj::native("defvjp", move |_, a| {
                let (fwd, bwd) = defvjp_rules(&a, "custom_vjp.defvjp")?;
                if let Some(c) = me.downcast::<CustomVjp>() {
                    *c.rules.borrow_mut() = Some((fwd, bwd));
                }
                Ok(Obj::None)
            })),
            "fun" | "__wrapped__" => Some(self.fun.clone()),
            "__name__" => Some(Obj::str(func_name(&self.fun))),
            "nondiff_argnums" => Some(Obj::tuple(
                self.nondiff.iter().map(|&k| Obj::Int(k as i64)).collect(),
            )),
            _ => None,
        })
    }

    fn call(&self, interp: &mut Interp, _: &Obj, args: Args) -> Option<Result<Obj>> {
        if self.rules.borrow().is_none() {
            return Some(Err(err!(
                AttributeError,
                "No VJP defined for custom_vjp function {} using defvjp.",
                func_name(&self.fun)
            )));
        }
        Some(match differentiating() {
            None => interp.call(&self.fun, args),
            Some(mode) => self.call_rules(interp, mode, args),
        })
    }

    fn callable(&self) -> bool {
        true
    }
}

/// `jax.custom_jvp(fun, nondiff_argnums=())`.
pub fn custom_jvp(_: &mut Interp, a: Args) -> Result<Obj> {
    let fun = a.req(Some(0), "fun", "custom_jvp")?;
    Ok(Obj::lib(CustomJvp {
        fun,
        nondiff: nondiff_argnums(&a)?,
        rule: RefCell::new(None),
    }))
}

/// `jax.custom_vjp(fun, nondiff_argnums=())`.
pub fn custom_vjp(_: &mut Interp, a: Args) -> Result<Obj> {
    let fun = a.req(Some(0), "fun", "custom_vjp")?;
    Ok(Obj::lib(CustomVjp {
        fun,
        nondiff: nondiff_argnums(&a)?,
        rules: RefCell::new(None),
    }))
}

/// The `fwd` and `bwd` rules given to a `defvjp` (`what` names it in the
/// refusal of symbolic zeros, which shardlab does not model).
pub fn defvjp_rules(a: &Args, what: &str) -> Result<(Obj, Obj)> {
    let fwd = a.req(Some(0), "fwd", "defvjp")?;
    let bwd = a.req(Some(1), "bwd", "defvjp")?;
    if let Some(z) = a.opt(Some(2), "symbolic_zeros") {
        if crate::python::ops::truthy(&z, "symbolic_zeros")? {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: {what} with symbolic_zeros=True"
            );
        }
    }
    Ok((fwd, bwd))
}
