//! The `warnings` module as CPython 3.11 behaves: `warn`, the filters
//! (`filterwarnings`, `simplefilter`, `resetwarnings`), `catch_warnings`
//! (restoring the filters, and recording with `record=True`) and
//! `formatwarning`; libraries warn through [`warn`].
//!
//! A warning is attributed to a line (`stacklevel` walks out through the
//! running functions), the first filter that matches its text, category,
//! module and line decides what happens, and the default action prints it
//! once per place to stderr as `FILE:LINE: Category: text` followed by the
//! source line. CPython's default filters show a `DeprecationWarning` only
//! when the code that triggered it is `__main__`'s, which is every line of a
//! shardlab program, and ignore pending-deprecation, import and resource
//! warnings. Changing the filters forgets which places have warned, as
//! CPython's registry version does. Filters and what has been shown are run
//! state.

use std::collections::HashSet;
use std::rc::Rc;

use crate::bail;
use crate::error::Result;
use crate::python::interp::Interp;
use crate::python::ops::{getattr, setattr, truthy};
use crate::python::value::{Args, Class, Obj};

use super::super::Builder;
use super::refuse;

/// What a filter does with the warnings it matches.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Action {
    Default,
    Error,
    Ignore,
    Always,
    Module,
    Once,
}

impl Action {
    fn parse(s: &str) -> Result<Action> {
        Ok(match s {
            "default" => Action::Default,
            "error" => Action::Error,
            "ignore" => Action::Ignore,
            "always" => Action::Always,
            "module" => Action::Module,
            "once" => Action::Once,
            other => bail!(
                AssertionError,
                "invalid action: {}",
                crate::python::format::str_repr(other)
            ),
        })
    }
}

/// One entry of `warnings.filters`.
#[derive(Clone)]
struct Filter {
    action: Action,
    /// A regular expression the text must match at its start (ignoring case).
    message: Option<String>,
    /// The category class, or a name resolved from the builtins.
    category: String,
    /// A regular expression the start of the module name must match
    /// (`filterwarnings`), or with `exact_module` the module's name itself
    /// (CPython's default filters hold a name, not a pattern).
    module: Option<String>,
    exact_module: bool,
    /// 0 for any line.
    lineno: usize,
}

/// The run's filters and what has been shown.
#[derive(Default)]
struct Registry {
    /// None until first used: then CPython's defaults.
    filters: Option<Vec<Filter>>,
    /// `(text, category, line)` of the places that have warned.
    shown: HashSet<(String, String, usize)>,
    /// `(text, category)` of `once` warnings shown.
    once: HashSet<(String, String)>,
    /// The filters (and recording list) `catch_warnings` blocks saved.
    saved: Vec<(Vec<Filter>, Option<Obj>)>,
    /// The list `catch_warnings(record=True)` appends to, instead of printing.
    record: Option<Obj>,
}

fn defaults() -> Vec<Filter> {
    let f = |action, category: &str, module: Option<&str>| Filter {
        action,
        message: None,
        category: category.into(),
        module: module.map(String::from),
        exact_module: true,
        lineno: 0,
    };
    vec![
        f(Action::Default, "DeprecationWarning", Some("__main__")),
        f(Action::Ignore, "DeprecationWarning", None),
        f(Action::Ignore, "PendingDeprecationWarning", None),
        f(Action::Ignore, "ImportWarning", None),
        f(Action::Ignore, "ResourceWarning", None),
    ]
}

fn filters(interp: &mut Interp) -> &mut Vec<Filter> {
    interp
        .state::<Registry>()
        .filters
        .get_or_insert_with(defaults)
}

/// The `warnings` module.
pub fn module() -> Obj {
    Builder::new("warnings")
        .func("warn", warn_fn)
        .func("filterwarnings", filterwarnings)
        .func("simplefilter", simplefilter)
        .func("resetwarnings", |i, _| {
            let r = i.state::<Registry>();
            r.filters = Some(vec![]);
            r.shown.clear();
            Ok(Obj::None)
        })
        .func("formatwarning", |i, a| {
            let message = a.req(Some(0), "message", "formatwarning")?;
            let category = a.req(Some(1), "category", "formatwarning")?;
            let filename = a.req(Some(2), "filename", "formatwarning")?;
            let lineno =
                crate::python::builtins::to_int(&a.req(Some(3), "lineno", "formatwarning")?)?;
            let text = i.str(&message)?;
            let name = class_name(&category);
            Ok(Obj::str(format!(
                "{}:{lineno}: {name}: {text}\n",
                i.str(&filename)?
            )))
        })
        .func("warn_explicit", |_, _| {
            Err(refuse("warnings.warn_explicit"))
        })
        .func("showwarning", |_, _| Err(refuse("warnings.showwarning")))
        .attr("catch_warnings", catch_warnings())
        .build()
}

