//! Where a traced value came from, for the paragraph JAX adds to an error
//! about a tracer that Python needed as a concrete value.
//!
//! A function traced for jit names itself on its frame ([`set_debug_info`]):
//! its name, file and first line, and the names of its flat arguments. When
//! Python then asks a tracer of that frame for its value (`if x < 3:`), the
//! error says which function was being traced and why the value is not
//! known: it depends on these arguments (found by walking the frame's
//! equations back from the tracer), or, when it depends on none, it was made
//! by operations on constants on these lines. The text follows JAX's.

use std::collections::HashSet;
use std::sync::Arc;

use super::{Frame, Tracer, STACK};
use crate::ir::{Atom, Eqn, Jaxpr, Var};

/// What a frame's function is, as JAX's debug info has it.
#[derive(Debug, Clone)]
pub struct DebugInfo {
    /// `f at /path/prog.py:12`, or the bare name when the function has no
    /// source (a builtin, a callable object).
    pub func_src_info: String,
    /// The transformation it is traced for (`jit`).
    pub traced_for: &'static str,
    /// The flat arguments' names, in the order of the frame's inputs:
    /// `x`, `params['w']`.
    pub arg_names: Vec<String>,
}

/// Names the innermost frame's function: tracers of that frame explain
/// themselves by it when Python needs their value.
pub fn set_debug_info(info: DebugInfo) {
    STACK.with(|s| {
        if let Some(f) = s.borrow_mut().last_mut() {
            f.debug = Some(Arc::new(info));
        }
    });
}

/// JAX shows at most this many operations that made a value from constants.
const MAX_OPERATIONS: usize = 5;

/// The paragraph (with its leading newline) that explains where `t` came
/// from, or nothing when its frame has no debug info.
pub fn origin_text(t: &Tracer) -> String {
    let found = STACK.with(|s| {
        let stack = s.try_borrow().ok()?;
        let frame = stack.get(t.level)?;
        match frame.debug.clone() {
            Some(debug) => Some(Ok((debug, progenitors(frame, t.var)))),
            None if frame.axes.vmapped => batch_origin(frame, t).map(Err),
            None => None,
        }
    });
    let (debug, (invars, operations)) = match found {
        Some(Ok(found)) => found,
        Some(Err(batched)) => return batched,
        None => return String::new(),
    };
    let mut text = format!(
        "The error occurred while tracing the function {} for {}. ",
        debug.func_src_info, debug.traced_for
    );
    if !invars.is_empty() {
        let names: Vec<&str> = invars
            .iter()
            .map(|&i| debug.arg_names.get(i).map_or("unknown", String::as_str))
            .collect();
        let listed = match names.as_slice() {
            [one] => format!("the argument {one}"),
            [a, b] => format!("the arguments {a} and {b}"),
            [rest @ .., last] => format!("the arguments {}, and {last}", rest.join(", ")),
            [] => String::new(),
        };
        let plural = if names.len() > 1 { "s" } else { "" };
        text.push_str(&format!(
            "This concrete value was not available in Python because it depends on the \
             value{plural} of {listed}."
        ));
    } else if !operations.is_empty() {
        let shown: Vec<String> = operations.iter().take(MAX_OPERATIONS).cloned().collect();
        text.push_str("This value became a tracer due to JAX operations on these lines:\n\n");
        text.push_str(&shown.join("\n\n"));
        if operations.len() > MAX_OPERATIONS {
            text.push_str("\n\n(Additional originating lines are not shown.)");
        }
    }
    format!("\n{text}")
}

/// What JAX says of a value of a vmapped function: the line of the
/// operation that made it (nothing for an input of the function). Python
/// names objects by their address; shardlab's tracers have none, so the id
/// is made from the trace level and the variable (stable within a run).
fn batch_origin(frame: &Frame, t: &Tracer) -> Option<String> {
    let eqn = frame.eqns.iter().find(|e| e.outputs.contains(&t.var))?;
    let source = eqn.source.as_ref()?;
    let id = 140_000_000_000_000_u64 + ((t.level as u64) << 32) + 48 * u64::from(t.var.0);
    Some(format!(
        "\nThis BatchTracer with object id {id} was created on line:\n  {}",
        source.summarize()
    ))
}

/// The positions of the frame's inputs that `var` depends on, and (as JAX
/// lists them) the frame's equations that read a constant: a scalar literal
/// anywhere, or an array closed over on the way to `var`.
fn progenitors(frame: &Frame, var: Var) -> (Vec<usize>, Vec<String>) {
    let mut active: HashSet<Var> = HashSet::from([var]);
    let mut ancestors: HashSet<usize> = HashSet::new();
    for (i, eqn) in frame.eqns.iter().enumerate().rev() {
        if eqn.outputs.iter().any(|o| active.remove(o)) {
            ancestors.insert(i);
            active.extend(eqn.inputs.iter().filter_map(|a| match a {
                Atom::Var(v) => Some(*v),
                Atom::Lit(_) => None,
            }));
        }
    }
    let invars = (0..frame.invars.len())
        .filter(|&i| active.contains(&frame.invars[i]))
        .collect();
    let captured: HashSet<Var> = frame.captured_index.values().copied().collect();
    let operations = frame
        .eqns
        .iter()
        .enumerate()
        .filter(|(i, eqn)| {
            eqn.inputs.iter().any(|a| match a {
                Atom::Lit(x) => x.ndim() == 0 || ancestors.contains(i),
                Atom::Var(v) => captured.contains(v) && active.contains(v),
            })
        })
        .map(|(_, eqn)| operation_text(frame, eqn))
        .collect();
    (invars, operations)
}

/// One operation as JAX lists it: the equation alone, then its position.
fn operation_text(frame: &Frame, eqn: &Eqn) -> String {
    let alone = Jaxpr {
        avals: frame.avals.clone(),
        invars: vec![],
        eqns: vec![],
        outvars: vec![],
    };
    let at = eqn
        .source
        .as_ref()
        .map_or_else(|| "unknown".to_string(), |s| s.summarize());
    format!(
        "  operation {}\n    from line {at}",
        crate::ir::equation_text(&alone, eqn)
    )
}
