//! Evaluating jaxprs on devices.
//!
//! [`eval_lanes`] is the one evaluator: it runs a jaxpr for all lanes of a
//! [`Comm`] equation by equation. In lockstep mode a whole mesh is the lanes of
//! one thread; in parallel mode every device runs `eval_lanes` with one lane on
//! its own thread and exchanges through the fabric. vmap is a nested set of
//! lanes in either. Both modes run the same collective arithmetic in the same
//! order, so they agree bit for bit.

mod callback;
pub mod comm;
pub mod control;
mod fusion;
pub mod log;
pub mod run;

use std::collections::HashMap;
use std::sync::Arc;

use crate::array::Array;
use crate::bail;
use crate::collectives::DeviceCtx;
use crate::error::Result;
use crate::fabric::threads::{run_on_threads, ThreadFabric};
use crate::ir::{Atom, Eqn, Jaxpr, Var};
use crate::mesh::Mesh;
use crate::primitives::{DebugPrintParams, MapKind, MapParams, Prim, ShardMapParams};
use comm::{Comm, Lockstep, Nested, OnFabric, Printing};
use log::DeviceLog;
pub use run::{config, stop_check, stop_requested, take_eager_prints, Config, StopCheck};
use run::{Layout, MapRan, Placed};

/// How maps run their devices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// One OS thread per device, exchanging through a fabric.
    Parallel,
    /// Every device in the calling thread, equation by equation.
    Lockstep,
    /// Each map in parallel, unless it is so small that starting its devices
    /// would cost more than running it ([`runs_in_lockstep`]): then in
    /// lockstep. The results are the same bits either way.
    Auto,
}

/// Estimated cost of one equation beyond the elements it produces, in
/// nanoseconds on one thread (dispatch, allocation, bookkeeping).
const EQN_NS: f64 = 1000.0;
/// Estimated cost per element an equation produces.
const ELEMENT_NS: f64 = 1.0;
/// Estimated cost per multiply-add of a `dot_general`.
const MAC_NS: f64 = 0.05;
/// Under [`Mode::Auto`], maps whose body is estimated to cost less than this
/// per device run in lockstep. Starting a device thread and meeting it at the
/// end costs about 150 us natively (8 devices: 3.5 ms for a one-map program
/// in parallel against 2.3 ms in lockstep, on 2 cores), so below this the
/// threads cannot win.
const LOCKSTEP_BELOW_NS: f64 = 100_000.0;

/// The number of steps a `while` loop is guessed to take when estimating
/// its cost.
const WHILE_STEPS: f64 = 32.0;

/// A rough single-thread cost of evaluating `jaxpr` once, in nanoseconds:
/// only compared with [`LOCKSTEP_BELOW_NS`]. A nested shard_map counts as
/// too large to run in lockstep.
fn cost_ns(jaxpr: &Jaxpr) -> f64 {
    let produced = |eqn: &crate::ir::Eqn| -> f64 {
        eqn.outputs
            .iter()
            .map(|v| crate::array::numel(&jaxpr.aval(*v).shape) as f64)
            .sum()
    };
    jaxpr
        .eqns
        .iter()
        .map(|eqn| {
            EQN_NS
                + match &eqn.prim {
                    Prim::DotGeneral { contracting, .. } => {
                        let lhs = jaxpr.atom_aval(&eqn.inputs[0]);
                        let k: usize = contracting.0.iter().map(|&d| lhs.shape[d]).product();
                        produced(eqn) * k as f64 * MAC_NS
                    }
                    Prim::Map(m) => m.size as f64 * cost_ns(&m.body),
                    Prim::Jit(j) => cost_ns(&j.body) - EQN_NS,
                    Prim::Remat(r) => cost_ns(&r.body) - EQN_NS,
                    p @ (Prim::CustomJvp(_) | Prim::CustomVjp(_)) => {
                        crate::primitives::custom::evaluated(p)
                            .map_or(0.0, |(body, _, _)| cost_ns(body))
                    }
                    Prim::Cond(c) => c.branches.iter().map(cost_ns).fold(0.0, f64::max),
                    Prim::Scan(s) => s.length as f64 * cost_ns(&s.body),
                    // The trip count is unknown: guess a few dozen steps.
                    Prim::While(w) => WHILE_STEPS * (cost_ns(&w.cond) + cost_ns(&w.body)),
                    Prim::ShardMap(_) => f64::INFINITY,
                    _ => produced(eqn) * ELEMENT_NS,
                }
        })
        .sum()
}

