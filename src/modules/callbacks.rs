//! Host callbacks: `jax.pure_callback`, `jax.experimental.io_callback` and
//! `jax.debug.callback`, which run a Python function on the host in the
//! middle of a JAX computation.
//!
//! At top level a pure or IO callback is called at once. Inside a staged
//! function (jit, vmap, scan, cond, a loop body) it becomes a
//! `pure_callback` / `io_callback` equation that calls the function every
//! time the program runs, with that run's values: the front end lends its
//! interpreter to the evaluator for the run ([`lend`]), and the equation
//! borrows it back to call the function. Differentiating a pure or IO
//! callback is refused with JAX's own ValueError (only `jax.custom_jvp`
//! makes one differentiable), while a debug callback sees the primal
//! values. A debug callback returns nothing the program uses, so a staged
//! one is an equation whose runs hand their values to the front end, which
//! calls the function once the program has run, as it shows
//! `jax.debug.print` lines.

use crate::bail;
use crate::error::Result;
use crate::ir::Aval;
use crate::python::array::to_value;
use crate::python::interp::Interp;
use crate::python::pytree::{flatten, unflatten};
use crate::python::value::{Args, Obj};
use crate::trace::Value;

use super::shape_dtype::aval_of;
use crate::array::Array;
use crate::primitives::callback::{CallbackKind, HostCallbackParams};
use crate::primitives::Prim;
use std::cell::RefCell;
use std::sync::Arc;

/// The `vmap_method` values JAX 0.10.2 accepts (None is accepted too).
const VMAP_METHODS: [&str; 5] = [
    "sequential",
    "sequential_unrolled",
    "expand_dims",
    "broadcast_all",
    "legacy_vectorized",
];

/// Which callback API was called: its name, and the message JAX gives
/// when it is differentiated (None: the callback sees primal values).
#[derive(Clone, Copy)]
enum Kind {
    Pure,
    Io,
    Debug,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Pure => "jax.pure_callback",
            Kind::Io => "jax.experimental.io_callback",
            Kind::Debug => "jax.debug.callback",
        }
    }

    fn jvp_refusal(self) -> Option<&'static str> {
        match self {
            Kind::Pure => Some(
                "Pure callbacks do not support JVP. Please use `jax.custom_jvp` to use callbacks while taking gradients.",
            ),
            Kind::Io => Some("IO callbacks do not support JVP."),
            Kind::Debug => None,
        }
    }
}

/// The operands' values, or the refusal for where the callback was called.
fn operand_values(kind: Kind, leaves: &[Obj]) -> Result<Vec<Obj>> {
    let mut out = Vec::with_capacity(leaves.len());
    for leaf in leaves {
        // A debug callback passes along what is not an array (a label).
        let is_array = matches!(
            leaf,
            Obj::Array(_) | Obj::Int(_) | Obj::Float(_) | Obj::Bool(_)
        );
        if matches!(kind, Kind::Debug) && !is_array {
            out.push(leaf.clone());
            continue;
        }
        let v = to_value(leaf)?;
        let a = match &v {
            Value::Concrete(a) => a.clone(),
            // A known value under a differentiation would carry a tangent;
            // inside a custom rule (which runs below its differentiation)
            // it is a primal, as in JAX.
            Value::Traced(t) => match (&t.known, kind.jvp_refusal()) {
                (Some(_), Some(_))
                    if crate::transforms::differentiating().is_some()
                        && crate::transforms::in_custom_rule() =>
                {
                    bail!(
                        NotImplementedError,
                        "not supported by shardlab yet: {} in a custom derivative rule under more than one differentiation",
                        kind.name()
                    )
                }
                (Some(_), Some(msg)) if crate::transforms::differentiating().is_some() => {
                    bail!(ValueError, "{msg}")
                }
                (Some(a), Some(_)) => a.clone(),
                (Some(a), None) => a.clone(),
                (None, _) => bail!(
                    NotImplementedError,
                    "not supported by shardlab yet: {} inside a traced function (jit, vmap, scan, a map body)",
                    kind.name()
                ),
            },
        };
        out.push(Obj::Array(Value::Concrete(a)));
    }
    Ok(out)
}

