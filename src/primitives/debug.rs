//! `debug_print`: `jax.debug.print` staged into a traced program, so that
//! a jitted function prints its runtime values every time it runs rather
//! than its tracers once, when it is traced.
//!
//! The equation has no outputs. Its operands are the arguments that are
//! arrays (positional ones, then keyword ones by sorted name, as JAX
//! flattens them); string arguments stay in the parameters. Evaluating it
//! hands the parameters and the operands' values ([`Printed`]) to the
//! evaluator's [`Comm`](crate::exec::comm::Comm), which knows where a run's
//! output goes; the front end formats them with Python's `str.format`.

use std::sync::Arc;

use crate::array::Array;
use crate::error::Result;
use crate::ir::Aval;

/// One argument of the print, in the order the caller gave it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(target_arch = "wasm32", derive(serde::Serialize, serde::Deserialize))]
pub enum PrintArg {
    /// The next operand.
    Operand,
    /// A string, kept as it is.
    Text(String),
}

/// Parameters of a `debug_print` equation.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(target_arch = "wasm32", derive(serde::Serialize, serde::Deserialize))]
pub struct DebugPrintParams {
    /// The format string.
    pub fmt: String,
    /// The positional arguments.
    pub pos: Vec<PrintArg>,
    /// The keyword arguments, sorted by name.
    pub kw: Vec<(String, PrintArg)>,
    /// `ordered=True`: prints keep program order (shardlab runs every
    /// print in program order either way).
    pub ordered: bool,
    /// A `jax.debug.breakpoint()` rather than a print: it would stop the
    /// program for a debugger, which shardlab has not, so running it fails
    /// (a breakpoint in a branch that is not taken never runs).
    pub breakpoint: bool,
    /// A `jax.debug.callback` rather than a print: the front end's number
    /// for the Python function it calls with the arguments (a
    /// `debug_callback` equation; `fmt` is unused).
    pub callback: Option<u64>,
    /// A `jax.debug.inspect_array_sharding` rather than a print: the text
    /// of the Python function it names (an `inspect_sharding` equation,
    /// which does nothing when the program runs: the function was called
    /// when the program was compiled).
    pub inspect: Option<String>,
    /// A `checkify.check` rather than a print: operand 0 is the predicate
    /// and the others the message's arguments.
    #[cfg_attr(target_arch = "wasm32", serde(default))]
    pub check: Option<CheckMark>,
}

/// What marks a `debug_print` equation as a `checkify.check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(target_arch = "wasm32", derive(serde::Serialize, serde::Deserialize))]
pub struct CheckMark {
    /// `debug=True` (a `checkify.debug_check`, which does nothing unless
    /// checkified).
    pub debug: bool,
    /// The code the check got when it was traced: JAX numbers a check
    /// then, so a failed check outranks the automatic checks, which are
    /// numbered when the program is checkified.
    pub code: i32,
}

/// NumPy's print options as JAX records them (the defaults).
const NP_PRINTOPTIONS: &str = "(('edgeitems', 3), ('threshold', 1000), ('floatmode', 'maxprec'), ('precision', 8), ('suppress', False), ('linewidth', 75), ('nanstr', 'nan'), ('infstr', 'inf'), ('sign', '-'), ('formatter', None), ('legacy', False), ('override_repr', None))";

impl DebugPrintParams {
    /// A print of `fmt` with no arguments.
    pub fn new(fmt: &str) -> DebugPrintParams {
        DebugPrintParams {
            fmt: fmt.to_string(),
            pos: vec![],
            kw: vec![],
            ordered: false,
            breakpoint: false,
            callback: None,
            inspect: None,
            check: None,
        }
    }

    /// Whether the format's first piece is a replacement field, which is
    /// how JAX decides between `fmt.format(...)` and joining with spaces.
    pub fn has_placeholders(&self) -> bool {
        let b = self.fmt.as_bytes();
        let mut i = 0;
        while i < b.len() {
            match (b[i], b.get(i + 1)) {
                (b'{', Some(b'{')) | (b'}', Some(b'}')) => return false,
                (b'{', _) => return true,
                _ => i += 1,
            }
        }
        false
    }

    /// Parameters for the printer, as JAX 0.10.2 prints them.
    pub fn params(&self) -> Vec<(String, String)> {
        if let Some(mark) = self.check {
            let b = if mark.debug { "True" } else { "False" };
            return vec![("debug".into(), b.into())];
        }
        if let Some(f) = &self.inspect {
            return vec![("callback".into(), f.clone())];
        }
        if self.callback.is_some() {
            // JAX shows the function it wraps the callback in, at an
            // address of the run.
            let f = "<function debug_callback.<locals>._debug_callback.<locals>._flat_callback at 0x7f0000000000>";
            return vec![
                ("callback".into(), f.into()),
                ("effect".into(), "Debug".into()),
                ("partitioned".into(), "False".into()),
            ];
        }
        let tuple = |items: Vec<String>| match items.len() {
            1 => format!("({},)", items[0]),
            _ => format!("({})", items.join(", ")),
        };
        let pos = tuple(self.pos.iter().map(|_| "*".to_string()).collect());
        let kw: Vec<String> = self.kw.iter().map(|(k, _)| format!("'{k}': *")).collect();
        let in_tree = format!("PyTreeDef(({pos}, {{{}}}))", kw.join(", "));
        let all = self.pos.iter().chain(self.kw.iter().map(|(_, a)| a));
        let statics: Vec<String> = all
            .enumerate()
            .filter_map(|(i, a)| match a {
                PrintArg::Text(t) => Some(format!("({i}, {})", crate::ir::str_repr(t))),
                PrintArg::Operand => None,
            })
            .collect();
        let b = |v: bool| if v { "True" } else { "False" }.to_string();
        vec![
            ("fmt".into(), self.fmt.clone()),
            ("has_placeholders".into(), b(self.has_placeholders())),
            ("in_tree".into(), in_tree),
            ("logging_record".into(), "None".into()),
            ("np_printoptions".into(), NP_PRINTOPTIONS.into()),
            ("ordered".into(), b(self.ordered)),
            ("partitioned".into(), "False".into()),
            ("static_args".into(), tuple(statics)),
        ]
    }

    /// Shape rule: no outputs.
    pub fn abstract_eval(&self, _: &[Aval]) -> Result<Vec<Aval>> {
        Ok(vec![])
    }
}

/// One print of a run: the equation's parameters and its operands' values,
/// which the front end formats.
#[derive(Debug, Clone)]
pub struct Printed {
    /// What to print.
    pub params: Arc<DebugPrintParams>,
    /// The operands' values.
    pub args: Vec<Array>,
}
