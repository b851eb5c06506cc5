//! The Python interpreter core: runs program text on shardlab's engine.
//!
//! [`run`] parses a program with `rustpython-parser`, interprets it with a
//! tree-walking interpreter, and returns what the program printed, its global
//! `result`, or the exception it raised with the line and column where it was
//! raised. The core knows Python's own types, the engine's arrays and nothing
//! else: the importable modules (`jax`, `numpy`, `flax`, `optax`, the standard
//! modules) live in `crate::modules` and reach the core through two traits,
//! [`import::Library`] (import by name) and [`object::Object`] (the behaviour
//! of the objects they define). This module never names them.

pub mod advanced_index;
pub mod array;
pub mod budget;
pub mod builtin_base;
pub mod builtins;
pub mod bytes;
pub mod classes;
pub mod complex;
pub mod cycles;
pub mod depth;
pub mod dict;
pub mod dunder;
pub mod exceptions;
pub mod format;
pub mod generators;
pub mod generic_alias;
pub mod import;
pub mod index_modes;
pub mod instance_dict;
pub mod interp;
pub mod iterators;
pub mod matching;
pub mod name_escape;
pub mod object;
pub mod ops;
pub mod parse;
pub mod pytree;
pub mod set;
pub use crate::ir::str_repr;
pub mod union;
pub mod value;

use std::rc::Rc;

use serde_json::json;

use crate::error::{Error, ErrorKind};
use crate::trace::Value;

pub use value::Obj;

/// How to run a program.
#[derive(Debug, Clone)]
pub struct Options {
    /// Devices `jax.devices()` reports.
    pub devices: usize,
    /// How maps run their devices: one thread each, all in one thread, or
    /// (the default) one thread each unless the map is tiny.
    pub mode: crate::exec::Mode,
    /// Statement and call budget.
    pub max_steps: u64,
    /// What the run polls to learn it was stopped from outside (a time
    /// limit, a cancel button).
    pub stop: Option<crate::exec::StopCheck>,
    /// What runs maps' devices in parallel, when not the native threads
    /// (the browser's worker pool).
    pub devices_backend: Option<std::sync::Arc<dyn crate::exec::Devices>>,
    /// The program's file, absolute as Python names a script's code
    /// (None for a program given as text).
    pub file: Option<String>,
    /// Where the run copies what it prints as it goes. A watcher that
    /// abandons a run stuck in one long step (past a time limit) still has
    /// what the program printed before it.
    pub printed: Option<Printed>,
}

/// What a watching thread sees of a run as it goes (see [`Options::printed`]).
#[derive(Debug, Default)]
pub struct Watched {
    /// The text printed so far.
    pub text: std::sync::Mutex<String>,
    /// What was written to stderr so far, as [`Outcome::stderr`] holds it.
    pub err: std::sync::Mutex<Vec<(usize, String)>>,
    /// One past the byte offset of the statement running now (0 before the
    /// first), so a run abandoned inside one long step names its line.
    pub at: std::sync::atomic::AtomicUsize,
}

/// A run's progress shared with a watching thread.
pub type Printed = std::sync::Arc<Watched>;

impl Default for Options {
    fn default() -> Options {
        Options {
            devices: 8,
            mode: crate::exec::Mode::Auto,
            max_steps: interp::DEFAULT_MAX_STEPS,
            stop: None,
            devices_backend: None,
            file: None,
            printed: None,
        }
    }
}

/// An exception that ended a program, with where it was raised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PyError {
    /// The exception.
    pub error: Error,
    /// 1-based line (0 when unknown).
    pub line: usize,
    /// 1-based column (0 when unknown).
    pub col: usize,
}

impl std::fmt::Display for PyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {} (line {}, col {})",
            self.error.type_name(),
            self.error.message,
            self.line,
            self.col
        )
    }
}

/// What a program did.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// Everything it printed.
    pub stdout: String,
    /// What it wrote to stderr (warnings), each write with the length
    /// `stdout` had when it was made, so a terminal can interleave them.
    pub stderr: Vec<(usize, String)>,
    /// Its global `result` as JSON (null when unset), when it finished.
    pub result: Option<serde_json::Value>,
    /// The exception that stopped it, if any.
    pub error: Option<PyError>,
}

