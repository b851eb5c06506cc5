//! Exceptions: Python's builtin exception classes, raising and catching.
//!
//! Every builtin exception class (`Exception`, `ValueError`, ...) is a
//! [`Class`] made here, in CPython's hierarchy, carrying [`ExceptionKind`] as
//! its native behaviour: the engine's error kind it stands for, which every
//! subclass a program defines inherits. So one mechanism serves both ways an
//! exception arises:
//! - the engine fails with an [`Error`] of some kind; `except ValueError as
//!   e` matches it by kind and binds a fresh instance of the kind's class
//!   whose `args` is the message;
//! - a program raises an instance of any exception class (`raise
//!   MyError('boom')`); the instance is kept in the run's table of raised
//!   objects and the [`Error`] that propagates names it ([`Raised`]), so a
//!   handler gets the very object back, attributes and all.

use std::collections::HashMap;
use std::rc::Rc;

use crate::error::{Error, ErrorKind, Raised, Result};
use crate::{bail, err};

use super::format::{repr_of, str_of};
use super::interp::Interp;
use super::object::Object;
use super::value::{Args, Class, Instance, Obj};

/// The native behaviour of exception classes: which engine error kind they
/// stand for, and how their instances print.
pub struct ExceptionKind(pub ErrorKind);

impl Object for ExceptionKind {
    fn type_name(&self) -> String {
        self.0.python_name().into()
    }

    fn repr(&self, this: &Obj) -> Option<String> {
        let Obj::Instance(i) = this else { return None };
        let args = exception_args(this);
        let inner = match args.as_slice() {
            [one] => repr_of(one),
            many => many.iter().map(repr_of).collect::<Vec<_>>().join(", "),
        };
        Some(format!("{}({inner})", i.class.name))
    }

    fn str(&self, this: &Obj) -> Option<String> {
        let args = exception_args(this);
        Some(match args.as_slice() {
            [] => String::new(),
            // KeyError prints its key as repr, as CPython does.
            [one] if self.0 == ErrorKind::KeyError => repr_of(one),
            [one] => str_of(one),
            many => repr_of(&Obj::tuple(many.to_vec())),
        })
    }
}

/// The `args` of an exception instance.
pub fn exception_args(o: &Obj) -> Vec<Obj> {
    let Obj::Instance(i) = o else {
        return vec![];
    };
    match i.get("args") {
        Some(Obj::Tuple(t)) => t.to_vec(),
        _ => vec![],
    }
}

/// CPython's builtin exception classes: (name, base, the engine kind they
/// stand for).
const HIERARCHY: &[(&str, &str, Option<ErrorKind>)] = &[
    ("BaseException", "", Some(ErrorKind::Exception)),
    ("Exception", "BaseException", Some(ErrorKind::Exception)),
    ("ArithmeticError", "Exception", None),
    (
        "ZeroDivisionError",
        "ArithmeticError",
        Some(ErrorKind::ZeroDivisionError),
    ),
    (
        "OverflowError",
        "ArithmeticError",
        Some(ErrorKind::OverflowError),
    ),
    ("LookupError", "Exception", None),
    ("IndexError", "LookupError", Some(ErrorKind::IndexError)),
    ("KeyError", "LookupError", Some(ErrorKind::KeyError)),
    ("ValueError", "Exception", Some(ErrorKind::ValueError)),
    ("TypeError", "Exception", Some(ErrorKind::TypeError)),
    ("NameError", "Exception", Some(ErrorKind::NameError)),
    (
        "AttributeError",
        "Exception",
        Some(ErrorKind::AttributeError),
    ),
    (
        "AssertionError",
        "Exception",
        Some(ErrorKind::AssertionError),
    ),
    ("RuntimeError", "Exception", Some(ErrorKind::RuntimeError)),
    (
        "NotImplementedError",
        "RuntimeError",
        Some(ErrorKind::NotImplementedError),
    ),
    (
        "RecursionError",
        "RuntimeError",
        Some(ErrorKind::RecursionError),
    ),
    ("MemoryError", "Exception", Some(ErrorKind::MemoryError)),
    ("StopIteration", "Exception", None),
    ("ImportError", "Exception", None),
    ("ModuleNotFoundError", "ImportError", None),
    ("OSError", "Exception", None),
    ("FileNotFoundError", "OSError", None),
    ("TimeoutError", "OSError", Some(ErrorKind::TimeoutError)),
    ("SyntaxError", "Exception", Some(ErrorKind::SyntaxError)),
    ("UnicodeError", "ValueError", None),
    ("Warning", "Exception", None),
    ("UserWarning", "Warning", None),
    ("DeprecationWarning", "Warning", None),
    ("PendingDeprecationWarning", "Warning", None),
    ("SyntaxWarning", "Warning", None),
    ("RuntimeWarning", "Warning", None),
    ("FutureWarning", "Warning", None),
    ("ImportWarning", "Warning", None),
    ("UnicodeWarning", "Warning", None),
    ("BytesWarning", "Warning", None),
    ("ResourceWarning", "Warning", None),
    ("KeyboardInterrupt", "BaseException", None),
    ("SystemExit", "BaseException", None),
];