/// Whether `mode` runs a map of `body` in lockstep.
pub fn runs_in_lockstep(mode: Mode, body: &Jaxpr) -> bool {
    match mode {
        Mode::Lockstep => true,
        Mode::Parallel => false,
        Mode::Auto => cost_ns(body) < LOCKSTEP_BELOW_NS,
    }
}

/// The error of an evaluation stopped before `prim` (equation `at.0` of
/// `at.1`, counting from 0, when it is part of a jaxpr).
fn stopped_error(prim: &Prim, at: Option<(usize, usize)>, reason: &str) -> crate::error::Error {
    let place = at.map_or(String::new(), |(i, n)| {
        format!(" (equation {} of {n})", i + 1)
    });
    crate::err!(Cancelled, "stopped before {}{place}: {reason}", prim.name())
}

/// A stop inside the control flow of `eqn` (a while loop that does not
/// end) names the program line that made the equation, so that a run
/// stopped inside a map's body says where in the body it was.
fn stopped_at_line(mut e: crate::error::Error, eqn: &crate::ir::Eqn) -> crate::error::Error {
    const LOOP: &str = "stopped in a while loop";
    if let (crate::error::ErrorKind::Cancelled, Some(src)) = (e.kind, &eqn.source) {
        let fresh = e.message.starts_with(LOOP) && !e.message.contains(" (line ");
        if let (true, Some((head, rest))) = (fresh, e.message.clone().split_once(": ")) {
            e.message = format!("{head} (line {}): {rest}", src.line);
        }
    }
    e
}

/// Runs a primitive on concrete operands at top level (no trace active).
pub fn apply_eager(prim: &Prim, ins: &[Array]) -> Result<Vec<Array>> {
    if let Some(reason) = stop_requested() {
        return Err(stopped_error(prim, None, &reason));
    }
    let lanes: Vec<Vec<Array>> = ins.iter().map(|a| vec![a.clone()]).collect();
    let prints = std::sync::Mutex::new(vec![]);
    // An eager vmap runs its batched operations one at a time in JAX, each
    // rounded on its own; what it calls jitted is compiled (see eval_eqn).
    let compiled = !matches!(prim, Prim::Map(m) if m.kind == MapKind::Vmap);
    let outs = eval_eqn(
        prim,
        lanes,
        &Printing {
            prints: &prints,
            compiled,
        },
    );
    let printed = prints.into_inner().unwrap_or_default();
    if !printed.is_empty() {
        run::eager_prints(printed);
    }
    Ok(outs?.into_iter().map(|mut l| l.remove(0)).collect())
}

/// Runs `run` (a shard_map or pmap), then prints what its devices printed
/// through `comm`, also when the map failed part way.
fn printing_map<T>(comm: &dyn Comm, run: impl FnOnce() -> Result<T>) -> Result<T> {
    let before = run::replace_map_prints(Vec::new());
    let out = run();
    let printed = run::replace_map_prints(before);
    if !printed.is_empty() {
        comm.debug_print(printed)?;
    }
    out
}

/// Whether a program, or one it runs, has a `debug_print`: a map of such a
/// body runs in lockstep, so that its devices' lines come out in order.
pub fn prints(body: &Jaxpr) -> bool {
    body.eqns.iter().any(|e| {
        matches!(e.prim, Prim::DebugPrint(_)) || e.prim.sub_jaxprs().into_iter().any(prints)
    })
}

/// Runs a program at top level on concrete inputs, for a caller that shows
/// what it prints: its `jax.debug.print` calls are appended to `prints` as
/// they happen, so those made before a failure are kept too.
pub fn eval_program(
    jaxpr: &Jaxpr,
    args: &[Array],
    prints: &std::sync::Mutex<Vec<crate::primitives::debug::Printed>>,
) -> Result<Vec<Array>> {
    if let Some(reason) = stop_requested() {
        bail!(Cancelled, "stopped before the program ran: {reason}");
    }
    let lanes: Vec<Vec<Array>> = args.iter().map(|a| vec![a.clone()]).collect();
    let outs = eval_lanes(
        jaxpr,
        lanes,
        &Printing {
            prints,
            compiled: true,
        },
    )?;
    Ok(outs.into_iter().map(|mut l| l.remove(0)).collect())
}

