//! Tracing: turning calls on values into a [`Jaxpr`].
//!
//! A [`Value`] is either a concrete array or a tracer standing for a variable
//! of a jaxpr being built. Every operation goes through [`bind`]: with no trace
//! active it computes at once (eager, as JAX does outside transformations);
//! otherwise it records an equation in the innermost trace, capturing operands
//! that belong to outer traces as extra inputs (closure conversion). Traces
//! nest: tracing a `grad` inside a `shard_map` body pushes a second frame that
//! sees the body's mesh axes.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use crate::array::Array;
use crate::bail;
use crate::error::Result;
use crate::ir::{Atom, Aval, AxisSet, Eqn, Jaxpr, Var};
use crate::primitives::{AxisEnv, CollectiveKind, Prim};
use crate::sharding::Placement;

mod called_as;
pub mod deleted;
mod origin;
pub mod refs;

pub use called_as::called_as;
pub use origin::{origin_text, set_debug_info, DebugInfo};

/// A value flowing through a program: concrete data or a traced variable.
#[derive(Debug, Clone)]
pub enum Value {
    /// Data, computed eagerly.
    Concrete(Array),
    /// A variable of the jaxpr being traced at `level`.
    Traced(Tracer),
}

/// A stand-in for a variable of a jaxpr under construction.
#[derive(Debug, Clone)]
pub struct Tracer {
    /// Depth of the trace frame the variable belongs to.
    pub level: usize,
    /// The variable.
    pub var: Var,
    /// Its shape, dtype and VMA.
    pub aval: Aval,
    /// Its value, when the trace is eager (see [`trace_values`]).
    pub known: Option<Array>,
}

impl Value {
    /// The abstract value.
    pub fn aval(&self) -> Aval {
        match self {
            Value::Concrete(a) => Aval::of(a),
            Value::Traced(t) => t.aval.clone(),
        }
    }

    /// The shape.
    pub fn shape(&self) -> Vec<usize> {
        match self {
            Value::Concrete(a) => a.shape().to_vec(),
            Value::Traced(t) => t.aval.shape.clone(),
        }
    }

    /// The element type.
    pub fn dtype(&self) -> crate::array::DType {
        match self {
            Value::Concrete(a) => a.dtype(),
            Value::Traced(t) => t.aval.dtype,
        }
    }

    /// Number of dimensions.
    pub fn ndim(&self) -> usize {
        self.shape().len()
    }

    /// The data, or JAX's concretization error when the value is traced:
    /// Python control flow and conversions need data that a tracer lacks.
    /// `what` names the operation that needed it.
    pub fn concrete(&self, what: &str) -> Result<&Array> {
        self.concrete_for(Conversion::Concrete(format!("It arose in {what}.")))
    }

    /// The data, or the error JAX raises for `conversion` of a tracer.
    /// A deleted array's data is gone: JAX's RuntimeError.
    pub fn concrete_for(&self, conversion: Conversion) -> Result<&Array> {
        match self {
            Value::Concrete(a) => {
                deleted::check(a)?;
                Ok(a)
            }
            Value::Traced(Tracer { known: Some(a), .. }) => Ok(a),
            Value::Traced(t) => Err(t.conversion_error(conversion)),
        }
    }
}

/// What Python asked of a tracer that needs its data; each has JAX's own
/// exception class.
#[derive(Debug, Clone)]
pub enum Conversion {
    /// `bool(x)`: `if`, `while`, `and`, `or`, `not`.
    Bool,
    /// `x.__index__()`: a list index, `range(x)`, `operator.index(x)`.
    Index,
    /// `x.__array__()`: `np.asarray(x)`.
    Array,
    /// Any other need of the value; the text says which.
    Concrete(String),
}

impl Tracer {
    /// The shape as JAX's messages print it: `float32[3]`, `bool[]{V:x}`.
    pub fn shape_text(&self) -> String {
        let short = self.aval.to_string();
        let rest = short.split_once('[').map_or("", |(_, r)| r);
        format!("{}[{rest}", self.aval.dtype.name())
    }