fn class_name(o: &Obj) -> String {
    match o {
        Obj::Class(c) => c.name.clone(),
        other => other.type_name(),
    }
}

/// A category given as an argument: a class deriving from `Warning`.
fn category_arg(interp: &Interp, o: Option<Obj>) -> Result<Rc<Class>> {
    match o {
        None | Some(Obj::None) => builtin_class(interp, "UserWarning"),
        Some(Obj::Class(c)) if derives_from(&c, "Warning") => Ok(c),
        Some(other) => bail!(
            TypeError,
            "category must be a Warning subclass, not '{}'",
            other.type_name()
        ),
    }
}

fn builtin_class(interp: &Interp, name: &str) -> Result<Rc<Class>> {
    match interp.builtins.get(name) {
        Some(Obj::Class(c)) => Ok(c.clone()),
        _ => bail!(RuntimeError, "the builtin class {name} is missing"),
    }
}

fn derives_from(c: &Rc<Class>, name: &str) -> bool {
    c.name == name || c.bases.iter().any(|b| derives_from(b, name))
}

/// `warn(message, category=None, stacklevel=1, source=None)`.
fn warn_fn(interp: &mut Interp, a: Args) -> Result<Obj> {
    let message = a.req(Some(0), "message", "warn")?;
    let level = match a.get(Some(2), "stacklevel") {
        Some(o) => crate::python::builtins::to_int(&o)?.max(1) as usize,
        None => 1,
    };
    // A Warning instance is its own category.
    let (category, text) = match &message {
        Obj::Instance(inst) if derives_from(&inst.class, "Warning") => {
            (inst.class.clone(), interp.str(&message)?)
        }
        _ => (
            category_arg(interp, a.get(Some(1), "category"))?,
            interp.str(&message)?,
        ),
    };
    let instance = match &message {
        Obj::Instance(_) => message.clone(),
        _ => interp.call(
            &Obj::Class(category.clone()),
            Args::new(vec![Obj::str(&text)]),
        )?,
    };
    issue(interp, &category, &text, instance, Place::Program(level))?;
    Ok(Obj::None)
}