/// What running a program needs to know about it beyond its equations:
/// the products fusion computes in place of separate operations, the pure
/// callbacks nothing reads, and what each equation leaves dead. A loop
/// makes it once for its body rather than at every step.
pub struct Plan {
    products: HashMap<Var, ([Atom; 2], bool)>,
    dead: Vec<bool>,
    freed: Vec<Vec<Var>>,
}

impl Plan {
    /// The plan of `jaxpr` run by `comm` (which says whether it fuses).
    pub fn of(jaxpr: &Jaxpr, comm: &dyn Comm) -> Result<Plan> {
        let products = match comm.fuses() {
            true => {
                fusion::refuse_excess_precision(jaxpr)?;
                fusion::products(jaxpr)
            }
            false => Default::default(),
        };
        let dead = callback::dead_pure_callbacks(jaxpr);
        let freed = freed_after(jaxpr, &products);
        Ok(Plan {
            products,
            dead,
            freed,
        })
    }
}

/// Runs `jaxpr` for every lane of `comm`. `args[i][l]` is input `i` on lane
/// `l`; the result is indexed the same way.
pub fn eval_lanes(
    jaxpr: &Jaxpr,
    args: Vec<Vec<Array>>,
    comm: &dyn Comm,
) -> Result<Vec<Vec<Array>>> {
    eval_planned(jaxpr, &Plan::of(jaxpr, comm)?, args, comm)
}

/// [`eval_lanes`] with the program's plan made already.
pub fn eval_planned(
    jaxpr: &Jaxpr,
    plan: &Plan,
    args: Vec<Vec<Array>>,
    comm: &dyn Comm,
) -> Result<Vec<Vec<Array>>> {
    let Plan {
        products,
        dead,
        freed,
    } = plan;
    let lanes = comm.lanes();
    jaxpr.check_arity(args.len())?;
    let mut env = bind_inputs(jaxpr, args, lanes)?;
    let read = |env: &[Option<Vec<Array>>], a: &Atom| -> Result<Vec<Array>> {
        match a {
            Atom::Var(v) => env[v.0 as usize]
                .clone()
                .ok_or_else(|| crate::err!(RuntimeError, "variable read before it was written")),
            Atom::Lit(x) => Ok(vec![x.clone(); lanes]),
        }
    };
    let count = jaxpr.eqns.len();
    for (i, eqn) in jaxpr.eqns.iter().enumerate() {
        if let Some(vars) = i.checked_sub(1).map(|prev| &freed[prev]) {
            for v in vars {
                env[v.0 as usize] = None;
            }
        }
        if dead[i] {
            continue;
        }
        // One atomic load per equation: a cancel or another device's failure
        // stops a device that is computing, not only one at a collective.
        if let Some(reason) = comm.stopped() {
            return Err(stopped_in(eqn, i, count, &reason));
        }
        if let Some((prim, ins)) = divide_by_constant(eqn, &env, lanes)? {
            let outs = eval_eqn(&prim, ins, comm)?;
            for (v, o) in eqn.outputs.iter().zip(outs) {
                env[v.0 as usize] = Some(o);
            }
            continue;
        }
        if let Some(([a, b, c], negate)) = fusion::multiply_add(eqn, jaxpr, products) {
            let (a, b, c) = (read(&env, a)?, read(&env, b)?, read(&env, c)?);
            let fused: Vec<Option<Array>> = (0..lanes)
                .map(|l| fusion::fused(&a[l], &b[l], &c[l], negate))
                .collect::<Result<_>>()?;
            if let Some(outs) = fused.into_iter().collect::<Option<Vec<_>>>() {
                env[eqn.outputs[0].0 as usize] = Some(outs);
                continue;
            }
        }
        let ins: Vec<Vec<Array>> = fusion::mul_operands(eqn, products)
            .iter()
            .map(|a| read(&env, a))
            .collect::<Result<_>>()?;
        let outs = match &eqn.prim {
            Prim::Collective(kind) => eval_collective(kind, Some(eqn), ins, comm)?,
            prim => eval_eqn(prim, ins, comm).map_err(|e| stopped_at_line(e, eqn))?,
        };
        for (v, o) in eqn.outputs.iter().zip(outs) {
            env[v.0 as usize] = Some(o);
        }
    }
    jaxpr.outvars.iter().map(|a| read(&env, a)).collect()
}

