//! Differentiation: forward mode (jvp) and reverse mode (vjp, grad) as
//! interpreters of a jaxpr that apply each primitive's rule.
//!
//! Both drivers bind as they go, so under a trace they emit the derivative
//! program and with no trace they compute it. A transformed function is
//! traced once into a jaxpr, then interpreted; closed-over values of outer
//! traces become extra inputs that are not differentiated here (an outer
//! transformation differentiates through them, since the derivative program is
//! inlined into its trace).

use std::cell::RefCell;
use std::collections::HashMap;

use crate::array::{Array, DType};
use crate::bail;
use crate::error::Result;
use crate::ir::{Atom, Aval, Jaxpr, Var};
use crate::ops;
use crate::primitives::{CollectiveKind, Prim};
use crate::trace::{at_source, bind, bind1, Value};

pub mod checkify;
mod checkify_bounds;
pub mod residuals;
pub mod split;

fn read(env: &HashMap<Var, Value>, a: &Atom) -> Value {
    match a {
        Atom::Var(v) => env[v].clone(),
        Atom::Lit(x) => Value::Concrete(x.clone()),
    }
}

/// Makes a cotangent or tangent vary over the same axes as its primal, as JAX
/// types them: a constant seed (say 1.0) for a varying output is pvary'd.
pub fn match_vma(v: Value, aval: &Aval) -> Result<Value> {
    let missing: Vec<String> = aval.vma.difference(&v.aval().vma).cloned().collect();
    if missing.is_empty() || !crate::trace::tracing() {
        return Ok(v);
    }
    bind1(
        Prim::Collective(CollectiveKind::Pvary { axes: missing }),
        &[v],
    )
}

/// Runs `jaxpr` on `primals` and pushes `tangents` (None = zero) forward.
/// Returns the outputs and their tangents (None where zero).
pub fn jvp_jaxpr_eval(
    jaxpr: &Jaxpr,
    primals: &[Value],
    tangents: &[Option<Value>],
) -> Result<(Vec<Value>, Vec<Option<Value>>)> {
    let mut env = HashMap::new();
    let mut tan: HashMap<Var, Value> = HashMap::new();
    for (i, v) in jaxpr.invars.iter().enumerate() {
        env.insert(*v, primals[i].clone());
        if let Some(Some(t)) = tangents.get(i) {
            tan.insert(*v, t.clone());
        }
    }
    for eqn in &jaxpr.eqns {
        let ins: Vec<Value> = eqn.inputs.iter().map(|a| read(&env, a)).collect();
        let ts: Vec<Option<Value>> = eqn
            .inputs
            .iter()
            .map(|a| match a {
                Atom::Var(v) => tan.get(v).cloned(),
                Atom::Lit(_) => None,
            })
            .collect();
        let outs = at_source(eqn, || bind(eqn.prim.clone(), &ins))?;
        if ts.iter().any(|t| t.is_some()) {
            let touts = at_source(eqn, || eqn.prim.jvp(&ins, &ts, &outs))?;
            for ((v, t), o) in eqn.outputs.iter().zip(touts).zip(&outs) {
                if let Some(t) = t {
                    tan.insert(*v, match_vma(t, &o.aval())?);
                }
            }
        }
        for (v, o) in eqn.outputs.iter().zip(outs) {
            env.insert(*v, o);
        }
    }
    let outs = jaxpr.outvars.iter().map(|a| read(&env, a)).collect();
    let touts = jaxpr
        .outvars
        .iter()
        .map(|a| match a {
            Atom::Var(v) => tan.get(v).cloned(),
            Atom::Lit(_) => None,
        })
        .collect();
    Ok((outs, touts))
}

/// Each equation's operands and results from a forward run, in order.
pub(crate) type Tape = Vec<(Vec<Value>, Vec<Value>)>;

/// Runs `jaxpr` on `primals`, then pulls the output cotangents `cts` (None =
/// zero) back. Returns the outputs and the inputs' cotangents (None where
/// zero or not differentiable).
pub fn vjp_jaxpr_eval(
    jaxpr: &Jaxpr,
    primals: &[Value],
    cts: &[Option<Value>],
) -> Result<(Vec<Value>, Vec<Option<Value>>)> {
    let (outs, tape) = forward_tape(jaxpr, primals)?;
    Ok((outs, pull_back(jaxpr, tape, cts, &mut |_| {})?))
}