/// Calls `callback` with the arrays of `args` (a tuple) and `kw`, as NumPy
/// arrays for pure and IO callbacks and as JAX arrays for debug ones.
fn call_host(
    interp: &mut Interp,
    kind: Kind,
    callback: &Obj,
    args: &[Obj],
    kw: &[(String, Obj)],
) -> Result<Obj> {
    let tree = Obj::tuple(vec![
        Obj::tuple(args.to_vec()),
        Obj::tuple(kw.iter().map(|(_, v)| v.clone()).collect()),
    ]);
    let (leaves, def) = flatten(interp, &tree)?;
    // JAX 0.10.2 hands every callback JAX arrays (put on the CPU device).
    let values = operand_values(kind, &leaves)?;
    let rebuilt = unflatten(interp, &def, &values)?;
    let (pos, kwv) = match &rebuilt {
        Obj::Tuple(t) if t.len() == 2 => (t[0].clone(), t[1].clone()),
        _ => bail!(RuntimeError, "{}: the arguments were lost", kind.name()),
    };
    let pos = crate::python::ops::iterate(&pos)?;
    let kwv = crate::python::ops::iterate(&kwv)?;
    let kw = kw.iter().map(|(k, _)| k.clone()).zip(kwv).collect();
    let out = interp.call(callback, Args::with(pos, kw));
    match kind {
        Kind::Debug => out,
        _ => out.map_err(|e| failed_in_callback(&e)),
    }
}

/// The callback's result checked against `result_shape_dtypes` (a pytree
/// of structs or arrays) and converted to JAX arrays, with the error JAX's
/// runtime raises for a mismatch.
fn checked_result(interp: &mut Interp, result: &Obj, expected: &Obj) -> Result<Obj> {
    let (want, def) = flatten(interp, expected)?;
    let got = crate::python::pytree::flatten_up_to(interp, &def, result)?;
    let mut outs = Vec::with_capacity(want.len());
    for (i, (w, g)) in want.iter().zip(&got).enumerate() {
        let w: Aval = aval_of(w)?;
        let g = to_value(g)?;
        let (gs, ws) = (g.shape(), &w.shape);
        if &gs != ws {
            return Err(failed_in_callback(&crate::err!(
                RuntimeError,
                "Incorrect output shape for return value #{i}: Expected: {}, Actual: {}",
                crate::array::shape_tuple(ws),
                crate::array::shape_tuple(&gs)
            )));
        }
        // shardlab's NumPy computes in JAX's 32-bit types, as JAX accepts
        // a callback's 64-bit results for them with x64 off.
        if g.dtype() != w.dtype {
            return Err(failed_in_callback(&crate::err!(
                RuntimeError,
                "Incorrect output dtype for return value #{i}: Expected: {}, Actual: {}",
                w.dtype.name(),
                g.dtype().name()
            )));
        }
        outs.push(Obj::Array(crate::ops::convert(&g, w.dtype)?));
    }
    unflatten(interp, &def, &outs)
}

/// JAX's runtime error for a callback that failed: the exception, after a
/// traceback whose frames (inside JAX's own files) shardlab does not list.
/// What shardlab cannot do, and a stopped run, pass through as they are.
fn failed_in_callback(e: &crate::error::Error) -> crate::error::Error {
    use crate::error::ErrorKind;
    let passes = matches!(
        e.kind,
        ErrorKind::Cancelled
            | ErrorKind::TimeoutError
            | ErrorKind::MemoryError
            | ErrorKind::RecursionError
            | ErrorKind::JaxRuntimeError
    ) || e.message.starts_with("not supported by shardlab yet");
    if passes {
        return e.clone();
    }
    crate::err!(
        JaxRuntimeError,
        "INTERNAL: CpuCallback error calling callback: Traceback (most recent call last):\n{}: {}",
        e.kind.python_name(),
        e.message
    )
}

/// The keyword arguments that go to the callback (not the API's own).
fn callback_kw(a: &Args, own: &[&str]) -> Vec<(String, Obj)> {
    a.read_all();
    a.kw.iter()
        .filter(|(k, _)| !own.contains(&k.as_str()))
        .cloned()
        .collect()
}

/// `sharding=` other than None is not modelled.
fn refuse_sharding(a: &Args, kind: Kind) -> Result<()> {
    match a.get(None, "sharding") {
        None | Some(Obj::None) => Ok(()),
        Some(_) => bail!(
            NotImplementedError,
            "not supported by shardlab yet: {}(sharding=...)",
            kind.name()
        ),
    }
}