/// For each equation, the variables no later equation reads, so that their
/// arrays are dropped once it has run: a long program then reuses the
/// memory of its dead intermediates instead of holding them all to the end.
/// An equation counts as reading its operands, the operands of the
/// equations that made them and the products fusion may read in their
/// place; the program's outputs are never freed.
fn freed_after(jaxpr: &Jaxpr, products: &HashMap<Var, ([Atom; 2], bool)>) -> Vec<Vec<Var>> {
    let mut made_by: HashMap<Var, usize> = HashMap::new();
    for (i, eqn) in jaxpr.eqns.iter().enumerate() {
        for v in &eqn.outputs {
            made_by.insert(*v, i);
        }
    }
    let vars = |atoms: &[Atom]| -> Vec<Var> {
        atoms
            .iter()
            .filter_map(|a| match a {
                Atom::Var(v) => Some(*v),
                Atom::Lit(_) => None,
            })
            .collect()
    };
    let mut last: HashMap<Var, usize> = HashMap::new();
    for (i, eqn) in jaxpr.eqns.iter().enumerate() {
        let direct = vars(&eqn.inputs);
        let mut read = direct.clone();
        for u in direct.iter().chain(&eqn.outputs) {
            if let Some((atoms, _)) = products.get(u) {
                read.extend(vars(atoms));
            }
            if let Some(&j) = made_by.get(u).filter(|&&j| j < i) {
                read.extend(vars(&jaxpr.eqns[j].inputs));
            }
        }
        for v in read {
            last.insert(v, i);
        }
    }
    for v in vars(&jaxpr.outvars) {
        last.remove(&v);
    }
    let mut freed = vec![Vec::new(); jaxpr.eqns.len()];
    for (v, i) in last {
        freed[i].push(v);
    }
    freed
}

/// The environment of a program's variables, its inputs bound (one array
/// per lane each).
fn bind_inputs(
    jaxpr: &Jaxpr,
    args: Vec<Vec<Array>>,
    lanes: usize,
) -> Result<Vec<Option<Vec<Array>>>> {
    let mut env: Vec<Option<Vec<Array>>> = vec![None; jaxpr.avals.len()];
    for (v, a) in jaxpr.invars.iter().zip(args) {
        if a.len() != lanes {
            bail!(
                RuntimeError,
                "input has {} lanes, expected {lanes}",
                a.len()
            );
        }
        env[v.0 as usize] = Some(a);
    }
    Ok(env)
}

/// The error of a run stopped before equation `i` of `count`, naming the
/// program's line where the equation came from one.
fn stopped_in(eqn: &Eqn, i: usize, count: usize, reason: &str) -> crate::error::Error {
    let mut e = stopped_error(&eqn.prim, Some((i, count)), reason);
    if let Some(src) = &eqn.source {
        e.message = e.message.replacen(')', &format!(", line {})", src.line), 1);
    }
    e
}

/// A division of a program's value by a scalar constant, as XLA compiles
/// it: a multiplication by the constant's reciprocal (so `jnp.mean` of
/// `[1., 2., 4.]` is 2.3333335 in JAX, not 2.3333333). Returns the
/// multiplication and its operands, or None for any other equation.
fn divide_by_constant(
    eqn: &crate::ir::Eqn,
    env: &[Option<Vec<Array>>],
    lanes: usize,
) -> Result<Option<(Prim, Vec<Vec<Array>>)>> {
    let (Prim::Binary(crate::array::BinaryOp::Div), [Atom::Var(x), Atom::Lit(c)]) =
        (&eqn.prim, eqn.inputs.as_slice())
    else {
        return Ok(None);
    };
    let Some(xs) = env[x.0 as usize].clone() else {
        return Ok(None);
    };
    // A narrow quotient is rounded from the exact float32 one (measured
    // against XLA), not computed through a reciprocal; XLA rewrites only
    // real divisions, so a complex quotient stays a division.
    let real_wide = |d: crate::array::DType| d.is_float() && !d.is_narrow();
    if c.ndim() != 0 || !real_wide(c.dtype()) || xs.iter().any(|a| !real_wide(a.dtype())) {
        return Ok(None);
    }
    let one = Array::full(&[], 1.0, crate::array::DType::F32);
    let recip = one.binary(crate::array::BinaryOp::Div, c)?;
    let xs = xs
        .into_iter()
        .map(|a| a.astype(crate::array::DType::F32))
        .collect();
    Ok(Some((
        Prim::Binary(crate::array::BinaryOp::Mul),
        vec![xs, vec![recip; lanes]],
    )))
}