/// The forward half of [`vjp_jaxpr_eval`]: the outputs and the tape the
/// backward half reads.
pub(crate) fn forward_tape(jaxpr: &Jaxpr, primals: &[Value]) -> Result<(Vec<Value>, Tape)> {
    let mut env = HashMap::new();
    for (v, p) in jaxpr.invars.iter().zip(primals) {
        env.insert(*v, p.clone());
    }
    let mut tape: Tape = Vec::with_capacity(jaxpr.eqns.len());
    for eqn in &jaxpr.eqns {
        let ins: Vec<Value> = eqn.inputs.iter().map(|a| read(&env, a)).collect();
        let outs = at_source(eqn, || bind(eqn.prim.clone(), &ins))?;
        for (v, o) in eqn.outputs.iter().zip(&outs) {
            env.insert(*v, o.clone());
        }
        tape.push((ins, outs));
    }
    let outs: Vec<Value> = jaxpr.outvars.iter().map(|a| read(&env, a)).collect();
    Ok((outs, tape))
}

/// The backward half of [`vjp_jaxpr_eval`]: each equation's rule, last
/// first, on the values `tape` recorded; `before_rule(k)` is told before
/// the rule of the k-th equation runs.
pub(crate) fn pull_back(
    jaxpr: &Jaxpr,
    tape: Tape,
    cts: &[Option<Value>],
    before_rule: &mut dyn FnMut(usize),
) -> Result<Vec<Option<Value>>> {
    let mut ct_env: HashMap<Var, Value> = HashMap::new();
    let accumulate = |ct_env: &mut HashMap<Var, Value>, v: Var, c: Value| -> Result<()> {
        let c = match_vma(c, jaxpr.aval(v))?;
        let total = match ct_env.remove(&v) {
            Some(prev) => ops::add(&prev, &c)?,
            None => c,
        };
        ct_env.insert(v, total);
        Ok(())
    };
    for (a, c) in jaxpr.outvars.iter().zip(cts) {
        if let (Atom::Var(v), Some(c)) = (a, c) {
            if jaxpr.aval(*v).dtype.is_inexact() {
                accumulate(&mut ct_env, *v, c.clone())?;
            }
        }
    }
    for (k, (eqn, (ins, outs))) in jaxpr.eqns.iter().zip(tape).enumerate().rev() {
        let out_cts: Vec<Option<Value>> = eqn.outputs.iter().map(|v| ct_env.remove(v)).collect();
        if out_cts.iter().all(|c| c.is_none()) {
            continue;
        }
        before_rule(k);
        let in_cts = at_source(eqn, || eqn.prim.vjp(&ins, &outs, &out_cts))?;
        for (a, c) in eqn.inputs.iter().zip(in_cts) {
            if let (Atom::Var(v), Some(c)) = (a, c) {
                if jaxpr.aval(*v).dtype.is_inexact() {
                    accumulate(&mut ct_env, *v, c)?;
                }
            }
        }
    }
    Ok(jaxpr.invars.iter().map(|v| ct_env.remove(v)).collect())
}

/// Which kind of differentiation traces a function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Forward mode (`jvp`, `linearize`, `jacfwd`).
    Forward,
    /// Reverse mode (`vjp`, `grad`, `jacrev`).
    Reverse,
}

thread_local! {
    /// The differentiations whose functions are being traced, outermost
    /// first. A custom_jvp or custom_vjp function called while this is empty
    /// runs its primal function as JAX does; otherwise its rule is traced,
    /// with the innermost level removed (the rule's own calls are not
    /// differentiated by that level).
    /// Each with the level of the trace of its function.
    static DIFFERENTIATING: RefCell<Vec<(Mode, usize)>> = const { RefCell::new(Vec::new()) };
}