    /// JAX's error for `conversion` of this tracer.
    pub fn conversion_error(&self, conversion: Conversion) -> crate::error::Error {
        use crate::error::{Error, ErrorKind};
        let shape = self.shape_text();
        let origin = origin::origin_text(self);
        let (kind, text) = match conversion {
            Conversion::Bool => (
                ErrorKind::TracerBoolConversionError,
                format!("Attempted boolean conversion of traced array with shape {shape}.{origin}"),
            ),
            Conversion::Index => (
                ErrorKind::TracerIntegerConversionError,
                format!(
                    "The __index__() method was called on traced array with shape \
                     {shape}{origin}"
                ),
            ),
            Conversion::Array => (
                ErrorKind::TracerArrayConversionError,
                format!(
                    "The numpy.ndarray conversion method __array__() was called on traced \
                     array with shape {shape}{origin}"
                ),
            ),
            Conversion::Concrete(detail) => (
                ErrorKind::ConcretizationTypeError,
                format!(
                    "Abstract tracer value encountered where concrete value is expected: traced \
                     array with shape {shape}\n{detail}{origin}\n"
                ),
            ),
        };
        Error::new(
            kind,
            format!(
                "{text}\nSee https://docs.jax.dev/en/latest/errors.html#jax.errors.{}",
                kind.python_name()
            ),
        )
    }
}

impl From<Array> for Value {
    fn from(a: Array) -> Value {
        Value::Concrete(a)
    }
}

/// What a trace frame binds: named axes and whether VMA is tracked for them.
#[derive(Debug, Clone, Default)]
pub struct FrameAxes {
    /// Axis names bound by this frame (a map body), with sizes.
    pub axes: Vec<(String, usize)>,
    /// Of those, the axes whose VMA is tracked (shard_map with check_vma).
    pub tracked: AxisSet,
    /// True when a vmap binds them.
    pub vmapped: bool,
}

struct Frame {
    axes: FrameAxes,
    /// Every tracer of an eager frame also carries its value: equations are
    /// computed as they are recorded. Differentiation at top level traces this
    /// way, so Python control flow on values works inside `grad` as in JAX.
    eager: bool,
    avals: Vec<Aval>,
    invars: Vec<Var>,
    eqns: Vec<Eqn>,
    /// Outer values captured as extra inputs, keyed by (level, var).
    captured: Vec<Value>,
    captured_index: HashMap<(usize, Var), Var>,
    /// Where the explicit inputs live, when the traced program is a jitted
    /// function called on placed arrays (see [`tracer_placement`]).
    placements: Vec<Option<Arc<Placement>>>,
    /// The body of a shard_map called at top level: its devices' inputs, so
    /// that printing a value runs the program so far on them, as JAX's
    /// eager shard_map shows each device's block (see [`device_blocks`]).
    devices: Option<Arc<DeviceInputs>>,
    /// The traced function, when it names itself (see [`set_debug_info`]).
    debug: Option<Arc<DebugInfo>>,
    /// What the frame does with refs created outside it (see [`refs`]).
    ref_policy: refs::RefPolicy,
    /// The outer refs it lifted, in the order it first touched them.
    lifted: Vec<refs::Lifted>,
    /// The refs passed to the traced function, which it may not close over.
    arg_refs: Option<refs::ArgRefs>,
}

/// The inputs of a top-level shard_map's devices.
pub struct DeviceInputs {
    /// The mesh.
    pub mesh: crate::mesh::Mesh,
    /// `args[i][p]`: input `i` on the device at position `p`.
    pub args: Vec<Vec<Array>>,
}

impl Frame {
    fn new_var(&mut self, aval: Aval) -> Var {
        self.avals.push(aval);
        Var(self.avals.len() as u32 - 1)
    }
}

thread_local! {
    /// The traces in progress, innermost last. Per thread because every
    /// operation on values consults it (`x + y` on a tracer must find its
    /// trace) and operations carry no handle; a trace is always entered and
    /// left within one call, so it is empty between runs.
    static STACK: RefCell<Vec<Frame>> = const { RefCell::new(Vec::new()) };
    /// The program position whose evaluation binds primitives now.
    static SOURCE: RefCell<Option<Source>> = const { RefCell::new(None) };
    /// The program's file, as Python names it in a code object.
    static FILE: RefCell<Option<Arc<str>>> = const { RefCell::new(None) };
}