/// A collective for all lanes, logged when the run is observed, with what
/// its equation `eqn` knows: the library function it was called as and the
/// program line that made it.
fn eval_collective(
    kind: &crate::primitives::CollectiveKind,
    eqn: Option<&Eqn>,
    ins: Vec<Vec<Array>>,
    comm: &dyn Comm,
) -> Result<Vec<Vec<Array>>> {
    let xs = ins
        .into_iter()
        .next()
        .unwrap_or_else(|| vec![Array::scalar_i32(0); comm.lanes()]);
    let Some(positions) = comm.device_positions().filter(|_| log::logging()) else {
        return Ok(vec![comm.collective(kind, xs)?]);
    };
    let start = log::now_us();
    let outs = comm.collective(kind, xs.clone())?;
    log::log(log::Event {
        kind: kind.clone(),
        called_as: eqn.and_then(|e| e.called_as.clone()),
        line: eqn.and_then(|e| e.source.as_ref()).map(|s| s.line),
        positions,
        before: xs,
        after: outs.clone(),
        elapsed_us: log::now_us() - start,
    });
    Ok(vec![outs])
}

/// One equation for all lanes: `ins[i][l]` in, `[output][lane]` out.
fn eval_eqn(prim: &Prim, ins: Vec<Vec<Array>>, comm: &dyn Comm) -> Result<Vec<Vec<Array>>> {
    let lanes = comm.lanes();
    match prim {
        Prim::Collective(kind) => eval_collective(kind, None, ins, comm),
        Prim::Map(m) if m.kind == MapKind::Vmap => eval_vmap(m, &ins, comm),
        // A jitted program runs on the lanes of its caller, compiled.
        Prim::Jit(j) if comm.fuses() => eval_lanes(&j.body, ins, comm),
        Prim::Jit(j) => eval_lanes(&j.body, ins, &comm::Compiled(comm)),
        Prim::Remat(r) => eval_lanes(&r.body, ins, comm),
        Prim::CustomJvp(_) | Prim::CustomVjp(_) => eval_custom(prim, ins, comm),
        Prim::Cond(c) => control::eval_cond(c, ins, comm),
        Prim::While(w) => control::eval_while(w, ins, comm),
        Prim::Scan(s) => control::eval_scan(s, ins, comm),
        Prim::HostCallback(h) => callback::eval_host_callback(h, ins, comm),
        Prim::DebugPrint(d) => eval_debug_print(d, ins, comm),
        Prim::ShardMap(_) | Prim::Map(_) if !(comm.is_top() && lanes == 1) => bail!(
            NotImplementedError,
            "not supported by shardlab yet: {} inside a shard_map, pmap or vmap body",
            prim.name()
        ),
        Prim::ShardMap(p) => {
            let flat: Vec<Array> = ins.into_iter().map(|mut l| l.remove(0)).collect();
            Ok(printing_map(comm, || run_shard_map(p, &flat))?
                .into_iter()
                .map(|a| vec![a])
                .collect())
        }
        Prim::Map(m) => {
            let flat: Vec<Array> = ins.into_iter().map(|mut l| l.remove(0)).collect();
            Ok(printing_map(comm, || run_pmap(m, &flat))?
                .into_iter()
                .map(|a| vec![a])
                .collect())
        }
        // Operands that are one array in every lane (a vmap's unbatched
        // values): computed once and shared, which keeps them recognisably
        // unbatched for a host callback (see `callback`).
        _ if lanes > 1 && ins.iter().all(|x| x.iter().all(|a| a.is_same(&x[0]))) => {
            let lane: Vec<Array> = ins.iter().map(|x| x[0].clone()).collect();
            Ok(prim
                .apply(&lane)?
                .into_iter()
                .map(|a| vec![a; lanes])
                .collect())
        }
        _ => eval_per_lane(prim, &ins, lanes),
    }
}