/// The innermost differentiation tracing a function, if any.
pub fn differentiating() -> Option<Mode> {
    DIFFERENTIATING.with(|d| d.borrow().last().map(|(m, _)| *m))
}

/// The level of the trace of the function that the innermost
/// differentiation traces: its tracers, and those of traces inside it, may
/// depend on what is differentiated.
pub fn differentiated_level() -> Option<usize> {
    DIFFERENTIATING.with(|d| d.borrow().last().map(|(_, l)| *l))
}

/// How many differentiations are tracing functions.
pub fn differentiation_levels() -> usize {
    DIFFERENTIATING.with(|d| d.borrow().len())
}

thread_local! {
    /// How many custom rules are running (each below the differentiation
    /// that called it).
    static IN_RULES: RefCell<usize> = const { RefCell::new(0) };
}

/// True while a custom_jvp or custom_vjp rule runs.
pub fn in_custom_rule() -> bool {
    IN_RULES.with(|r| *r.borrow() > 0)
}

/// Runs `f` with the innermost differentiation level set aside, as a custom
/// rule is run by JAX: below the level that calls it.
pub fn below_innermost<T>(f: impl FnOnce() -> T) -> T {
    let popped = DIFFERENTIATING.with(|d| d.borrow_mut().pop());
    IN_RULES.with(|r| *r.borrow_mut() += 1);
    struct Restore(Option<(Mode, usize)>);
    impl Drop for Restore {
        fn drop(&mut self) {
            IN_RULES.with(|r| *r.borrow_mut() -= 1);
            if let Some(m) = self.0 {
                DIFFERENTIATING.with(|d| d.borrow_mut().push(m));
            }
        }
    }
    let _restore = Restore(popped);
    f()
}

/// Traces `f` on the avals of `args` (no new axes) for a differentiation
/// of kind `mode`.
fn trace_fn<F>(f: F, args: &[Value], mode: Mode) -> Result<crate::trace::Traced>
where
    F: FnOnce(&[Value]) -> Result<Vec<Value>>,
{
    DIFFERENTIATING.with(|d| d.borrow_mut().push((mode, crate::trace::depth())));
    struct Pop;
    impl Drop for Pop {
        fn drop(&mut self) {
            DIFFERENTIATING.with(|d| d.borrow_mut().pop());
        }
    }
    let _pop = Pop;
    crate::trace::trace_values(args, |v: &[Value]| {
        // The function runs once, here: it may use outer refs, but not
        // write a value carrying a derivative to one.
        use crate::trace::refs::{set_policy, Direct, RefPolicy};
        set_policy(RefPolicy::Direct(Direct::Differentiate));
        f(v)
    })
}

fn with_captured(args: &[Value], traced: &crate::trace::Traced) -> Vec<Value> {
    let mut all = args.to_vec();
    all.extend(traced.captured.iter().cloned());
    all
}

/// `jax.jvp(f, primals, tangents)`: outputs and output tangents (zeros where
/// the output does not depend on the inputs).
pub fn jvp<F>(f: F, primals: &[Value], tangents: &[Value]) -> Result<(Vec<Value>, Vec<Value>)>
where
    F: FnOnce(&[Value]) -> Result<Vec<Value>>,
{
    if primals.len() != tangents.len() {
        bail!(
            TypeError,
            "jvp: {} primals but {} tangents",
            primals.len(),
            tangents.len()
        );
    }
    for (i, (p, t)) in primals.iter().zip(tangents).enumerate() {
        if p.shape() != t.shape() {
            bail!(
                ValueError,
                "jvp called with different primal and tangent shapes: primal {i} has shape {:?} \
                 and tangent {i} has shape {:?}",
                p.shape(),
                t.shape()
            );
        }
    }
    let traced = trace_fn(f, primals, Mode::Forward)?;
    let mut ts: Vec<Option<Value>> = tangents.iter().cloned().map(Some).collect();
    ts.extend(traced.captured.iter().map(|_| None));
    let (outs, touts) = jvp_jaxpr_eval(&traced.jaxpr, &with_captured(primals, &traced), &ts)?;
    let touts = touts
        .into_iter()
        .zip(&outs)
        .map(|(t, o)| t.unwrap_or_else(|| ops::zeros_like(o)))
        .collect();
    Ok((outs, touts))
}