/// JAX's exception classes (`jax.errors`), made after the builtin ones and
/// deriving from them as in JAX 0.10.2 (whose `_JAXErrorMixin` adds
/// nothing a program can see).
const JAX_HIERARCHY: &[(&str, &str, Option<ErrorKind>)] = &[
    ("JAXTypeError", "TypeError", None),
    ("JAXIndexError", "IndexError", None),
    (
        "ConcretizationTypeError",
        "JAXTypeError",
        Some(ErrorKind::ConcretizationTypeError),
    ),
    (
        "TracerBoolConversionError",
        "ConcretizationTypeError",
        Some(ErrorKind::TracerBoolConversionError),
    ),
    (
        "TracerArrayConversionError",
        "JAXTypeError",
        Some(ErrorKind::TracerArrayConversionError),
    ),
    (
        "TracerIntegerConversionError",
        "JAXTypeError",
        Some(ErrorKind::TracerIntegerConversionError),
    ),
    ("UnexpectedTracerError", "JAXTypeError", None),
    (
        "JaxRuntimeError",
        "RuntimeError",
        Some(ErrorKind::JaxRuntimeError),
    ),
    ("KeyReuseError", "JAXTypeError", None),
    (
        "NonConcreteBooleanIndexError",
        "JAXIndexError",
        Some(ErrorKind::NonConcreteBooleanIndexError),
    ),
    // `jax._src.core.ShardingTypeError`: raised by sharding rules, and not
    // in `jax.errors`.
    (
        "ShardingTypeError",
        "Exception",
        Some(ErrorKind::ShardingTypeError),
    ),
];

/// Flax's exception classes (`flax.errors`): `FlaxError` adds a link to
/// Flax's error page to each message, which the raising code writes.
const FLAX_HIERARCHY: &[(&str, &str, Option<ErrorKind>)] = &[
    ("FlaxError", "Exception", None),
    (
        "TraceContextError",
        "FlaxError",
        Some(ErrorKind::TraceContextError),
    ),
    (
        "ModifyScopeVariableError",
        "FlaxError",
        Some(ErrorKind::ModifyScopeVariableError),
    ),
    (
        "ScopeCollectionNotFound",
        "FlaxError",
        Some(ErrorKind::ScopeCollectionNotFound),
    ),
    (
        "ScopeVariableNotFoundError",
        "FlaxError",
        Some(ErrorKind::ScopeVariableNotFoundError),
    ),
    (
        "InvalidRngError",
        "FlaxError",
        Some(ErrorKind::InvalidRngError),
    ),
];