/// A debug print, callback or check: what it does depends on whether it is
/// a breakpoint, a check (checkified or not) or a print.
fn eval_debug_print(
    d: &Arc<DebugPrintParams>,
    ins: Vec<Vec<Array>>,
    comm: &dyn Comm,
) -> Result<Vec<Vec<Array>>> {
    let lanes = comm.lanes();
    if d.breakpoint {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.debug.breakpoint (an interactive debugger)"
        );
    }
    if let Some(check) = d.check {
        // A debug check does nothing unless checkified; a check that was
        // not checkified cannot be compiled (JAX refuses it when lowering).
        if check.debug {
            return Ok(vec![]);
        }
        // JAX runs a batched check eagerly, which shardlab does not.
        if lanes > 1 {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: checkify.check under vmap without checkify.checkify"
            );
        }
        return Err(crate::transforms::checkify::functionalization_error());
    }
    // Its callback ran when the program was compiled.
    if d.inspect.is_some() {
        return Ok(vec![]);
    }
    let printed = (0..lanes)
        .map(|l| crate::primitives::debug::Printed {
            params: d.clone(),
            args: ins.iter().map(|x| x[l].clone()).collect(),
        })
        .collect();
    comm.debug_print(printed)?;
    Ok(vec![])
}

/// A custom function runs its primal program (the rules run only when it is
/// differentiated).
fn eval_custom(prim: &Prim, ins: Vec<Vec<Array>>, comm: &dyn Comm) -> Result<Vec<Vec<Array>>> {
    let Some((body, n, n_outs)) = crate::primitives::custom::evaluated(prim) else {
        bail!(RuntimeError, "{} has no program", prim.name());
    };
    let mut outs = eval_lanes(body, ins.into_iter().take(n).collect(), comm)?;
    outs.truncate(n_outs);
    Ok(outs)
}

/// `prim` applied in each lane to that lane's operands.
fn eval_per_lane(prim: &Prim, ins: &[Vec<Array>], lanes: usize) -> Result<Vec<Vec<Array>>> {
    let mut outs: Vec<Vec<Array>> = Vec::new();
    for l in 0..lanes {
        let lane: Vec<Array> = ins.iter().map(|x| x[l].clone()).collect();
        let r = prim.apply(&lane)?;
        if outs.is_empty() {
            outs = r.iter().map(|_| Vec::with_capacity(lanes)).collect();
        }
        for (o, a) in outs.iter_mut().zip(r) {
            o.push(a);
        }
    }
    Ok(outs)
}

/// A vmap inside the lanes of `comm`: each lane fans out into `size` lanes.
fn eval_vmap(m: &MapParams, ins: &[Vec<Array>], comm: &dyn Comm) -> Result<Vec<Vec<Array>>> {
    let (lanes, b) = (comm.lanes(), m.size);
    let mut inner = Vec::with_capacity(ins.len());
    for (x, ax) in ins.iter().zip(&m.in_axes) {
        let mut v = Vec::with_capacity(lanes * b);
        for lane in x {
            for i in 0..b {
                v.push(match ax {
                    Some(a) => lane.index(i as i64, *a)?,
                    None => lane.clone(),
                });
            }
        }
        inner.push(v);
    }
    let nested = Nested {
        outer: comm,
        name: m.axis_name.clone(),
        size: b,
    };
    let outs = eval_lanes(&m.body, inner, &nested)?;
    outs.iter()
        .zip(&m.out_axes)
        .map(|(o, &ax)| {
            (0..lanes)
                .map(|l| Array::stack(&o[l * b..(l + 1) * b], ax))
                .collect()
        })
        .collect()
}

/// Something that runs one program on every device of a mesh at once, each
/// device exchanging through a fabric: OS threads natively
/// ([`ThreadDevices`]), Web Workers in the browser.
pub trait Devices: Send + Sync {
    /// Runs `body` on every device: `args[i][p]` is input `i` on the device at
    /// position `p`; returns `[output][position]`, and every device's log of
    /// collectives when `record` is set (else no logs).
    fn run(
        &self,
        body: &Jaxpr,
        mesh: &Mesh,
        args: Vec<Vec<Array>>,
        record: bool,
    ) -> Result<(Vec<Vec<Array>>, Vec<DeviceLog>)>;
}

/// One OS thread per device over a fresh [`ThreadFabric`].
pub struct ThreadDevices;