/// `jax.pure_callback(callback, result_shape_dtypes, *args, sharding=None,
/// vmap_method=None, **kwargs)`.
pub fn pure_callback(interp: &mut Interp, a: Args) -> Result<Obj> {
    let callback = a.req(Some(0), "callback", "pure_callback")?;
    let expected = a.req(Some(1), "result_shape_dtypes", "pure_callback")?;
    if let Some(m) = a.get(None, "vmap_method") {
        let text = crate::python::format::str_of(&m);
        if !matches!(m, Obj::None) && !VMAP_METHODS.contains(&text.as_str()) {
            bail!(
                ValueError,
                "vmap_method must be on of the allowed methods ['sequential', 'sequential_unrolled', 'expand_dims', 'broadcast_all', 'legacy_vectorized', None], but got: {text}"
            );
        }
    }
    refuse_sharding(&a, Kind::Pure)?;
    let kw = callback_kw(
        &a,
        &["callback", "result_shape_dtypes", "sharding", "vmap_method"],
    );
    let args = a.pos.get(2..).unwrap_or_default().to_vec();
    let method = match a.get(None, "vmap_method") {
        None | Some(Obj::None) => None,
        Some(m) => Some(crate::python::format::str_of(&m)),
    };
    let staged = Staged {
        kind: CallbackKind::Pure,
        vmap_method: method,
    };
    if let Some(out) = stage(interp, &staged, &callback, &expected, &args, &kw)? {
        return Ok(out);
    }
    let result = call_host(interp, Kind::Pure, &callback, &args, &kw)?;
    checked_result(interp, &result, &expected)
}

/// `io_callback(callback, result_shape_dtypes, *args, sharding=None,
/// ordered=False, **kwargs)`.
pub fn io_callback(interp: &mut Interp, a: Args) -> Result<Obj> {
    let callback = a.req(Some(0), "callback", "io_callback")?;
    let expected = a.req(Some(1), "result_shape_dtypes", "io_callback")?;
    refuse_sharding(&a, Kind::Io)?;
    let kw = callback_kw(
        &a,
        &["callback", "result_shape_dtypes", "sharding", "ordered"],
    );
    let args = a.pos.get(2..).unwrap_or_default().to_vec();
    let ordered = match a.get(None, "ordered") {
        Some(o) => crate::python::ops::truthy(&o, "ordered")?,
        None => false,
    };
    let staged = Staged {
        kind: CallbackKind::Io { ordered },
        vmap_method: None,
    };
    if let Some(out) = stage(interp, &staged, &callback, &expected, &args, &kw)? {
        return Ok(out);
    }
    let result = call_host(interp, Kind::Io, &callback, &args, &kw)?;
    checked_result(interp, &result, &expected)
}

/// `jax.debug.callback(callback, *args, ordered=False, partitioned=False,
/// **kwargs)`: returns None.
pub fn debug_callback(interp: &mut Interp, a: Args) -> Result<Obj> {
    let callback = a.req(Some(0), "callback", "jax.debug.callback")?;
    let kw = callback_kw(&a, &["callback", "ordered", "partitioned"]);
    let args = a.pos.get(1..).unwrap_or_default().to_vec();
    if crate::trace::staging() {
        let ordered = match a.get(None, "ordered") {
            Some(o) => crate::python::ops::truthy(&o, "ordered")?,
            None => false,
        };
        super::debug_print::stage_callback(interp, callback, &args, &kw, ordered)?;
        return Ok(Obj::None);
    }
    call_host(interp, Kind::Debug, &callback, &args, &kw)?;
    Ok(Obj::None)
}

/// The Python functions of the run's staged pure and IO callbacks, with
/// the structure of their arguments and results, by the number their
/// equations hold (run state: they go with the run).
#[derive(Default)]
struct Registered(Vec<Registration>);

/// One staged callback.
struct Registration {
    callback: Obj,
    /// `((args...), {kw...})` with a leaf per operand.
    in_def: crate::python::pytree::TreeDef,
    /// The keyword names, in the order of `in_def`'s dict.
    expected: Obj,
}

/// What a staged callback is, besides its function and operands.
struct Staged {
    kind: CallbackKind,
    vmap_method: Option<String>,
}