/// A position in the program and the function running there: the user
/// frame JAX records with every equation (`file:line:col (function)`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(target_arch = "wasm32", derive(serde::Serialize, serde::Deserialize))]
pub struct Source {
    /// 1-based line.
    pub line: u32,
    /// 0-based column, as Python's code positions count it.
    pub col: u32,
    /// The function's qualified name (`<module>` at top level).
    pub function: Arc<str>,
}

impl Source {
    /// JAX's summary of a source position: `file:line:col (function)`.
    pub fn summarize(&self) -> String {
        let file = program_file();
        format!("{file}:{}:{} ({})", self.line, self.col, self.function)
    }
}

/// Sets the position whose evaluation binds primitives from now on and
/// returns the previous one (to put back when that evaluation ends).
pub fn set_source(s: Option<Source>) -> Option<Source> {
    SOURCE.with(|c| std::mem::replace(&mut *c.borrow_mut(), s))
}

/// Runs `f` with `eqn`'s program position as the source of what it binds
/// (where `eqn` has one): the equations a transformation or the partitioner
/// makes from an equation keep its line, as JAX keeps the source of a
/// primal equation on its transpose, and the run report names that line.
pub fn at_source<T>(eqn: &Eqn, f: impl FnOnce() -> Result<T>) -> Result<T> {
    let Some(src) = &eqn.source else {
        return f();
    };
    let outer = set_source(Some(src.clone()));
    let out = f();
    set_source(outer);
    out
}

/// The position whose evaluation binds primitives now.
pub fn current_source() -> Option<Source> {
    SOURCE.with(|c| c.borrow().clone())
}

/// Names the program's file for source positions.
pub fn set_file(file: Option<&str>) {
    FILE.with(|f| *f.borrow_mut() = file.map(Arc::from));
}

/// The program's file as Python's code objects name it: its absolute
/// path, or `<string>` for a program that came as text.
pub fn program_file() -> Arc<str> {
    FILE.with(|f| f.borrow().clone())
        .unwrap_or_else(|| Arc::from("<string>"))
}

/// True when some trace is active on this thread.
pub fn tracing() -> bool {
    STACK.with(|s| !s.borrow().is_empty())
}

/// Runs `f` with no trace active, so that operations on concrete values
/// compute at once: index bookkeeping done on the host while a function is
/// traced (which positions a concrete mask selects). `f` must not meet a
/// tracer of the suspended traces.
pub fn untraced<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
    let saved = STACK.with(|s| std::mem::take(&mut *s.borrow_mut()));
    let out = f();
    STACK.with(|s| *s.borrow_mut() = saved);
    out
}

/// How many traces are active: the level the next one will have.
pub fn depth() -> usize {
    STACK.with(|s| s.borrow().len())
}

/// How many equations the innermost trace holds so far (0 when none is
/// active): where the next one it records will be.
pub fn eqn_count() -> usize {
    STACK.with(|s| s.borrow().last().map_or(0, |f| f.eqns.len()))
}

/// Every axis bound by the active traces, innermost last.
pub fn axis_env() -> AxisEnv {
    STACK.with(|s| {
        let mut env = AxisEnv::default();
        for f in s.borrow().iter() {
            for (n, size) in &f.axes.axes {
                env.sizes.insert(n.clone(), *size);
                if f.axes.vmapped {
                    env.vmapped.insert(n.clone());
                } else {
                    env.vmapped.remove(n);
                }
            }
            env.tracked.extend(f.axes.tracked.iter().cloned());
        }
        env
    })
}

/// True when every active trace is eager (or none is active): values are
/// computed as they are recorded, as in differentiation at top level, where
/// JAX runs each jitted library function compiled on its own.
pub fn all_eager() -> bool {
    STACK.with(|s| s.borrow().iter().all(|f| f.eager))
}