/// Where a warning is attributed.
#[derive(Clone, Copy)]
pub enum Place {
    /// The program's frame `stacklevel` levels out (1: the running line).
    Program(usize),
    /// A line of a library module's own code (a warning a library issues
    /// from its internals, which CPython's default filters hide when it is
    /// a DeprecationWarning): the module's dotted name and the line.
    Library(&'static str, usize),
}

/// Issues a warning of the builtin `category` with `text`, attributed to
/// `place`: `Place::Program(1)` for a library function called by the
/// running line (as a Python library warns with `stacklevel=2`).
pub fn warn(interp: &mut Interp, category: &str, text: &str, place: Place) -> Result<()> {
    let class = builtin_class(interp, category)?;
    let instance = interp.call(&Obj::Class(class.clone()), Args::new(vec![Obj::str(text)]))?;
    issue(interp, &class, text, instance, place)
}

fn issue(
    interp: &mut Interp,
    category: &Rc<Class>,
    text: &str,
    instance: Obj,
    place: Place,
) -> Result<()> {
    // Past the outermost frame CPython names the `sys` module, line 1.
    let (file, line, module) = match place {
        Place::Program(level) => match interp.line_at_level(level) {
            Some(line) => (crate::trace::program_file().to_string(), line, "__main__"),
            None => ("sys".to_string(), 1, "sys"),
        },
        Place::Library(module, line) => (format!("{}.py", module.replace('.', "/")), line, module),
    };
    let key = (text.to_string(), category.name.clone(), line);
    if interp.state::<Registry>().shown.contains(&key) {
        return Ok(());
    }
    let action = match first_match(interp, category, text, module, line)? {
        Some(a) => a,
        None => Action::Default,
    };
    let registry = interp.state::<Registry>();
    match action {
        Action::Ignore => return Ok(()),
        Action::Error => return Err(interp.raise(instance)?),
        Action::Once => {
            registry.shown.insert(key);
            if !registry
                .once
                .insert((text.to_string(), category.name.clone()))
            {
                return Ok(());
            }
        }
        Action::Module => {
            registry.shown.insert(key);
            if !registry
                .shown
                .insert((text.to_string(), category.name.clone(), 0))
            {
                return Ok(());
            }
        }
        Action::Default => {
            registry.shown.insert(key);
        }
        Action::Always => {}
    }
    if let Some(list) = interp.state::<Registry>().record.clone() {
        let entry = record_entry(interp, instance, category, &file, line)?;
        if let Obj::List(l) = list {
            l.borrow_mut().push(entry);
        }
        return Ok(());
    }
    let source = match module {
        "__main__" => interp.lines.line_text(line).map(|l| l.trim().to_string()),
        _ => None,
    };
    let mut shown = format!("{file}:{line}: {}: {text}\n", category.name);
    if let Some(source) = source.filter(|s| !s.is_empty()) {
        shown.push_str(&format!("  {source}\n"));
    }
    interp.write_stderr(&shown)
}

/// The action of the first filter that matches, if any.
fn first_match(
    interp: &mut Interp,
    category: &Rc<Class>,
    text: &str,
    module: &str,
    line: usize,
) -> Result<Option<Action>> {
    let list = filters(interp).clone();
    for f in list {
        let matches = derives_from(category, &f.category)
            && (f.lineno == 0 || f.lineno == line)
            && match &f.message {
                Some(p) => regex_matches(interp, p, text, true)?,
                None => true,
            }
            && match &f.module {
                Some(p) if f.exact_module => p == module,
                // Letters, digits and underscores match themselves: no
                // regular expression engine needed.
                Some(p) if p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') => {
                    module.starts_with(p.as_str())
                }
                Some(p) => regex_matches(interp, p, module, false)?,
                None => true,
            };
        if matches {
            return Ok(Some(f.action));
        }
    }
    Ok(None)
}

/// Python's `re.match(pattern, text)`, ignoring case when asked.
fn regex_matches(
    interp: &mut Interp,
    pattern: &str,
    text: &str,
    ignore_case: bool,
) -> Result<bool> {
    // Filters come from this module's functions, which an engine without
    // the standard modules (Cargo feature `stdlib`) does not have; the gate
    // keeps the regex crate out of that engine.
    if !cfg!(feature = "stdlib") {
        return Err(crate::modules::left_out("stdlib", "re"));
    }
    let re = super::re::module();
    let matcher = getattr(interp, &re, "match")?;
    let mut args = Args::new(vec![Obj::str(pattern), Obj::str(text)]);
    if ignore_case {
        args.kw.push(("flags".into(), Obj::Int(2)));
    }
    let m = interp.call(&matcher, args)?;
    Ok(!matches!(m, Obj::None))
}

/// A `WarningMessage` as `catch_warnings(record=True)` lists it.
fn record_entry(
    interp: &mut Interp,
    message: Obj,
    category: &Rc<Class>,
    file: &str,
    line: usize,
) -> Result<Obj> {
    let class = Obj::Class(Rc::new(Class::new("WarningMessage", vec![], vec![])));
    let entry = interp.call(&class, Args::default())?;
    setattr(&entry, "message", message)?;
    setattr(&entry, "category", Obj::Class(category.clone()))?;
    setattr(&entry, "filename", Obj::str(file))?;
    setattr(&entry, "lineno", Obj::Int(line as i64))?;
    for absent in ["file", "line", "source"] {
        setattr(&entry, absent, Obj::None)?;
    }
    Ok(entry)
}

/// The filter that `filterwarnings`/`simplefilter` arguments describe, put
/// first (or last with `append=True`).
fn add_filter(interp: &mut Interp, filter: Filter, append: bool) {
    let list = filters(interp);
    list.retain(|f| {
        !(f.action == filter.action
            && f.message == filter.message
            && f.category == filter.category
            && f.module == filter.module
            && f.exact_module == filter.exact_module
            && f.lineno == filter.lineno)
    });
    if append {
        list.push(filter);
    } else {
        list.insert(0, filter);
    }
    interp.state::<Registry>().shown.clear();
}

fn text_arg(interp: &mut Interp, o: Option<Obj>) -> Result<Option<String>> {
    match o {
        None | Some(Obj::None) => Ok(None),
        Some(o) => Ok(Some(interp.str(&o)?).filter(|s| !s.is_empty())),
    }
}