/// A function's linearization at a point, from [`linearize`]: its program
/// and the point, whose tangent map is evaluated for each call.
pub struct Linearized {
    jaxpr: Jaxpr,
    primals: Vec<Value>,
    n_args: usize,
}

impl Linearized {
    /// The output tangents for the given input tangents.
    pub fn call(&self, tangents: &[Value]) -> Result<Vec<Value>> {
        if tangents.len() != self.n_args {
            bail!(
                TypeError,
                "linearized function takes {} tangents, got {}",
                self.n_args,
                tangents.len()
            );
        }
        for (t, p) in tangents.iter().zip(&self.primals) {
            if t.shape() != p.shape() {
                bail!(
                    ValueError,
                    "linearized function called on tangent values inconsistent with the \
                     original primal values: got tangent aval {} for primal aval {}",
                    t.aval(),
                    p.aval()
                );
            }
        }
        let mut ts: Vec<Option<Value>> = tangents.iter().cloned().map(Some).collect();
        ts.resize(self.primals.len(), None);
        let (outs, touts) = jvp_jaxpr_eval(&self.jaxpr, &self.primals, &ts)?;
        Ok(touts
            .into_iter()
            .zip(&outs)
            .map(|(t, o)| t.unwrap_or_else(|| ops::zeros_like(o)))
            .collect())
    }
}

/// `jax.linearize(f, *primals)`: the outputs and the tangent map at
/// `primals`. `f` is traced once; its Python code does not run again.
pub fn linearize<F>(f: F, primals: &[Value]) -> Result<(Vec<Value>, Linearized)>
where
    F: FnOnce(&[Value]) -> Result<Vec<Value>>,
{
    let traced = trace_fn(f, primals, Mode::Forward)?;
    let all = with_captured(primals, &traced);
    let outs = crate::trace::eval_jaxpr(&traced.jaxpr, &all)?;
    Ok((
        outs,
        Linearized {
            jaxpr: traced.jaxpr,
            primals: all,
            n_args: primals.len(),
        },
    ))
}