/// True when the innermost trace stages a program (its tracers carry no
/// values), as jit, make_jaxpr and map bodies do.
pub fn staging() -> bool {
    STACK.with(|s| s.borrow().last().is_some_and(|f| !f.eager))
}

/// Where a tracer of a jitted function's trace lives, from the placements
/// of the function's inputs: the sharding rules run over the equations
/// traced so far. None for tracers of other traces and for values that
/// depend on no placed input.
pub fn tracer_placement(t: &Tracer) -> Result<Option<Arc<Placement>>> {
    STACK.with(|s| {
        let stack = s.borrow();
        let Some(f) = stack.get(t.level) else {
            return Ok(None);
        };
        if f.placements.iter().all(Option::is_none)
            && !f
                .eqns
                .iter()
                .any(|e| crate::primitives::placement::has_own_rule(&e.prim))
        {
            return Ok(None);
        }
        let env = crate::primitives::placement::propagate_eqns(
            &f.avals,
            &f.invars,
            &f.eqns,
            &f.placements,
        )?;
        Ok(env.get(t.var.0 as usize).cloned().flatten())
    })
}

/// True when `t` belongs to the body of a map (shard_map, pmap, vmap):
/// its type is per device (or per element), with the axes it varies over.
pub fn in_map_body(t: &Tracer) -> bool {
    STACK.with(|s| {
        s.borrow()
            .get(t.level)
            .is_some_and(|f| !f.axes.axes.is_empty())
    })
}

/// How `print` shows a tracer: `JitTracer(float32[3])` for one of a trace
/// that stages a program (jit, make_jaxpr), as JAX 0.10.2 prints it, with
/// the explicit mesh axes of its sharding (`float32[8@x,4]`).
/// Tracers of eager differentiation and of map bodies keep a generic text.
pub fn tracer_text(t: &Tracer) -> String {
    // A tracer kept past the end of its trace (saved in a global by a
    // jitted function) has no frame left: without a value it was staged.
    let staging = STACK.with(|s| {
        s.borrow()
            .get(t.level)
            .is_none_or(|f| !f.eager && f.axes.axes.is_empty())
    });
    if staging && t.known.is_none() {
        let placed = tracer_placement(t).ok().flatten();
        let text = match placed.as_deref() {
            Some(p @ Placement::Named(_)) => {
                crate::sharding::aval_text(&t.aval.shape, t.aval.dtype, Some(p))
            }
            _ => t.shape_text(),
        };
        format!("JitTracer({})", t.aval.str_text(&text))
    } else {
        format!("Traced<{}>with<DynamicJaxprTrace>", t.aval)
    }
}

/// Gives the `dot_general` equation that produced the tracer `v` the
/// result sharding `s` (JAX's `out_sharding=` of `jnp.dot`, `matmul` and
/// `einsum`, which JAX hands to the `dot_general` it binds). False when `v`
/// was produced by another primitive.
pub fn set_out_sharding(v: &Value, s: crate::sharding::NamedSharding) -> bool {
    let Value::Traced(t) = v else {
        return false;
    };
    STACK.with(|stack| {
        let mut stack = stack.borrow_mut();
        let Some(frame) = stack.get_mut(t.level) else {
            return false;
        };
        let eqn = frame
            .eqns
            .iter_mut()
            .rev()
            .find(|e| e.outputs.contains(&t.var));
        match eqn.map(|e| &mut e.prim) {
            Some(Prim::DotGeneral { out_sharding, .. }) => {
                *out_sharding = Some(Arc::new(s));
                true
            }
            _ => false,
        }
    })
}

/// The NumPy function an operator on arrays calls for `prim`, which JAX's
/// messages about a single operation name (`a * b` runs `multiply`).
fn numpy_name(prim: &Prim) -> String {
    let name = prim.name();
    let numpy = match name.as_str() {
        "mul" => "multiply",
        "sub" => "subtract",
        "div" => "true_divide",
        "max" => "maximum",
        "min" => "minimum",
        "pow" => "power",
        "neg" => "negative",
        "rem" => "remainder",
        _ => return name,
    };
    numpy.to_string()
}