/// Inside a staged trace, or on operands known only when the program runs,
/// records a callback equation and returns its results; else None (the
/// callback is called at once).
fn stage(
    interp: &mut Interp,
    staged: &Staged,
    callback: &Obj,
    expected: &Obj,
    args: &[Obj],
    kw: &[(String, Obj)],
) -> Result<Option<Obj>> {
    let tree = Obj::tuple(vec![
        Obj::tuple(args.to_vec()),
        Obj::Dict(std::rc::Rc::new(RefCell::new(
            kw.iter().map(|(k, v)| (Obj::str(k), v.clone())).collect(),
        ))),
    ]);
    let (leaves, in_def) = flatten(interp, &tree)?;
    let values: Vec<Value> = leaves.iter().map(to_value).collect::<Result<_>>()?;
    let unknown = values
        .iter()
        .any(|v| matches!(v, Value::Traced(t) if t.known.is_none()));
    if !crate::trace::staging() && !unknown {
        return Ok(None);
    }
    let (want, out_def) = flatten(interp, expected)?;
    let result_avals: Vec<Aval> = want.iter().map(aval_of).collect::<Result<_>>()?;
    let registered = &mut interp.state::<Registered>().0;
    registered.push(Registration {
        callback: callback.clone(),
        in_def: in_def.clone(),
        expected: expected.clone(),
    });
    let params = HostCallbackParams {
        kind: staged.kind,
        id: registered.len() as u64 - 1,
        callback_repr: crate::python::format::repr_of(callback),
        in_tree: in_def.repr(),
        result_avals,
        vmap_method: staged.vmap_method.clone(),
    };
    crate::primitives::callback::set_host(run_registered);
    let outs = crate::trace::bind(Prim::HostCallback(Arc::new(params)), &values)?;
    let objs: Vec<Obj> = outs.into_iter().map(Obj::Array).collect();
    Ok(Some(unflatten(interp, &out_def, &objs)?))
}

/// Runs a staged callback for the evaluator, on the interpreter lent to it.
fn run_registered(params: &HostCallbackParams, args: &[Array]) -> Result<Vec<Array>> {
    with_lent(|interp| {
        if let Some(outs) = interp.state::<Replay>().replayed(params.id, args) {
            return Ok(outs);
        }
        let outs = call_registered(interp, params, args)?;
        interp.state::<Replay>().record(params.id, args, &outs);
        Ok(outs)
    })
}

/// One call of a callback: its operands and results.
type Call = (Vec<Array>, Vec<Array>);

/// The calls a grad's forward pass made, which its backward pass, running
/// the forward program again for the residuals, takes instead of calling
/// the functions a second time (JAX runs the forward pass once).
#[derive(Default)]
struct Replay {
    /// Nested grads recording.
    depth: usize,
    /// While the backward pass runs: how many of each callback's calls it
    /// has taken.
    taken: Option<std::collections::HashMap<u64, usize>>,
    /// The calls recorded, by callback: the operands and results.
    calls: std::collections::HashMap<u64, Vec<Call>>,
}

impl Replay {
    /// Keeps a call made while a grad records.
    fn record(&mut self, id: u64, args: &[Array], outs: &[Array]) {
        if self.depth > 0 && self.taken.is_none() {
            let calls = self.calls.entry(id).or_default();
            calls.push((args.to_vec(), outs.to_vec()));
        }
    }

    /// In a backward pass, the next recorded results of callback `id` if
    /// they were computed from the same operands.
    fn replayed(&mut self, id: u64, args: &[Array]) -> Option<Vec<Array>> {
        let taken = self.taken.as_mut()?;
        let calls = self.calls.get(&id)?;
        let same = |a: &[Array]| {
            a.len() == args.len()
                && a.iter().zip(args).all(|(x, y)| {
                    x.is_same(y)
                        || (x.shape() == y.shape()
                            && x.dtype() == y.dtype()
                            && x.to_f64_vec() == y.to_f64_vec())
                })
        };
        // The backward pass runs parts of the forward program more than
        // once (a jit's body for its own transpose): the calls are taken in
        // order, and again from the start.
        let k = taken.entry(id).or_insert(0);
        let n = calls.len();
        let found = (0..n).map(|j| (*k + j) % n).find(|&j| same(&calls[j].0))?;
        *k = found + 1;
        Some(calls[found].1.clone())
    }
}

/// Runs a grad (`f`), recording its forward pass's host callbacks.
pub fn recording<T>(interp: &mut Interp, f: impl FnOnce(&mut Interp) -> T) -> T {
    interp.state::<Replay>().depth += 1;
    let out = f(interp);
    let replay = interp.state::<Replay>();
    replay.depth -= 1;
    if replay.depth == 0 {
        replay.calls.clear();
        replay.taken = None;
    }
    out
}

/// Runs a grad's backward pass (`f`) on the lent interpreter, replaying
/// the forward pass's host callbacks.
pub fn replaying<T>(interp: &mut Interp, f: impl FnOnce() -> T) -> T {
    let outer = interp.state::<Replay>().taken.replace(Default::default());
    let out = lend(interp, f);
    interp.state::<Replay>().taken = outer;
    out
}