impl Devices for ThreadDevices {
    fn run(
        &self,
        body: &Jaxpr,
        mesh: &Mesh,
        args: Vec<Vec<Array>>,
        record: bool,
    ) -> Result<(Vec<Vec<Array>>, Vec<DeviceLog>)> {
        let cfg = config();
        let fabric = Arc::new(ThreadFabric::new(mesh.size(), cfg.slot_words, cfg.timeout)?);
        let fab = Arc::clone(&fabric);
        // The device threads poll the run's stop check themselves.
        let stop = stop_check();
        let per_device = run_on_threads(fabric, |position| {
            let lane: Vec<Vec<Array>> = args.iter().map(|a| vec![a[position].clone()]).collect();
            let ctx = DeviceCtx {
                fabric: &*fab,
                mesh,
                position,
            };
            let comm = OnFabric { ctx, stop };
            let (outs, log) = logged(record, position, || eval_lanes(body, lane, &comm))?;
            Ok((
                outs.into_iter()
                    .map(|mut l| l.remove(0))
                    .collect::<Vec<Array>>(),
                log,
            ))
        })
        .map_err(|e| with_coordinates(e, mesh))?;
        let (outs, logs): (Vec<_>, Vec<_>) = per_device.into_iter().unzip();
        Ok((
            by_output(outs, body.outvars.len()),
            logs.into_iter().flatten().collect(),
        ))
    }
}

/// A device's failure (`device 5: ...`, or `... on device 5` for a
/// stop in lockstep) with the device's mesh coordinates, as the report
/// shows them: `device 5 (x=1, y=1)`.
fn with_coordinates(mut e: crate::error::Error, mesh: &Mesh) -> crate::error::Error {
    let digits = |t: &str| {
        t.chars()
            .take_while(char::is_ascii_digit)
            .collect::<String>()
    };
    let at = if let Some(rest) = e.message.strip_prefix("device ") {
        Some(("device ".len(), digits(rest)))
    } else {
        let key = " on device ";
        e.message
            .find(key)
            .map(|i| (i + key.len(), digits(&e.message[i + key.len()..])))
    };
    let Some((start, number)) = at else { return e };
    let Some(position) = number.parse::<usize>().ok().filter(|&p| p < mesh.size()) else {
        return e;
    };
    let coords: Vec<String> = mesh
        .axis_names()
        .iter()
        .zip(mesh.coords(position))
        .map(|(name, c)| format!("{name}={c}"))
        .collect();
    let end = start + number.len();
    e.message = format!(
        "{} ({}){}",
        &e.message[..end],
        coords.join(", "),
        &e.message[end..]
    );
    e
}

/// Runs `f` as the device at `position`, logging its collectives when
/// `record` is set.
pub fn logged<T>(
    record: bool,
    position: usize,
    f: impl FnOnce() -> Result<T>,
) -> Result<(T, Option<DeviceLog>)> {
    if !record {
        return Ok((f()?, None));
    }
    log::begin();
    let start = log::now_us();
    let result = f();
    let total_us = log::now_us() - start;
    let events = log::end();
    Ok((
        result?,
        Some(DeviceLog {
            position,
            events,
            total_us,
        }),
    ))
}

/// Regroups per-device results `[position][output]` as `[output][position]`.
pub fn by_output(per_device: Vec<Vec<Array>>, n_out: usize) -> Vec<Vec<Array>> {
    let mut outs: Vec<Vec<Array>> = (0..n_out)
        .map(|_| Vec::with_capacity(per_device.len()))
        .collect();
    for dev in per_device {
        for (o, a) in outs.iter_mut().zip(dev) {
            o.push(a);
        }
    }
    outs
}

/// What [`run_devices`] gives back: `[output][position]`, whether the map
/// ran in lockstep, and the devices' logs (empty unless recorded).
pub struct DevicesRan {
    /// Each output on every device.
    pub outs: Vec<Vec<Array>>,
    /// Whether every device ran in this thread.
    pub lockstep: bool,
    /// The devices' logs of collectives and time.
    pub logs: Vec<DeviceLog>,
}

/// Runs a body on every device of `mesh`, in lockstep or on the configured
/// parallel devices, as the mode says: `args[i][p]` is input `i` on the
/// device at position `p`. Logs the devices' collectives when `record`.
pub fn run_devices(
    body: &Jaxpr,
    mesh: &Mesh,
    args: Vec<Vec<Array>>,
    record: bool,
) -> Result<DevicesRan> {
    let cfg = config();
    if !runs_in_lockstep(cfg.mode, body) && !prints(body) {
        let (outs, logs) = cfg.devices_backend.run(body, mesh, args, record)?;
        return Ok(DevicesRan {
            outs,
            lockstep: false,
            logs,
        });
    }
    // A failing device ends the run with an error, as in parallel mode,
    // rather than taking the process down.
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        logged(record, 0, || eval_lanes(body, args, &Lockstep { mesh }))
            .map_err(|e| with_coordinates(e, mesh))
    }));
    let (outs, log) = run.unwrap_or_else(|p| {
        let what = p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".to_string());
        Err(crate::err!(
            RuntimeError,
            "a device of the mesh failed in lockstep: panicked: {what}"
        ))
    })?;
    Ok(DevicesRan {
        outs,
        lockstep: true,
        logs: log.into_iter().collect(),
    })
}