/// Applies a primitive: computes it on concrete operands when nothing is being
/// traced, and otherwise records it in the innermost trace.
pub fn bind(prim: Prim, inputs: &[Value]) -> Result<Vec<Value>> {
    if !tracing() {
        let arrays: Vec<Array> = inputs
            .iter()
            .map(|v| v.concrete(&prim.name()).cloned())
            .collect::<Result<_>>()?;
        // The shape rule runs eagerly too, so a mistake raises the same error
        // whether or not the operation is being traced.
        let avals: Vec<Aval> = arrays.iter().map(Aval::of).collect();
        let out_avals = prim.abstract_eval(&avals, &AxisEnv::default())?;
        crate::partition::check_devices(&numpy_name(&prim), &["x", "y"], &arrays)?;
        // Operations on arrays split over a mesh run on its devices.
        let outs = match crate::partition::eager(&prim, &arrays)? {
            Some(outs) => outs,
            None => crate::exec::apply_eager(&prim, &arrays)?,
        };
        let placements = crate::primitives::placement::propagate(&prim, &arrays, &outs)?;
        let mut values = vec![];
        for ((a, p), t) in outs.into_iter().zip(placements).zip(&out_avals) {
            let a = crate::partition::placed(a.with_weak(t.weak), p);
            let partials = crate::partition::partials::derive(&prim, &arrays, &a)?;
            values.push(Value::Concrete(a.with_partials(partials)));
        }
        return Ok(values);
    }
    let inputs = if prim.joins_vma() {
        insert_pvary(inputs)?
    } else {
        inputs.to_vec()
    };
    let env = axis_env();
    let known = if STACK.with(|s| s.borrow().last().is_some_and(|f| f.eager)) {
        known_outputs(&prim, &inputs)?
    } else {
        None
    };
    STACK.with(|s| {
        let mut stack = s.borrow_mut();
        let level = stack.len() - 1;
        let atoms: Vec<Atom> = inputs
            .iter()
            .map(|v| to_atom(&mut stack, level, v))
            .collect::<Result<_>>()?;
        let in_avals: Vec<Aval> = inputs.iter().map(|v| v.aval()).collect();
        let out_avals = prim.abstract_eval(&in_avals, &env)?;
        let frame = &mut stack[level];
        let outputs: Vec<Var> = out_avals.iter().map(|a| frame.new_var(a.clone())).collect();
        let called_as = called_as::current(&prim);
        frame.eqns.push(Eqn {
            prim,
            inputs: atoms,
            outputs: outputs.clone(),
            source: current_source(),
            called_as,
        });
        let mut known = known.map(|k| k.into_iter().map(Some).collect::<Vec<_>>());
        Ok(outputs
            .into_iter()
            .zip(out_avals)
            .enumerate()
            .map(|(i, (var, aval))| {
                let known = known
                    .as_mut()
                    .and_then(|k| k[i].take())
                    .map(|a| a.with_weak(aval.weak));
                Value::Traced(Tracer {
                    level,
                    var,
                    aval,
                    known,
                })
            })
            .collect())
    })
}

/// In an eager frame, the outputs' values when every input has one.
fn known_outputs(prim: &Prim, inputs: &[Value]) -> Result<Option<Vec<Array>>> {
    let arrays: Option<Vec<Array>> = inputs.iter().map(known_value).collect();
    match arrays {
        Some(a) => Ok(Some(crate::exec::apply_eager(prim, &a)?)),
        None => Ok(None),
    }
}

/// The value of a concrete value or an eager tracer.
fn known_value(v: &Value) -> Option<Array> {
    match v {
        Value::Concrete(a) => Some(a.clone()),
        Value::Traced(t) => t.known.clone(),
    }
}

/// Binds a primitive with exactly one output.
pub fn bind1(prim: Prim, inputs: &[Value]) -> Result<Value> {
    Ok(bind(prim, inputs)?.remove(0))
}