/// Runs a program with the modules of `library`, watched by `observer`.
pub fn run(
    source: &str,
    options: &Options,
    library: Rc<dyn import::Library>,
    observer: Option<Rc<dyn crate::exec::run::Observer>>,
) -> Outcome {
    let mut config = crate::exec::Config {
        devices: options.devices,
        mode: options.mode,
        ..Default::default()
    };
    if let Some(backend) = &options.devices_backend {
        config.devices_backend = backend.clone();
    }
    let watcher = observer.clone();
    let run = crate::exec::run::Run::new(config)
        .stopped_by(options.stop)
        .observed_by(observer);
    // The run's context lives until everything the run made is freed.
    let _run = crate::exec::run::enter(run);
    depth::reset();
    crate::trace::set_file(options.file.as_deref());
    let lines = parse::Lines::new(source);
    let body = match parse::parse_program(source, &lines) {
        Ok(b) => b,
        Err(e) => {
            return Outcome {
                stdout: String::new(),
                stderr: vec![],
                result: None,
                error: Some(PyError {
                    error: e.error,
                    line: e.line,
                    col: e.col,
                }),
            }
        }
    };
    let mut it = interp::Interp::new(lines, library);
    it.max_steps = options.max_steps;
    it.printed = options.printed.clone();
    // A script knows its path; a program given as text does not.
    if let Some(file) = &options.file {
        let g = it.globals.clone();
        it.set_var(&g, "__file__", value::Obj::str(file));
    }
    let r = it.run_module(&body);
    let stdout = std::mem::take(&mut it.out);
    let r = match r {
        Err(e) if clean_exit(&mut it, &e) => Ok(()),
        other => other,
    };
    let mut outcome = outcome_of(&it, r, stdout);
    outcome.stderr = std::mem::take(&mut it.err);
    if let Some(w) = &watcher {
        w.arrays_named(&placed_globals(&it, source));
    }
    // Functions hold the scope they were defined in, and the globals hold
    // the functions: emptying the globals and every object that can close a
    // cycle frees the run's objects, so a reused worker stays flat.
    let globals = std::mem::take(&mut *it.globals.vars.borrow_mut());
    drop(globals);
    it.modules.clear();
    it.cycles.break_all();
    outcome
}

/// An array with the name the program reaches it by.
type Named = (String, crate::array::Array);

/// The program's top-level names bound to concrete arrays laid out over a
/// mesh (or to lists, tuples and dicts of them), ordered by where the
/// source first binds each name (the globals are a hash map, so they have
/// no order of their own).
fn placed_globals(it: &interp::Interp, source: &str) -> Vec<Named> {
    let vars = it.globals.vars.borrow();
    let mut found: Vec<(usize, &str, Vec<Named>)> = vec![];
    for (name, v) in vars.iter().filter(|(name, _)| !name.starts_with('_')) {
        let mut inside = vec![];
        placed_in(v, name, 2, &mut inside);
        if !inside.is_empty() {
            found.push((first_mention(source, name), name.as_str(), inside));
        }
    }
    found.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
    found
        .into_iter()
        .flat_map(|(_, _, inside)| inside)
        .collect()
}

/// The sharded arrays `v` holds, itself or (down `depth` more levels) as
/// items of a list, tuple or dict, named as the program would index them
/// (`params['w']`, `out[0]`).
fn placed_in(v: &value::Obj, name: &str, depth: usize, out: &mut Vec<Named>) {
    use value::Obj;
    let items: Vec<(String, Obj)> = match v {
        Obj::Array(Value::Concrete(a)) => {
            // A scalar inside a container (a loss in a list of losses) has
            // nothing to lay out and would only crowd the picture.
            let scalar_item = a.ndim() == 0 && name.ends_with(']');
            if !scalar_item && matches!(a.placement(), Some(crate::sharding::Placement::Named(_))) {
                out.push((name.to_string(), a.clone()));
            }
            return;
        }
        _ if depth == 0 => return,
        Obj::List(l) => indexed(name, l.borrow().iter()),
        Obj::Tuple(t) => indexed(name, t.iter()),
        Obj::Dict(d) => d
            .borrow()
            .items
            .iter()
            .filter_map(|(k, x)| match k {
                Obj::Str(key) => Some((format!("{name}['{key}']"), x.clone())),
                Obj::Int(i) => Some((format!("{name}[{i}]"), x.clone())),
                _ => None,
            })
            .collect(),
        _ => return,
    };
    for (n, x) in &items {
        placed_in(x, n, depth - 1, out);
    }
}

/// `name[0]`, `name[1]`, ... for the items of a list or tuple.
fn indexed<'a>(
    name: &str,
    items: impl Iterator<Item = &'a value::Obj>,
) -> Vec<(String, value::Obj)> {
    items
        .enumerate()
        .map(|(i, x)| (format!("{name}[{i}]"), x.clone()))
        .collect()
}