/// Checks the cotangents given to a vjp function against its outputs: as
/// many, and of the same shapes, as JAX requires.
pub(crate) fn check_cotangents(cts: &[Value], outs: &[Aval]) -> Result<()> {
    if cts.len() != outs.len() {
        bail!(
            TypeError,
            "vjp function takes {} cotangents, got {}",
            outs.len(),
            cts.len()
        );
    }
    for (i, (c, o)) in cts.iter().zip(outs).enumerate() {
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
    Ok(())
}

/// The pullback of a function at a point, from [`vjp`].
pub struct Pullback {
    jaxpr: Jaxpr,
    primals: Vec<Value>,
    n_args: usize,
}

impl Pullback {
    /// Cotangents of the arguments for the given output cotangents.
    pub fn call(&self, cts: &[Value]) -> Result<Vec<Value>> {
        check_cotangents(cts, &self.jaxpr.out_avals())?;
        let cts: Vec<Option<Value>> = cts.iter().cloned().map(Some).collect();
        let (_, in_cts) = vjp_jaxpr_eval(&self.jaxpr, &self.primals, &cts)?;
        Ok(in_cts
            .into_iter()
            .take(self.n_args)
            .zip(&self.primals)
            .map(|(c, p)| c.unwrap_or_else(|| ops::zeros_like(p)))
            .collect())
    }
}

/// `jax.vjp(f, *primals)`: the outputs and a pullback.
pub fn vjp<F>(f: F, primals: &[Value]) -> Result<(Vec<Value>, Pullback)>
where
    F: FnOnce(&[Value]) -> Result<Vec<Value>>,
{
    let traced = trace_fn(f, primals, Mode::Reverse)?;
    let all = with_captured(primals, &traced);
    let outs = crate::trace::eval_jaxpr(&traced.jaxpr, &all)?;
    Ok((
        outs,
        Pullback {
            jaxpr: traced.jaxpr,
            primals: all,
            n_args: primals.len(),
        },
    ))
}

/// `jax.value_and_grad(f, argnums)(*args)`: `f` returns the scalar loss
/// followed by any auxiliary outputs. Returns (loss and aux outputs, the
/// gradients of the loss with respect to `args[argnums]`).
pub fn value_and_grad<F>(
    f: F,
    args: &[Value],
    argnums: &[usize],
) -> Result<(Vec<Value>, Vec<Value>)>
where
    F: FnOnce(&[Value]) -> Result<Vec<Value>>,
{
    value_and_grad_with(f, args, argnums, false)
}

/// [`value_and_grad`] with JAX's `holomorphic` flag: complex inputs and a
/// complex loss, whose cotangent is `1+0j`.
pub fn value_and_grad_with<F>(
    f: F,
    args: &[Value],
    argnums: &[usize],
    holomorphic: bool,
) -> Result<(Vec<Value>, Vec<Value>)>
where
    F: FnOnce(&[Value]) -> Result<Vec<Value>>,
{
    value_and_grad_lending(f, args, argnums, holomorphic, &|_, eval| eval())
}

/// What evaluating a traced function and its pullback gives: the outputs
/// and the inputs' cotangents.
pub type Evaluated = Result<(Vec<Value>, Vec<Option<Value>>)>;

/// Runs the evaluation of a traced program (the second argument), given
/// the program: the front end lends it what the program's host callbacks
/// need.
pub type Lend<'a> = &'a dyn Fn(&Jaxpr, &mut dyn FnMut() -> Evaluated) -> Evaluated;

/// [`value_and_grad_with`], whose evaluation runs through `lend`.
pub fn value_and_grad_lending<F>(
    f: F,
    args: &[Value],
    argnums: &[usize],
    holomorphic: bool,
    lend: Lend<'_>,
) -> Result<(Vec<Value>, Vec<Value>)>
where
    F: FnOnce(&[Value]) -> Result<Vec<Value>>,
{
    check_grad_inputs(args, argnums, holomorphic)?;
    let first_map = crate::exec::run::maps_seen();
    let traced = trace_fn(f, args, Mode::Reverse)?;
    let mut differentiated = vec![false; traced.jaxpr.invars.len()];
    for &i in argnums {
        if let Some(d) = differentiated.get_mut(i) {
            *d = true;
        }
    }
    refuse_callback_jvp(&traced.jaxpr, &differentiated)?;
    let out_avals = traced.jaxpr.out_avals();
    let Some(loss) = out_avals.first() else {
        bail!(TypeError, "grad: the function returned no outputs");
    };
    if !loss.shape.is_empty() {
        bail!(
            TypeError,
            "Gradient only defined for scalar-output functions. Output had shape: {}",
            crate::ir::fmt_shape(&loss.shape)
        );
    }
    check_loss_dtype(loss.dtype, holomorphic)?;
    let mut cts: Vec<Option<Value>> = vec![None; out_avals.len()];
    // The seed has the loss's type, weak for a loss computed from Python
    // numbers only (and so is the gradient then, as in JAX).
    cts[0] = Some(Value::Concrete(
        Array::full(&[], 1.0, loss.dtype).with_weak(loss.weak),
    ));
    let all = with_captured(args, &traced);
    let (outs, in_cts) = lend(&traced.jaxpr, &mut || {
        vjp_jaxpr_eval(&traced.jaxpr, &all, &cts)
    })?;
    // A gradient has its argument's type: weak for a Python number. A
    // complex argument's gradient comes out of `real`/`imag`'s transposes,
    // which build it from a strong zero, so it is strong in JAX whatever
    // the argument.
    let grads: Vec<Value> = argnums
        .iter()
        .map(|&i| {
            match in_cts[i]
                .clone()
                .unwrap_or_else(|| ops::zeros_like(&args[i]))
            {
                Value::Concrete(g) if g.dtype() == DType::C64 && !holomorphic => {
                    Value::Concrete(g.with_weak(false))
                }
                Value::Concrete(g) => Value::Concrete(g.with_weak(args[i].aval().weak)),
                g => g,
            }
        })
        .collect();
    record_grad(&outs, &grads, first_map);
    Ok((outs, grads))
}

/// The differentiated arguments exist and have types grad takes.
fn check_grad_inputs(args: &[Value], argnums: &[usize], holomorphic: bool) -> Result<()> {
    for &i in argnums {
        let Some(a) = args.get(i) else {
            bail!(
                ValueError,
                "argnums {i} is out of range for a function of {} positional arguments",
                args.len()
            );
        };
        if holomorphic && a.dtype() != DType::C64 {
            bail!(
                TypeError,
                "grad with holomorphic=True requires inputs with complex dtype, but got {}.",
                a.dtype().name()
            );
        }
        if !a.dtype().is_inexact() {
            bail!(
                TypeError,
                "grad requires real- or complex-valued inputs (input dtype that is a sub-dtype of \
                 np.inexact), but got {}. If you want to use Boolean- or integer-valued inputs, \
                 use vjp or set allow_int to True.",
                a.dtype().name()
            );
        }
    }
    Ok(())
}

/// JAX differentiates as it traces, so a pure or IO callback on a value
/// being differentiated fails when it is reached, before the loss is
/// checked; `differentiated` marks the inputs of `jaxpr` that are. A
/// callback inside a custom_jvp or custom_vjp function is left to its
/// rule.
pub fn refuse_callback_jvp(jaxpr: &Jaxpr, differentiated: &[bool]) -> Result<()> {
    let mut depends: std::collections::HashSet<Var> = jaxpr
        .invars
        .iter()
        .zip(differentiated)
        .filter(|(_, &d)| d)
        .map(|(v, _)| *v)
        .collect();
    for eqn in &jaxpr.eqns {
        let ins: Vec<bool> = eqn
            .inputs
            .iter()
            .map(|a| matches!(a, Atom::Var(v) if depends.contains(v)))
            .collect();
        if !ins.iter().any(|&d| d) {
            continue;
        }
        match &eqn.prim {
            Prim::HostCallback(h) => return Err(h.jvp_error()),
            Prim::Jit(j) => refuse_callback_jvp(&j.body, &ins)?,
            Prim::CustomJvp(_) | Prim::CustomVjp(_) => {}
            p => {
                for body in p.sub_jaxprs() {
                    refuse_callback_jvp(body, &vec![true; body.invars.len()])?;
                }
            }
        }
        depends.extend(eqn.outputs.iter().copied());
    }
    Ok(())
}

/// The loss must be real, or complex with `holomorphic=True`, as JAX checks.
fn check_loss_dtype(dtype: DType, holomorphic: bool) -> Result<()> {
    if holomorphic && dtype != DType::C64 {
        bail!(
            TypeError,
            "grad with holomorphic=True requires outputs with complex dtype, but got {}.",
            dtype.name()
        );
    }
    if dtype == DType::C64 && !holomorphic {
        bail!(
            TypeError,
            "grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), \
             but got complex64. For holomorphic differentiation, pass holomorphic=True. For \
             differentiation of non-holomorphic functions involving complex outputs, use jax.vjp \
             directly."
        );
    }
    if !dtype.is_inexact() {
        bail!(
            TypeError,
            "grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), \
             but got {}",
            dtype.name()
        );
    }
    Ok(())
}

/// Tells the run's observer of an eagerly evaluated grad call, if it has
/// one (a grad under a trace has no values yet and is left out).
fn record_grad(outs: &[Value], grads: &[Value], first_map: usize) {
    let Some(observer) = crate::exec::run::observer() else {
        return;
    };
    let Some(Value::Concrete(loss)) = outs.first() else {
        return;
    };
    let arrays: Option<Vec<Array>> = grads
        .iter()
        .map(|g| match g {
            Value::Concrete(a) => Some(a.clone()),
            Value::Traced(_) => None,
        })
        .collect();
    let Some(arrays) = arrays else {
        return;
    };
    if loss.size() != 1 {
        return;
    }
    let maps = [first_map, observer.maps_seen()];
    observer.grad_ran(loss.get_f64(0), &arrays, maps);
}