/// Where operands vary over different tracked axes, makes the less varying ones
/// vary too with an explicit `pvary`, as JAX does; the transpose of that pvary
/// (a psum) is what sums gradients of replicated inputs.
fn insert_pvary(inputs: &[Value]) -> Result<Vec<Value>> {
    if inputs.len() < 2 {
        return Ok(inputs.to_vec());
    }
    let all: AxisSet = inputs.iter().flat_map(|v| v.aval().vma).collect();
    if all.is_empty() {
        return Ok(inputs.to_vec());
    }
    inputs
        .iter()
        .map(|v| {
            let missing: Vec<String> = all.difference(&v.aval().vma).cloned().collect();
            if missing.is_empty() {
                Ok(v.clone())
            } else {
                bind1(
                    Prim::Collective(CollectiveKind::Pvary { axes: missing }),
                    std::slice::from_ref(v),
                )
            }
        })
        .collect()
}

fn to_atom(stack: &mut [Frame], level: usize, v: &Value) -> Result<Atom> {
    match v {
        Value::Concrete(a) => {
            deleted::check(a)?;
            Ok(Atom::Lit(a.clone()))
        }
        Value::Traced(t) if t.level == level => Ok(Atom::Var(t.var)),
        Value::Traced(t) if t.level < level && t.level < stack.len() => {
            Ok(Atom::Var(capture(stack, level, t)))
        }
        Value::Traced(t) => bail!(
            RuntimeError,
            "Encountered an unexpected tracer {}: a value computed inside a transformed \
             function was used after that function returned",
            t.aval
        ),
    }
}

fn capture(stack: &mut [Frame], level: usize, t: &Tracer) -> Var {
    let frame = &mut stack[level];
    if let Some(v) = frame.captured_index.get(&(t.level, t.var)) {
        return *v;
    }
    let var = frame.new_var(t.aval.clone());
    frame.captured.push(Value::Traced(t.clone()));
    frame.captured_index.insert((t.level, t.var), var);
    var
}

/// A traced function: its jaxpr, whose inputs are the explicit arguments
/// followed by the outer values it closed over, and those outer values.
/// When its frame lifted outer refs (see [`refs`]), the jaxpr's last inputs
/// are their values and its last outputs their new values, one per ref.
#[derive(Clone)]
pub struct Traced {
    /// The program.
    pub jaxpr: Jaxpr,
    /// Outer values the function closed over, in the order of the extra inputs.
    pub captured: Vec<Value>,
    /// The outer refs the function used, in the order of the extra inputs
    /// (after the captured values) and the extra outputs.
    pub refs: Vec<std::rc::Rc<refs::RefSlot>>,
    /// For each of those refs, whether the function wrote to it: a ref it
    /// only read comes back unchanged and needs no writing back.
    pub refs_written: Vec<bool>,
}

impl std::fmt::Debug for Traced {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Traced")
            .field("jaxpr", &self.jaxpr)
            .field("captured", &self.captured)
            .field("refs", &self.refs.len())
            .finish()
    }
}

/// Traces `f` on abstract arguments of `in_avals` inside a frame binding `axes`.
pub fn trace<F>(in_avals: &[Aval], axes: FrameAxes, f: F) -> Result<Traced>
where
    F: FnOnce(&[Value]) -> Result<Vec<Value>>,
{
    let known = vec![None; in_avals.len()];
    trace_frame(in_avals, &known, axes, false, vec![], None, f)
}

/// [`trace`] of the body of a shard_map called at top level on `devices`'
/// inputs (see [`device_blocks`]).
pub fn trace_map_body<F>(
    in_avals: &[Aval],
    axes: FrameAxes,
    devices: DeviceInputs,
    f: F,
) -> Result<Traced>
where
    F: FnOnce(&[Value]) -> Result<Vec<Value>>,
{
    let known = vec![None; in_avals.len()];
    let devices = Some(Arc::new(devices));
    trace_frame(in_avals, &known, axes, false, vec![], devices, f)
}