/// Calls the function of a staged callback with a run's operands.
fn call_registered(
    interp: &mut Interp,
    params: &HostCallbackParams,
    args: &[Array],
) -> Result<Vec<Array>> {
    {
        super::debug_print::show_eager_prints(interp)?;
        let found = interp
            .state::<Registered>()
            .0
            .get(params.id as usize)
            .map(|r| (r.callback.clone(), r.in_def.clone(), r.expected.clone()));
        let Some((callback, in_def, expected)) = found else {
            bail!(RuntimeError, "{}: the callback is gone", params.name());
        };
        let leaves: Vec<Obj> = args
            .iter()
            .map(|a| Obj::Array(Value::Concrete(a.clone())))
            .collect();
        let rebuilt = unflatten(interp, &in_def, &leaves)?;
        let parts = crate::python::ops::iterate(&rebuilt)?;
        let (Some(pos), Some(kwd)) = (parts.first(), parts.get(1)) else {
            bail!(RuntimeError, "{}: the arguments were lost", params.name());
        };
        let pos = crate::python::ops::iterate(pos)?;
        let kw = Args::keywords_from(kwd);
        let result = interp
            .call(&callback, Args::with(pos, kw))
            .map_err(|e| failed_in_callback(&e))?;
        let expected = batched_expected(interp, &expected, params)?;
        let checked = checked_result(interp, &result, &expected)?;
        let (leaves, _) = flatten(interp, &checked)?;
        leaves
            .iter()
            .map(|l| to_value(l).and_then(|v| v.concrete(params.name()).cloned()))
            .collect()
    }
}

/// The declared results, with the leading axis a vectorized vmap adds
/// (the parameters' avals are the truth; the declared tree gives their
/// structure).
fn batched_expected(
    interp: &mut Interp,
    expected: &Obj,
    params: &HostCallbackParams,
) -> Result<Obj> {
    let leaves: Vec<Obj> = params
        .result_avals
        .iter()
        .map(|a| Obj::Array(Value::Concrete(Array::zeros(&a.shape, a.dtype))))
        .collect();
    let (_, def) = flatten(interp, expected)?;
    unflatten(interp, &def, &leaves)
}

thread_local! {
    /// The interpreter lent to the evaluator while a program that may call
    /// back into Python runs.
    static LENT: RefCell<Option<Interp>> = const { RefCell::new(None) };
}

/// Runs `f` (which evaluates a program) with `interp` lent to the program's
/// callbacks: it moves into [`LENT`] for the duration, leaving a scratch
/// interpreter in its place, and comes back when `f` returns.
pub fn lend<T>(interp: &mut Interp, f: impl FnOnce() -> T) -> T {
    let scratch = interp.scratch();
    let owned = std::mem::replace(interp, scratch);
    let outer = LENT.with(|l| l.borrow_mut().replace(owned));
    let out = f();
    let back = LENT.with(|l| std::mem::replace(&mut *l.borrow_mut(), outer));
    if let Some(back) = back {
        *interp = back;
    }
    out
}

/// Calls `f` with the lent interpreter, or refuses where none is lent.
fn with_lent<T>(f: impl FnOnce(&mut Interp) -> Result<T>) -> Result<T> {
    let Some(mut interp) = LENT.with(|l| l.borrow_mut().take()) else {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: a host callback in a program run from outside the Python program"
        );
    };
    let out = f(&mut interp);
    LENT.with(|l| *l.borrow_mut() = Some(interp));
    out
}

/// Calls `f` with the lent interpreter; None where none is lent.
pub fn try_with_lent<T>(f: impl FnOnce(&mut Interp) -> Result<T>) -> Result<Option<T>> {
    let Some(mut interp) = LENT.with(|l| l.borrow_mut().take()) else {
        return Ok(None);
    };
    let out = f(&mut interp);
    LENT.with(|l| *l.borrow_mut() = Some(interp));
    out.map(Some)
}

/// Whether running `prim` may call a staged pure or IO callback.
pub fn calls_back(prim: &Prim) -> bool {
    matches!(prim, Prim::HostCallback(_) | Prim::CustomVjp(_))
        || prim
            .sub_jaxprs()
            .into_iter()
            .any(|j| j.eqns.iter().any(|e| calls_back(&e.prim)))
}

/// Binds `prim`, lending `interp` to its callbacks when it may call back
/// into Python (a top-level loop, branch or vmap of a staged callback).
pub fn bind_lending(interp: &mut Interp, prim: Prim, ins: &[Value]) -> Result<Vec<Value>> {
    if crate::trace::staging() || !calls_back(&prim) {
        return crate::trace::bind(prim, ins);
    }
    lend(interp, || crate::trace::bind(prim, ins))
}