/// Where the program first binds `name`: the first line that starts with it
/// as a whole word (a top-level assignment), else its first whole-word
/// mention anywhere (a name bound in a loop header, say).
fn first_mention(source: &str, name: &str) -> usize {
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let mut anywhere = usize::MAX;
    for (i, _) in source.match_indices(name) {
        let before = source[..i].chars().next_back();
        if word(before) || word(source[i + name.len()..].chars().next()) {
            continue;
        }
        if before.is_none() || before == Some('\n') {
            return i;
        }
        anywhere = anywhere.min(i);
    }
    anywhere.saturating_add(source.len())
}

/// True for `sys.exit()`, `sys.exit(0)` and `sys.exit(None)`, which end a
/// program normally.
fn clean_exit(it: &mut interp::Interp, e: &crate::error::Error) -> bool {
    if e.type_name() != "SystemExit" {
        return false;
    }
    let exc = it.exception_object(e);
    matches!(
        exceptions::exception_args(&exc).first(),
        None | Some(value::Obj::None) | Some(value::Obj::Int(0))
    )
}

fn outcome_of(it: &interp::Interp, r: crate::error::Result<()>, stdout: String) -> Outcome {
    match r {
        Ok(()) => {
            let result = it.globals.vars.borrow().get("result").cloned();
            match result.map(|r| to_json(&r)).transpose() {
                Ok(v) => Outcome {
                    stdout,
                    stderr: vec![],
                    result: Some(v.unwrap_or(serde_json::Value::Null)),
                    error: None,
                },
                Err(e) => Outcome {
                    stdout,
                    stderr: vec![],
                    result: None,
                    error: Some(PyError {
                        error: e,
                        line: 0,
                        col: 0,
                    }),
                },
            }
        }
        Err(error) => {
            let (line, col) = it.err_loc.unwrap_or((0, 0));
            Outcome {
                stdout,
                stderr: vec![],
                result: None,
                error: Some(PyError { error, line, col }),
            }
        }
    }
}

fn f64_json(x: f64) -> serde_json::Value {
    serde_json::Number::from_f64(x)
        .map(serde_json::Value::Number)
        .unwrap_or_else(|| {
            json!(if x.is_nan() {
                "NaN"
            } else if x > 0.0 {
                "Infinity"
            } else {
                "-Infinity"
            })
        })
}

fn array_json(a: &crate::array::Array) -> serde_json::Value {
    fn rec(a: &crate::array::Array, shape: &[usize], offset: usize) -> serde_json::Value {
        if shape.is_empty() {
            let x = a.get_f64(offset);
            return match a.dtype() {
                crate::array::DType::Bool => json!(x != 0.0),
                d if d.is_float() => f64_json(x),
                d if d.is_int() => json!(x as i64),
                // Python's json cannot encode a complex; its str is what a
                // fixture holds for one.
                _ => json!(crate::array::format_numpy(&a.gather_flat(&[], &[offset]))),
            };
        }
        let inner: usize = shape[1..].iter().product();
        serde_json::Value::Array(
            (0..shape[0])
                .map(|i| rec(a, &shape[1..], offset + i * inner))
                .collect(),
        )
    }
    rec(a, a.shape(), 0)
}

/// The JSON form of a result: arrays as nested lists, tuples and lists as
/// lists, dicts as objects, numbers as numbers, None as null.
pub fn to_json(o: &Obj) -> crate::error::Result<serde_json::Value> {
    let _level = depth::enter()?;
    Ok(match o {
        Obj::None => serde_json::Value::Null,
        Obj::Bool(b) => json!(b),
        Obj::Int(i) => json!(i),
        Obj::Float(f) => f64_json(*f),
        Obj::Str(s) => json!(&**s),
        Obj::List(l) => serde_json::Value::Array(
            l.borrow()
                .iter()
                .map(to_json)
                .collect::<crate::error::Result<_>>()?,
        ),
        Obj::Tuple(t) => {
            serde_json::Value::Array(t.iter().map(to_json).collect::<crate::error::Result<_>>()?)
        }
        Obj::Dict(d) => {
            let mut m = serde_json::Map::new();
            for (k, v) in d.borrow().items.iter() {
                m.insert(format::str_of(k), to_json(v)?);
            }
            serde_json::Value::Object(m)
        }
        Obj::Array(Value::Concrete(a)) => array_json(a),
        Obj::Array(Value::Traced(_)) => {
            return Err(Error::new(ErrorKind::TypeError, "result is a traced value"));
        }
        // A library array (a NumPy array) is written as the array it holds.
        Obj::Lib(l) => match l.array(o) {
            Some(a) => to_json(&a)?,
            None => json!(format::str_of(o)),
        },
        other => json!(format::str_of(other)),
    })
}