/// Each device's block of a value of a top-level shard_map's body, found by
/// running the body traced so far on the devices' inputs: what JAX's eager
/// shard_map prints for it. None for any other tracer, and for a body that
/// prints as it runs (it would print again).
pub fn device_blocks(t: &Tracer) -> Option<Result<(crate::mesh::Mesh, Vec<Array>)>> {
    let (jaxpr, devices) = STACK.with(|s| {
        let stack = s.borrow();
        let f = stack.get(t.level)?;
        let devices = f.devices.clone()?;
        if t.level != 0 || f.eqns.iter().any(|e| matches!(e.prim, Prim::DebugPrint(_))) {
            return None;
        }
        let jaxpr = Jaxpr {
            avals: f.avals.clone(),
            invars: f.invars.clone(),
            eqns: f.eqns.clone(),
            outvars: vec![Atom::Var(t.var)],
        };
        Some((jaxpr, devices))
    })?;
    let run = || -> Result<(crate::mesh::Mesh, Vec<Array>)> {
        // Not part of the run: its collectives are not logged.
        let mut ran = crate::exec::run_devices(&jaxpr, &devices.mesh, devices.args.clone(), false)?;
        Ok((devices.mesh.clone(), ran.outs.remove(0)))
    };
    Some(run())
}

/// Whether a tracer that [`tracer_placement`] places nowhere is known to be
/// unplaced: it belongs to a staged frame that was given every input's
/// placement (a jitted function's) and has captured no outer values, whose
/// placements it would not know.
pub fn placement_known(t: &Tracer) -> bool {
    STACK.with(|s| {
        s.borrow()
            .get(t.level)
            .is_some_and(|f| !f.eager && !f.placements.is_empty() && f.captured.is_empty())
    })
}

/// [`trace`] of a jitted function whose inputs live at `placements` (one
/// per input), which [`tracer_placement`] reads.
pub fn trace_placed<F>(
    in_avals: &[Aval],
    placements: Vec<Option<Arc<Placement>>>,
    f: F,
) -> Result<Traced>
where
    F: FnOnce(&[Value]) -> Result<Vec<Value>>,
{
    let known = vec![None; in_avals.len()];
    trace_frame(
        in_avals,
        &known,
        FrameAxes::default(),
        false,
        placements,
        None,
        f,
    )
}

/// Traces `f` on arguments shaped like `args`. When `args` all have values
/// and every active frame is eager (or none is active), the frame is eager:
/// its tracers carry values, as JAX's JVP tracers do outside `jit`, so `f`
/// may branch on them. Otherwise this is [`trace`] with no new axes.
pub fn trace_values<F>(args: &[Value], f: F) -> Result<Traced>
where
    F: FnOnce(&[Value]) -> Result<Vec<Value>>,
{
    let avals: Vec<Aval> = args.iter().map(|a| a.aval()).collect();
    let known: Vec<Option<Array>> = args.iter().map(known_value).collect();
    let outer_eager = STACK.with(|s| s.borrow().last().is_none_or(|f| f.eager));
    let eager = outer_eager && known.iter().all(|k| k.is_some());
    // The arguments keep their shardings in the new trace (a grad inside
    // jit sees the jitted function's placed inputs).
    let placements: Vec<Option<Arc<Placement>>> = args
        .iter()
        .map(|a| match a {
            Value::Concrete(c) => Ok(c.placement_rc()),
            Value::Traced(t) => tracer_placement(t),
        })
        .collect::<Result<_>>()?;
    trace_frame(
        &avals,
        &known,
        FrameAxes::default(),
        eager,
        placements,
        None,
        f,
    )
}