fn filter_category(o: Option<Obj>) -> Result<String> {
    match o {
        None | Some(Obj::None) => Ok("Warning".into()),
        Some(Obj::Class(c)) => Ok(c.name.clone()),
        Some(other) => bail!(
            AssertionError,
            "category must be a class, not '{}'",
            other.type_name()
        ),
    }
}

fn lineno_arg(o: Option<Obj>) -> Result<usize> {
    match o {
        None => Ok(0),
        Some(o) => Ok(crate::python::builtins::to_int(&o)?.max(0) as usize),
    }
}

/// `filterwarnings(action, message='', category=Warning, module='', lineno=0, append=False)`.
fn filterwarnings(interp: &mut Interp, a: Args) -> Result<Obj> {
    let action = Action::parse(&interp.str(&a.req(Some(0), "action", "filterwarnings")?)?)?;
    let filter = Filter {
        action,
        message: text_arg(interp, a.get(Some(1), "message"))?,
        category: filter_category(a.get(Some(2), "category"))?,
        module: text_arg(interp, a.get(Some(3), "module"))?,
        exact_module: false,
        lineno: lineno_arg(a.get(Some(4), "lineno"))?,
    };
    let append = match a.get(Some(5), "append") {
        Some(o) => truthy(&o, "append")?,
        None => false,
    };
    add_filter(interp, filter, append);
    Ok(Obj::None)
}

/// `simplefilter(action, category=Warning, lineno=0, append=False)`.
fn simplefilter(interp: &mut Interp, a: Args) -> Result<Obj> {
    let action = Action::parse(&interp.str(&a.req(Some(0), "action", "simplefilter")?)?)?;
    let filter = Filter {
        action,
        message: None,
        category: filter_category(a.get(Some(1), "category"))?,
        module: None,
        exact_module: false,
        lineno: lineno_arg(a.get(Some(2), "lineno"))?,
    };
    let append = match a.get(Some(3), "append") {
        Some(o) => truthy(&o, "append")?,
        None => false,
    };
    add_filter(interp, filter, append);
    Ok(Obj::None)
}

/// `catch_warnings(*, record=False, action=None, category=Warning, lineno=0,
/// append=False)`: the block's filter changes end with it.
fn catch_warnings() -> Obj {
    let init = Obj::native("catch_warnings.__init__", |_, a| {
        let this = a.req(Some(0), "self", "catch_warnings")?;
        for key in ["record", "action", "category", "lineno", "append", "module"] {
            setattr(
                &this,
                &format!("_{key}"),
                a.get(None, key).unwrap_or(Obj::None),
            )?;
        }
        Ok(Obj::None)
    });
    let enter = Obj::native("catch_warnings.__enter__", |i, a| {
        let this = a.req(Some(0), "self", "catch_warnings")?;
        if !matches!(getattr(i, &this, "_module")?, Obj::None) {
            return Err(refuse("warnings.catch_warnings(module=...)"));
        }
        let saved = filters(i).clone();
        let previous = i.state::<Registry>().record.clone();
        i.state::<Registry>().saved.push((saved, previous));
        let action = getattr(i, &this, "_action")?;
        if !matches!(action, Obj::None) {
            let mut args = Args::new(vec![action]);
            for key in ["category", "lineno", "append"] {
                let v = getattr(i, &this, &format!("_{key}"))?;
                if !matches!(v, Obj::None) {
                    args.kw.push((key.into(), v));
                }
            }
            simplefilter(i, args)?;
        }
        let record = getattr(i, &this, "_record")?;
        if truthy(&record, "record")? {
            let list = Obj::list(vec![]);
            i.state::<Registry>().record = Some(list.clone());
            return Ok(list);
        }
        Ok(Obj::None)
    });
    let exit = Obj::native("catch_warnings.__exit__", |i, _| {
        let registry = i.state::<Registry>();
        if let Some((filters, record)) = registry.saved.pop() {
            registry.filters = Some(filters);
            registry.record = record;
            registry.shown.clear();
        }
        Ok(Obj::Bool(false))
    });
    let attrs = vec![
        ("__init__".to_string(), init),
        ("__enter__".to_string(), enter),
        ("__exit__".to_string(), exit),
    ];
    Obj::Class(Rc::new(Class::new("catch_warnings", vec![], attrs)))
}