/// Splits the inputs by `in_specs`, runs the body on every device, and
/// assembles the outputs by `out_specs`.
pub fn run_shard_map(p: &ShardMapParams, ins: &[Array]) -> Result<Vec<Array>> {
    run_shard_map_as(p, ins, "shard_map", true)
}

/// [`run_shard_map`] of a program the run's observer is told of under
/// `kind`, and only when `observe` (the partitioner's programs: see
/// `partition`).
pub fn run_shard_map_as(
    p: &ShardMapParams,
    ins: &[Array],
    kind: &'static str,
    observe: bool,
) -> Result<Vec<Array>> {
    let shards: Vec<Vec<Array>> = ins
        .iter()
        .zip(&p.in_specs)
        .map(|(x, s)| s.split(&p.mesh, x))
        .collect::<Result<_>>()?;
    let observer = run::observer().filter(|_| observe);
    // Keep the shards only for an observer.
    let kept = observer.as_ref().map(|_| shards.clone());
    let ran = run_devices(&p.body, &p.mesh, shards, observer.is_some())?;
    let globals: Vec<Array> = ran
        .outs
        .iter()
        .zip(&p.out_specs)
        .zip(p.body.out_avals())
        .map(|((blocks, spec), local)| {
            let global = p.global_aval(&local, spec)?;
            spec.assemble(&p.mesh, blocks, &global.shape)
        })
        .collect::<Result<_>>()?;
    if let (Some(observer), Some(shards)) = (observer, kept) {
        observer.map_ran(MapRan {
            kind,
            mesh: &p.mesh,
            body: &p.body,
            lockstep: ran.lockstep,
            backward: run::in_backward(),
            inputs: Placed {
                globals: ins,
                blocks: &shards,
                layout: Layout::Specs(&p.in_specs),
            },
            outputs: Placed {
                globals: &globals,
                blocks: &ran.outs,
                layout: Layout::Specs(&p.out_specs),
            },
            logs: ran.logs,
            line: crate::trace::current_source().map(|s| s.line),
        })?;
    }
    Ok(globals)
}

/// Runs a pmap: one device per index of the mapped axis.
pub fn run_pmap(m: &MapParams, ins: &[Array]) -> Result<Vec<Array>> {
    let name = m.axis_name.clone().unwrap_or_else(|| "<pmap axis>".into());
    let mesh = Mesh::new(&[name.as_str()], &[m.size])?;
    let mut args = Vec::with_capacity(ins.len());
    for (x, ax) in ins.iter().zip(&m.in_axes) {
        args.push(match ax {
            Some(a) => (0..m.size)
                .map(|i| x.index(i as i64, *a))
                .collect::<Result<Vec<_>>>()?,
            None => vec![x.clone(); m.size],
        });
    }
    let observer = run::observer();
    let kept = observer.as_ref().map(|_| args.clone());
    let ran = run_devices(&m.body, &mesh, args, observer.is_some())?;
    let globals: Vec<Array> = ran
        .outs
        .iter()
        .zip(&m.out_axes)
        .map(|(o, &ax)| Array::stack(o, ax))
        .collect::<Result<_>>()?;
    if let (Some(observer), Some(args)) = (observer, kept) {
        let out_axes: Vec<Option<usize>> = m.out_axes.iter().map(|&a| Some(a)).collect();
        observer.map_ran(MapRan {
            kind: "pmap",
            mesh: &mesh,
            body: &m.body,
            lockstep: ran.lockstep,
            backward: run::in_backward(),
            inputs: Placed {
                globals: ins,
                blocks: &args,
                layout: Layout::Axes(&m.in_axes),
            },
            outputs: Placed {
                globals: &globals,
                blocks: &ran.outs,
                layout: Layout::Axes(&out_axes),
            },
            logs: ran.logs,
            line: crate::trace::current_source().map(|s| s.line),
        })?;
    }
    Ok(globals)
}