fn trace_frame<F>(
    in_avals: &[Aval],
    known: &[Option<Array>],
    axes: FrameAxes,
    eager: bool,
    placements: Vec<Option<Arc<Placement>>>,
    devices: Option<Arc<DeviceInputs>>,
    f: F,
) -> Result<Traced>
where
    F: FnOnce(&[Value]) -> Result<Vec<Value>>,
{
    let level = STACK.with(|s| {
        let mut stack = s.borrow_mut();
        stack.push(Frame {
            axes,
            eager,
            avals: vec![],
            invars: vec![],
            eqns: vec![],
            captured: vec![],
            captured_index: HashMap::new(),
            placements,
            devices,
            debug: None,
            ref_policy: refs::RefPolicy::default(),
            lifted: vec![],
            arg_refs: None,
        });
        stack.len() - 1
    });
    // Pops the frame however `f` exits, so an error leaves the stack as it
    // was and the refs it lifted hold their outer values again.
    struct Pop;
    impl Drop for Pop {
        fn drop(&mut self) {
            let frame = STACK.with(|s| s.borrow_mut().pop());
            if let Some(frame) = frame {
                refs::finish(frame.lifted);
            }
        }
    }
    let _pop = Pop;
    let args: Vec<Value> = STACK.with(|s| {
        let mut stack = s.borrow_mut();
        let frame = &mut stack[level];
        in_avals
            .iter()
            .zip(known)
            .map(|(a, k)| {
                let var = frame.new_var(a.clone());
                frame.invars.push(var);
                Value::Traced(Tracer {
                    level,
                    var,
                    aval: a.clone(),
                    known: k.clone(),
                })
            })
            .collect()
    });
    let outs = f(&args)?;
    close_frame(level, &outs)
}

/// The jaxpr of the frame at `level` with outputs `outs`: its inputs are
/// the arguments, then the captured outer values, then the refs it lifted
/// (whose last values are extra outputs).
fn close_frame(level: usize, outs: &[Value]) -> Result<Traced> {
    STACK.with(|s| {
        let mut stack = s.borrow_mut();
        let lifted = std::mem::take(&mut stack[level].lifted);
        let ref_vars: Vec<Var> = lifted.iter().map(|l| l.var).collect();
        let finished = refs::finish(lifted);
        let written: Vec<bool> = finished
            .iter()
            .zip(&ref_vars)
            .map(|((_, last), var)| !is_var(last, level, *var))
            .collect();
        let mut outvars: Vec<Atom> = outs
            .iter()
            .map(|v| to_atom(&mut stack, level, v))
            .collect::<Result<_>>()?;
        for (_, last) in &finished {
            outvars.push(to_atom(&mut stack, level, last)?);
        }
        let frame = &mut stack[level];
        let mut invars = std::mem::take(&mut frame.invars);
        let mut order: Vec<(&(usize, Var), &Var)> = frame.captured_index.iter().collect();
        order.sort_by_key(|(_, v)| **v);
        invars.extend(order.iter().map(|(_, v)| **v));
        invars.extend(ref_vars);
        Ok(Traced {
            jaxpr: Jaxpr {
                avals: std::mem::take(&mut frame.avals),
                invars,
                eqns: std::mem::take(&mut frame.eqns),
                outvars,
            },
            captured: std::mem::take(&mut frame.captured),
            refs: finished.into_iter().map(|(slot, _)| slot).collect(),
            refs_written: written,
        })
    })
}

/// Whether `v` is the variable `var` of the frame at `level`.
pub fn is_var(v: &Value, level: usize, var: Var) -> bool {
    matches!(v, Value::Traced(t) if t.level == level && t.var == var)
}

/// Evaluates a jaxpr by binding each equation: under a trace this inlines the
/// jaxpr into the current one; with no trace it computes.
pub fn eval_jaxpr(jaxpr: &Jaxpr, args: &[Value]) -> Result<Vec<Value>> {
    let mut env: HashMap<Var, Value> = HashMap::new();
    jaxpr.check_arity(args.len())?;
    for (v, a) in jaxpr.invars.iter().zip(args) {
        env.insert(*v, a.clone());
    }
    let read = |env: &HashMap<Var, Value>, a: &Atom| match a {
        Atom::Var(v) => env[v].clone(),
        Atom::Lit(x) => Value::Concrete(x.clone()),
    };
    for eqn in &jaxpr.eqns {
        let ins: Vec<Value> = eqn.inputs.iter().map(|a| read(&env, a)).collect();
        // Inlined, an equation keeps the name it was called as.
        let outs = at_source(eqn, || {
            called_as::again(eqn.called_as.as_deref(), || bind(eqn.prim.clone(), &ins))
        })?;
        for (v, o) in eqn.outputs.iter().zip(outs) {
            env.insert(*v, o);
        }
    }
    Ok(jaxpr.outvars.iter().map(|a| read(&env, a)).collect())
}