/// The builtin exception classes of one run, by name and by engine kind.
pub struct Exceptions {
    by_name: Vec<(&'static str, Rc<Class>)>,
    by_kind: HashMap<ErrorKind, Rc<Class>>,
    /// Raised objects by the handle their error carries.
    raised: HashMap<u64, Obj>,
    next_id: u64,
}

impl Exceptions {
    /// CPython's hierarchy, freshly made.
    pub fn new() -> Exceptions {
        let mut by_name: Vec<(&'static str, Rc<Class>)> = vec![];
        let mut by_kind = HashMap::new();
        for &(name, base, kind) in HIERARCHY.iter().chain(JAX_HIERARCHY).chain(FLAX_HIERARCHY) {
            let bases: Vec<Rc<Class>> = by_name
                .iter()
                .filter(|(n, _)| *n == base)
                .map(|(_, c)| c.clone())
                .collect();
            let inherited = bases.first().and_then(|b| b.native());
            let attrs = if base.is_empty() {
                vec![(
                    "__init__".to_string(),
                    Obj::native("BaseException.__init__", init),
                )]
            } else {
                vec![]
            };
            let mut class = Class::new(name, bases, attrs);
            class.native = match kind {
                Some(k) => Some(Rc::new(ExceptionKind(k))),
                None => inherited,
            };
            let class = Rc::new(class);
            // The most derived class of a kind stands for it (`Exception`,
            // not `BaseException`, for an engine error of no narrower kind).
            if let Some(k) = kind {
                by_kind.insert(k, class.clone());
            }
            by_name.push((name, class));
        }
        Exceptions {
            by_name,
            by_kind,
            raised: HashMap::new(),
            next_id: 0,
        }
    }

    /// The builtin classes, to install as builtins.
    pub fn classes(&self) -> impl Iterator<Item = (&'static str, Obj)> + '_ {
        self.by_name
            .iter()
            .take(HIERARCHY.len())
            .map(|(n, c)| (*n, Obj::Class(c.clone())))
    }

    /// JAX's exception classes, for `jax.errors`.
    pub fn jax_classes(&self) -> impl Iterator<Item = (&'static str, Obj)> + '_ {
        self.by_name
            .iter()
            .skip(HIERARCHY.len())
            .take(JAX_HIERARCHY.len())
            .filter(|(n, _)| *n != "ShardingTypeError")
            .map(|(n, c)| (*n, Obj::Class(c.clone())))
    }

    /// Flax's exception classes, for `flax.errors`.
    pub fn flax_classes(&self) -> impl Iterator<Item = (&'static str, Obj)> + '_ {
        self.by_name
            .iter()
            .skip(HIERARCHY.len() + JAX_HIERARCHY.len())
            .map(|(n, c)| (*n, Obj::Class(c.clone())))
    }

    /// The class that an engine error of `kind` is an instance of.
    fn class_of_kind(&self, kind: ErrorKind) -> Option<Rc<Class>> {
        // A cancelled run has no Python class of its own: it is a
        // RuntimeError to an `except` clause.
        let k = match kind {
            ErrorKind::Cancelled => ErrorKind::RuntimeError,
            k => k,
        };
        self.by_kind.get(&k).cloned()
    }
}

impl Default for Exceptions {
    fn default() -> Self {
        Exceptions::new()
    }
}

/// The engine error kind of an exception class (its own or inherited).
pub fn kind_of(class: &Class) -> Option<ErrorKind> {
    class
        .native()
        .and_then(|n| n.downcast::<ExceptionKind>().map(|k| k.0))
}

/// True when `class` is `base` or derives from it.
pub fn derives(class: &Rc<Class>, base: &Rc<Class>) -> bool {
    Rc::ptr_eq(class, base) || class.bases.iter().any(|b| derives(b, base))
}

impl Interp {
    /// `raise x`: the error that carries the exception object `x` (an
    /// instance of an exception class, or the class itself).
    pub fn raise(&mut self, x: Obj) -> Result<Error> {
        let x = match &x {
            Obj::Class(c) if kind_of(c).is_some() => self.call(&x, Args::default())?,
            _ => x,
        };
        let Obj::Instance(i) = &x else {
            bail!(
                TypeError,
                "exceptions must derive from BaseException, not {}",
                x.type_name()
            );
        };
        let Some(kind) = kind_of(&i.class) else {
            bail!(
                TypeError,
                "exceptions must derive from BaseException, not {}",
                i.class.name
            );
        };
        let message = self.str(&x)?;
        let id = self.exceptions.next_id;
        self.exceptions.next_id += 1;
        let class_name = i.class.name.clone();
        self.exceptions.raised.insert(id, x);
        Ok(Error {
            kind,
            message,
            raised: Some(Raised { id, class_name }),
        })
    }

    /// The exception object an error stands for: the object the program
    /// raised, or an instance of the error kind's class with the message as
    /// its only argument.
    pub fn exception_object(&mut self, e: &Error) -> Obj {
        if let Some(r) = &e.raised {
            if let Some(o) = self.exceptions.raised.get(&r.id) {
                return o.clone();
            }
        }
        let class = self.exceptions.class_of_kind(e.kind);
        match class {
            Some(class) => {
                let inst = Instance::new(class);
                let arg = match e.kind {
                    // KeyError's message is the repr of the key.
                    ErrorKind::KeyError => Obj::str(unquote(&e.message)),
                    _ => Obj::str(&e.message),
                };
                inst.set("args", Obj::tuple(vec![arg]));
                Obj::Instance(Rc::new(inst))
            }
            None => Obj::str(&e.message),
        }
    }

    /// The raised object with handle `id`.
    pub fn exceptions_object(&self, id: u64) -> Option<Obj> {
        self.exceptions.raised.get(&id).cloned()
    }

    /// An instance of the builtin exception class `name` with `message` as
    /// its argument (none when empty), raised.
    pub fn raise_builtin(&mut self, name: &str, message: &str) -> Error {
        let class = self
            .exceptions
            .by_name
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, c)| c.clone());
        let Some(class) = class else {
            return err!(Exception, "{message}");
        };
        let inst = Instance::new(class);
        let args = if message.is_empty() {
            vec![]
        } else {
            vec![Obj::str(message)]
        };
        inst.set("args", Obj::tuple(args));
        match self.raise(Obj::Instance(Rc::new(inst))) {
            Ok(e) | Err(e) => e,
        }
    }

    /// `KeyError(key)`, raised with the key itself as its argument.
    pub fn key_error(&mut self, key: &Obj) -> Error {
        let Some(class) = self.exceptions.class_of_kind(ErrorKind::KeyError) else {
            return err!(KeyError, "{}", repr_of(key));
        };
        let inst = Instance::new(class);
        inst.set("args", Obj::tuple(vec![key.clone()]));
        match self.raise(Obj::Instance(Rc::new(inst))) {
            Ok(e) | Err(e) => e,
        }
    }

    /// Forgets the object of a handled error.
    pub fn forget_raised(&mut self, e: &Error) {
        if let Some(r) = &e.raised {
            self.exceptions.raised.remove(&r.id);
        }
    }

    /// True when an `except` clause naming `handler` (a class or a tuple of
    /// them) catches `e`.
    pub fn exception_matches(&mut self, handler: &Obj, e: &Error) -> Result<bool> {
        match handler {
            Obj::Tuple(t) => {
                for h in t.iter() {
                    if self.exception_matches(h, e)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            Obj::Class(h) if kind_of(h).is_some() => {
                let class = match &e.raised {
                    Some(r) => match self.exceptions.raised.get(&r.id) {
                        Some(Obj::Instance(i)) => Some(i.class.clone()),
                        _ => None,
                    },
                    None => self.exceptions.class_of_kind(e.kind),
                };
                Ok(class.is_some_and(|c| derives(&c, h)))
            }
            other => Err(err!(
                TypeError,
                "catching classes that do not inherit from BaseException is not allowed (got {})",
                other.type_name()
            )),
        }
    }
}

/// `'a'` -> `a`: the key inside a KeyError's message.
fn unquote(s: &str) -> String {
    let b = s.as_bytes();
    if b.len() >= 2 && (b[0] == b'\'' || b[0] == b'"') && b[b.len() - 1] == b[0] {
        s[1..s.len() - 1].to_string()
    } else {
        s.to_string()
    }
}

/// `BaseException.__init__(self, *args)`.
fn init(_: &mut Interp, a: Args) -> Result<Obj> {
    if let Some((this, rest)) = a.pos.split_first() {
        set_args(this, &Args::new(rest.to_vec()));
    }
    Ok(Obj::None)
}

/// Keeps an exception's constructor arguments as its `args`.
pub fn set_args(inst: &Obj, args: &Args) {
    if let Obj::Instance(i) = inst {
        i.set("args", Obj::tuple(args.pos.clone()));
    }
}
