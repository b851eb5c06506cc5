//! The `logging` module as CPython 3.11 behaves for the calls programs make:
//! named loggers in a dotted hierarchy under the root, levels, `basicConfig`,
//! `StreamHandler` / `NullHandler` / `Formatter`, and `%`-style messages.
//!
//! A record goes to the handlers of its logger and of every ancestor; with
//! none anywhere, CPython's last resort prints the bare message of a warning
//! or worse to stderr. The module-level functions (`logging.warning`, ...)
//! first give the root a stderr handler, as `basicConfig()` does. What a
//! handler writes to stderr goes to the run's stderr; a handler on
//! `sys.stdout` (or any object with `write`) writes there. Loggers and
//! handlers are run state.

use std::collections::HashMap;
use std::rc::Rc;

use crate::bail;
use crate::error::Result;
use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::ops::getattr;
use crate::python::value::{Args, Obj};

use super::super::Builder;
use super::refuse;

const LEVELS: [(&str, i64); 6] = [
    ("CRITICAL", 50),
    ("ERROR", 40),
    ("WARNING", 30),
    ("INFO", 20),
    ("DEBUG", 10),
    ("NOTSET", 0),
];

/// `logging.BASIC_FORMAT`.
const BASIC_FORMAT: &str = "%(levelname)s:%(name)s:%(message)s";

/// A handler: where records go and how they are formatted.
#[derive(Clone)]
struct Handler {
    /// What is written to: None for stderr.
    stream: Option<Obj>,
    /// None for a `NullHandler`, which writes nothing.
    format: Option<String>,
    level: i64,
}

/// The run's loggers: each one's level and handlers, by name ("root" for
/// the root logger), and the level `logging.disable` set.
#[derive(Default)]
struct Loggers {
    levels: HashMap<String, i64>,
    handlers: HashMap<String, Vec<Rc<std::cell::RefCell<Handler>>>>,
    disabled_up_to: i64,
}

/// The names from `name` up to the root: `a.b`, `a`, `root`.
fn ancestry(name: &str) -> Vec<String> {
    let mut out = vec![];
    if name != "root" {
        let mut n = name.to_string();
        loop {
            out.push(n.clone());
            match n.rfind('.') {
                Some(i) => n.truncate(i),
                None => break,
            }
        }
    }
    out.push("root".into());
    out
}

fn effective_level(interp: &mut Interp, name: &str) -> i64 {
    let l = interp.state::<Loggers>();
    ancestry(name)
        .iter()
        .find_map(|n| l.levels.get(n).copied().filter(|&v| v != 0))
        .unwrap_or(30)
}

fn level_name(level: i64) -> String {
    LEVELS
        .iter()
        .find(|(_, v)| *v == level)
        .map_or_else(|| format!("Level {level}"), |(n, _)| n.to_string())
}

/// A level given as a number or a name (`"INFO"`).
fn to_level(v: &Obj) -> Result<i64> {
    match v {
        Obj::Int(n) => Ok(*n),
        Obj::Bool(b) => Ok(*b as i64),
        Obj::Str(s) => match LEVELS.iter().find(|(n, _)| *n == &**s) {
            Some((_, v)) => Ok(*v),
            None => bail!(ValueError, "Unknown level: '{s}'"),
        },
        o => bail!(
            TypeError,
            "Level not an integer or a valid string: {}",
            crate::python::format::repr_of(o)
        ),
    }
}

/// `fmt % record` for the record fields shardlab knows; others refused.
fn format_record(fmt: &str, name: &str, level: i64, message: &str) -> Result<String> {
    let mut out = String::new();
    let mut rest = fmt;
    while let Some(i) = rest.find('%') {
        out.push_str(&rest[..i]);
        rest = &rest[i + 1..];
        if let Some(r) = rest.strip_prefix('%') {
            out.push('%');
            rest = r;
            continue;
        }
        let Some(r) = rest.strip_prefix('(') else {
            bail!(ValueError, "Invalid format '{fmt}' for '%' style");
        };
        let Some(close) = r.find(')') else {
            bail!(ValueError, "Invalid format '{fmt}' for '%' style");
        };
        let key = &r[..close];
        let spec_end = r[close + 1..]
            .find(|c: char| c.is_ascii_alphabetic())
            .map(|j| close + 1 + j)
            .ok_or_else(|| crate::err!(ValueError, "Invalid format '{fmt}' for '%' style"))?;
        let flags = &r[close + 1..spec_end];
        let value = match key {
            "name" => name.to_string(),
            "levelname" => level_name(level),
            "levelno" => level.to_string(),
            "message" => message.to_string(),
            _ => return Err(refuse(&format!("logging format field %({key})"))),
        };
        let width: usize = flags.trim_start_matches('-').parse().unwrap_or(0);
        let pad = width.saturating_sub(value.chars().count());
        if flags.starts_with('-') {
            out.push_str(&value);
            out.extend(std::iter::repeat_n(' ', pad));
        } else {
            out.extend(std::iter::repeat_n(' ', pad));
            out.push_str(&value);
        }
        rest = &r[spec_end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// The message of a call: `str(msg) % args` when there are args.
fn message(interp: &mut Interp, a: &Args, first: usize) -> Result<String> {
    let msg = a.req(Some(first), "msg", "log")?;
    let args: Vec<Obj> = a.pos.get(first + 1..).unwrap_or_default().to_vec();
    let text = interp.str(&msg)?;
    if args.is_empty() {
        return Ok(text);
    }
    let operand = match args.as_slice() {
        [d @ Obj::Dict(_)] => d.clone(),
        _ => Obj::tuple(args),
    };
    let op = rustpython_parser::ast::Operator::Mod;
    let formatted = interp.binop(&op, &Obj::str(text), &operand, false)?;
    interp.str(&formatted)
}

/// Logs one record at `level` on logger `name`.
fn log(interp: &mut Interp, name: &str, level: i64, a: &Args, first: usize) -> Result<()> {
    if a.get(None, "exc_info").is_some() || a.get(None, "stack_info").is_some() {
        return Err(refuse("logging with exc_info or stack_info"));
    }
    let disabled = interp.state::<Loggers>().disabled_up_to;
    if level <= disabled || level < effective_level(interp, name) {
        return Ok(());
    }
    let text = message(interp, a, first)?;
    let handlers: Vec<Handler> = {
        let l = interp.state::<Loggers>();
        ancestry(name)
            .iter()
            .flat_map(|n| l.handlers.get(n).cloned().unwrap_or_default())
            .map(|h| h.borrow().clone())
            .collect()
    };
    if handlers.is_empty() {
        // CPython's last resort: the bare message of a warning or worse to
        // stderr.
        if level >= 30 {
            interp.write_stderr(&format!("{text}\n"))?;
        }
        return Ok(());
    }
    for h in handlers.iter().filter(|h| level >= h.level) {
        let Some(fmt) = &h.format else {
            continue;
        };
        let line = format_record(fmt, name, level, &text)? + "\n";
        match &h.stream {
            Some(stream) => {
                let write = getattr(interp, stream, "write")?;
                interp.call(&write, Args::new(vec![Obj::str(line)]))?;
            }
            None => interp.write_stderr(&line)?,
        }
    }
    Ok(())
}

/// A stream a handler was given: `sys.stderr` and None mean stderr.
fn stream_of(v: Option<Obj>) -> Option<Obj> {
    match v {
        None | Some(Obj::None) => None,
        Some(o) if crate::python::format::repr_of(&o).contains("'<stderr>'") => None,
        Some(o) => Some(o),
    }
}

/// `logging.basicConfig(level=, format=, stream=, force=)`.
fn basic_config(interp: &mut Interp, a: Args) -> Result<Obj> {
    for (k, _) in &a.kw {
        if !matches!(
            k.as_str(),
            "level" | "format" | "stream" | "force" | "style"
        ) {
            return Err(refuse(&format!("logging.basicConfig({k}=...)")));
        }
    }
    if let Some(s) = a.get(None, "style") {
        if !matches!(&s, Obj::Str(x) if &**x == "%") {
            return Err(refuse("logging.basicConfig(style=...) other than '%'"));
        }
    }
    let force = match a.get(None, "force") {
        Some(f) => interp.truth(&f, "force")?,
        None => false,
    };
    let level = a.get(None, "level").map(|l| to_level(&l)).transpose()?;
    let fmt = match a.get(None, "format") {
        Some(f) => interp.str(&f)?,
        None => BASIC_FORMAT.to_string(),
    };
    let stream = stream_of(a.get(None, "stream"));
    let l = interp.state::<Loggers>();
    let root = l.handlers.entry("root".into()).or_default();
    if root.is_empty() || force {
        root.clear();
        root.push(Rc::new(std::cell::RefCell::new(Handler {
            stream,
            format: Some(fmt),
            level: 0,
        })));
        if let Some(level) = level {
            l.levels.insert("root".into(), level);
        }
    }
    Ok(Obj::None)
}

/// A logger object: a name; its state is the run's [`Loggers`].
struct Logger(String);

/// A handler object, shared with the loggers it was added to.
struct HandlerObj(Rc<std::cell::RefCell<Handler>>);

impl Object for HandlerObj {
    fn type_name(&self) -> String {
        match (&self.0.borrow().format, &self.0.borrow().stream) {
            (None, _) => "NullHandler".into(),
            _ => "StreamHandler".into(),
        }
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        let h = self.0.clone();
        Ok(match name {
            "setLevel" => Some(Obj::native("setLevel", move |_, a| {
                h.borrow_mut().level = to_level(&a.req(Some(0), "level", "setLevel")?)?;
                Ok(Obj::None)
            })),
            "setFormatter" => Some(Obj::native("setFormatter", move |_, a| {
                let f = a.req(Some(0), "fmt", "setFormatter")?;
                let Some(fmt) = f.downcast::<Formatter>().map(|f| f.0.clone()) else {
                    return Err(refuse("a logging formatter that is not logging.Formatter"));
                };
                let mut h = h.borrow_mut();
                if h.format.is_some() {
                    h.format = Some(fmt);
                }
                Ok(Obj::None)
            })),
            "level" => Some(Obj::Int(h.borrow().level)),
            _ => None,
        })
    }
}

/// `logging.Formatter(fmt)`.
struct Formatter(String);

impl Object for Formatter {
    fn type_name(&self) -> String {
        "Formatter".into()
    }
}

impl Object for Logger {
    fn type_name(&self) -> String {
        if self.0 == "root" {
            "RootLogger".into()
        } else {
            "Logger".into()
        }
    }

    fn getattr(&self, interp: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        let me = self.0.clone();
        let level_of = |n: &str| LEVELS.iter().find(|(l, _)| l.eq_ignore_ascii_case(n));
        Ok(Some(match name {
            "name" => Obj::str(me),
            "level" => Obj::Int(
                interp
                    .state::<Loggers>()
                    .levels
                    .get(&me)
                    .copied()
                    .unwrap_or(0),
            ),
            "debug" | "info" | "warning" | "warn" | "error" | "critical" | "fatal" => {
                let level = match name {
                    "warn" => 30,
                    "fatal" => 50,
                    n => level_of(n).map_or(0, |(_, v)| *v),
                };
                Obj::native(name.to_string(), move |i, a| {
                    log(i, &me, level, &a, 0).map(|_| Obj::None)
                })
            }
            "log" => Obj::native("log", move |i, a| {
                let level = to_level(&a.req(Some(0), "level", "log")?)?;
                log(i, &me, level, &a, 1).map(|_| Obj::None)
            }),
            "setLevel" => Obj::native("setLevel", move |i, a| {
                let level = to_level(&a.req(Some(0), "level", "setLevel")?)?;
                i.state::<Loggers>().levels.insert(me.clone(), level);
                Ok(Obj::None)
            }),
            "getEffectiveLevel" => Obj::native("getEffectiveLevel", move |i, _| {
                Ok(Obj::Int(effective_level(i, &me)))
            }),
            "isEnabledFor" => Obj::native("isEnabledFor", move |i, a| {
                let level = to_level(&a.req(Some(0), "level", "isEnabledFor")?)?;
                let off = i.state::<Loggers>().disabled_up_to >= level;
                Ok(Obj::Bool(!off && level >= effective_level(i, &me)))
            }),
            "addHandler" | "removeHandler" => {
                let add = name == "addHandler";
                Obj::native(name.to_string(), move |i, a| {
                    let h = a.req(Some(0), "hdlr", "addHandler")?;
                    let Some(h) = h.downcast::<HandlerObj>().map(|h| h.0.clone()) else {
                        return Err(refuse("a logging handler of this type"));
                    };
                    let list = i.state::<Loggers>().handlers.entry(me.clone()).or_default();
                    list.retain(|x| !Rc::ptr_eq(x, &h));
                    if add {
                        list.push(h);
                    }
                    Ok(Obj::None)
                })
            }
            "hasHandlers" => Obj::native("hasHandlers", move |i, _| {
                let l = i.state::<Loggers>();
                let any = ancestry(&me)
                    .iter()
                    .any(|n| l.handlers.get(n).is_some_and(|h| !h.is_empty()));
                Ok(Obj::Bool(any))
            }),
            "getChild" => Obj::native("getChild", move |_, a| {
                let suffix =
                    crate::python::format::str_of(&a.req(Some(0), "suffix", "getChild")?);
                let name = if me == "root" {
                    suffix
                } else {
                    format!("{me}.{suffix}")
                };
                Ok(Obj::lib(Logger(name)))
            }),
            "exception" => return Err(refuse("Logger.exception")),
            _ => return Ok(None),
        }))
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        // CPython names the effective level, which needs the run's state;
        // the logger's name is what identifies it.
        Some(format!("<{} {}>", self.type_name(), self.0))
    }
}

/// `logging.getLogger(name=None)`.
fn get_logger(_: &mut Interp, a: Args) -> Result<Obj> {
    let name = match a.opt(Some(0), "name") {
        None | Some(Obj::None) => "root".to_string(),
        Some(Obj::Str(s)) if s.is_empty() => "root".to_string(),
        Some(Obj::Str(s)) => s.to_string(),
        Some(_) => bail!(TypeError, "A logger name must be a string"),
    };
    Ok(Obj::lib(Logger(name)))
}

/// A module-level logging function: configures the root first if it has
/// no handler, as CPython does.
fn root_call(interp: &mut Interp, level: Option<i64>, a: Args) -> Result<Obj> {
    let root_has = interp
        .state::<Loggers>()
        .handlers
        .get("root")
        .is_some_and(|h| !h.is_empty());
    if !root_has {
        basic_config(interp, Args::new(vec![]))?;
    }
    match level {
        Some(level) => log(interp, "root", level, &a, 0)?,
        None => {
            let level = to_level(&a.req(Some(0), "level", "log")?)?;
            log(interp, "root", level, &a, 1)?
        }
    }
    Ok(Obj::None)
}

/// The `logging` module.
pub fn module() -> Obj {
    let mut b = Builder::new("logging");
    for (name, v) in LEVELS {
        b.attr(name, Obj::Int(v));
    }
    b.attr("WARN", Obj::Int(30))
        .attr("FATAL", Obj::Int(50))
        .attr("BASIC_FORMAT", Obj::str(BASIC_FORMAT));
    for (name, level) in [
        ("debug", 10),
        ("info", 20),
        ("warning", 30),
        ("warn", 30),
        ("error", 40),
        ("critical", 50),
        ("fatal", 50),
    ] {
        b.func(name, move |i, a| root_call(i, Some(level), a));
    }
    b.func("log", |i, a| root_call(i, None, a))
        .func("exception", |_, _| Err(refuse("logging.exception")))
        .func("basicConfig", basic_config)
        .func("getLogger", get_logger)
        .func("getLevelName", |_, a| {
            Ok(match a.req(Some(0), "level", "getLevelName")? {
                Obj::Int(n) => Obj::str(level_name(n)),
                Obj::Str(s) => match LEVELS.iter().find(|(n, _)| *n == &*s) {
                    Some((_, v)) => Obj::Int(*v),
                    None => Obj::str(format!("Level {s}")),
                },
                o => Obj::str(format!("Level {}", crate::python::format::str_of(&o))),
            })
        })
        .func("disable", |i, a| {
            let level = match a.opt(Some(0), "level") {
                Some(l) => to_level(&l)?,
                None => 50,
            };
            i.state::<Loggers>().disabled_up_to = level;
            Ok(Obj::None)
        })
        .func("StreamHandler", |_, a| {
            Ok(Obj::lib(HandlerObj(Rc::new(std::cell::RefCell::new(
                Handler {
                    stream: stream_of(a.opt(Some(0), "stream")),
                    format: Some("%(message)s".into()),
                    level: 0,
                },
            )))))
        })
        .func("NullHandler", |_, _| {
            Ok(Obj::lib(HandlerObj(Rc::new(std::cell::RefCell::new(
                Handler {
                    stream: None,
                    format: None,
                    level: 0,
                },
            )))))
        })
        .func("Formatter", |i, a| {
            if a.get(None, "datefmt").is_some() || a.pos.len() > 1 {
                return Err(refuse("logging.Formatter with a date format or style"));
            }
            let fmt = match a.opt(Some(0), "fmt") {
                None | Some(Obj::None) => "%(message)s".to_string(),
                Some(f) => i.str(&f)?,
            };
            Ok(Obj::lib(Formatter(fmt)))
        });
    b.build()
}
