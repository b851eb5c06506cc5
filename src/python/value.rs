//! Python objects as the interpreter sees them.

use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;

use rustpython_parser::ast;

use crate::array::DType;
use crate::error::Result;
use crate::trace::Value;

use super::interp::{Interp, Scope};
use super::object::Object;

/// Positional and keyword arguments of a call.
#[derive(Clone, Default)]
pub struct Args {
    /// Positional arguments, in order.
    pub pos: Vec<Obj>,
    /// Keyword arguments, in order.
    pub kw: Vec<(String, Obj)>,
    /// Which keyword arguments the callee looked up (shared by clones).
    pub seen: KwSeen,
}

/// The keyword arguments a native function has looked up, by name. A
/// library function that never looks at a keyword it was given would
/// silently ignore it (`jnp.all(x, where=m)` computing the unmasked answer);
/// [`Args::unread`] lets the caller refuse that instead. Clones share the
/// record, so a function that hands its arguments on counts the reads made
/// further down, whatever it does to the order of `kw` meanwhile.
#[derive(Clone, Default)]
pub struct KwSeen(Rc<RefCell<Vec<String>>>);

impl KwSeen {
    fn mark(&self, name: &str) {
        let mut names = self.0.borrow_mut();
        if !names.iter().any(|n| n == name) {
            names.push(name.to_string());
        }
    }

    fn read(&self, name: &str) -> bool {
        self.0.borrow().iter().any(|n| n == name || n == "**")
    }
}

impl Args {
    /// Positional and keyword arguments.
    pub fn with(pos: Vec<Obj>, kw: Vec<(String, Obj)>) -> Args {
        Args {
            pos,
            kw,
            seen: KwSeen::default(),
        }
    }

    /// Records every keyword argument as read: for functions that take
    /// `**kwargs` and hand them on whole.
    pub fn read_all(&self) {
        self.seen.mark("**");
    }

    /// Removes the keyword argument `name`, recording it as read.
    pub fn take_kw(&mut self, name: &str) -> Option<Obj> {
        let at = self.kw.iter().position(|(k, _)| k == name)?;
        self.seen.mark(name);
        Some(self.kw.remove(at).1)
    }

    /// The keyword arguments nobody looked up.
    pub fn unread(&self) -> Vec<&(String, Obj)> {
        self.kw.iter().filter(|(k, _)| !self.seen.read(k)).collect()
    }

    /// The keyword arguments a dict stands for (`f(**d)`), each key as its
    /// text; none for anything that is not a dict.
    pub fn keywords_from(o: &Obj) -> Vec<(String, Obj)> {
        match o {
            Obj::Dict(d) => d
                .borrow()
                .items
                .iter()
                .map(|(k, v)| (super::format::str_of(k), v.clone()))
                .collect(),
            _ => vec![],
        }
    }

    /// Positional arguments only.
    pub fn new(pos: Vec<Obj>) -> Args {
        Args::with(pos, vec![])
    }

    /// The argument named `name` or, failing that, the
    /// positional argument at `index` (when given).
    pub fn get(&self, index: Option<usize>, name: &str) -> Option<Obj> {
        if let Some((_, v)) = self.kw.iter().find(|(k, _)| k == name) {
            self.seen.mark(name);
            return Some(v.clone());
        }
        index.and_then(|i| self.pos.get(i).cloned())
    }

    /// Like [`Args::get`], failing with Python's message when missing.
    pub fn req(&self, index: Option<usize>, name: &str, func: &str) -> Result<Obj> {
        self.get(index, name)
            .ok_or_else(|| crate::err!(TypeError, "{func}() missing required argument: '{name}'"))
    }

    /// The argument, or None when missing or given as Python None.
    pub fn opt(&self, index: Option<usize>, name: &str) -> Option<Obj> {
        match self.get(index, name) {
            None | Some(Obj::None) => None,
            Some(v) => Some(v),
        }
    }
}

/// A function implemented in Rust.
pub type NativeFn = Rc<dyn Fn(&mut Interp, Args) -> Result<Obj>>;

/// A callable implemented in Rust, with the name Python would show.
pub struct Native {
    /// `jax.grad`, `print`, ...
    pub name: String,
    /// The implementation.
    pub f: NativeFn,
}

/// A function defined with `def` or `lambda`.
pub struct Function {
    /// Its name (`<lambda>` for lambdas).
    pub name: String,
    /// Its qualified name, as Python's `__qualname__`: `outer.<locals>.f`.
    pub qualname: std::sync::Arc<str>,
    /// Its parameters.
    pub params: Rc<ast::Arguments>,
    /// Evaluated defaults of the positional parameters with defaults, by name.
    pub defaults: Vec<(String, Obj)>,
    /// The body; a lambda's is a single `return` of its expression.
    pub body: Rc<Vec<ast::Stmt>>,
    /// The scope the function was defined in (for closures).
    pub closure: Scope,
    /// The class whose body defined it, for `super()`.
    pub owner: RefCell<std::rc::Weak<Class>>,
    /// True when its body yields: calling it makes a generator.
    pub is_generator: bool,
    /// The 1-based line it starts on, its first decorator's when it has
    /// some (Python's `co_firstlineno`, which JAX's messages name it by).
    pub first_line: usize,
}

/// A class defined with `class`.
pub struct Class {
    /// Its name.
    pub name: String,
    /// Its qualified name, as Python's `__qualname__`: `f.<locals>.C`.
    pub qualname: String,
    /// Base classes (first is searched first).
    pub bases: Vec<Rc<Class>>,
    /// Class attributes and methods.
    pub attrs: RefCell<Vec<(String, Obj)>>,
    /// The behaviour a library gives the instances of this class and of its
    /// subclasses (see [`Object`]).
    pub native: Option<Rc<dyn Object>>,
    /// The builtin type it extends (`class Config(dict)`), whose value
    /// each instance carries in [`Instance::base`].
    pub builtin: Option<&'static str>,
}

impl Class {
    /// A class with no native behaviour.
    pub fn new(name: impl Into<String>, bases: Vec<Rc<Class>>, attrs: Vec<(String, Obj)>) -> Class {
        let name = name.into();
        Class {
            qualname: name.clone(),
            name,
            bases,
            attrs: RefCell::new(attrs),
            native: None,
            builtin: None,
        }
    }

    /// The builtin type this class or a base extends.
    pub fn builtin_base(&self) -> Option<&'static str> {
        self.builtin
            .or_else(|| self.bases.iter().find_map(|b| b.builtin_base()))
    }

    /// The native behaviour of this class or its nearest base that has one.
    pub fn native(&self) -> Option<Rc<dyn Object>> {
        self.native
            .clone()
            .or_else(|| self.bases.iter().find_map(|b| b.native()))
    }

    /// Looks an attribute up on this class and its bases.
    pub fn lookup(&self, name: &str) -> Option<Obj> {
        if let Some((_, v)) = self.attrs.borrow().iter().find(|(k, _)| k == name) {
            return Some(v.clone());
        }
        self.bases.iter().find_map(|b| b.lookup(name))
    }
}

/// An instance of a user class.
pub struct Instance {
    /// Its class.
    pub class: Rc<Class>,
    /// Instance attributes.
    pub attrs: RefCell<Vec<(String, Obj)>>,
    /// The builtin value an instance of a class that extends `dict` or
    /// `list` is: its items live here, and the builtin's methods and
    /// operators act on it wherever the class does not define its own.
    pub base: Option<Obj>,
}

impl Instance {
    /// A new instance of `class` with no attributes (and, for a class that
    /// extends a builtin type, an empty value of it).
    pub fn new(class: Rc<Class>) -> Instance {
        Instance::with_attrs(class, vec![])
    }

    /// A new instance of `class` with `attrs`.
    pub fn with_attrs(class: Rc<Class>, attrs: Vec<(String, Obj)>) -> Instance {
        let base = match class.builtin_base() {
            Some("dict") => Some(Obj::Dict(Default::default())),
            Some("list") => Some(Obj::List(Default::default())),
            _ => None,
        };
        Instance {
            class,
            attrs: RefCell::new(attrs),
            base,
        }
    }

    /// An instance attribute.
    pub fn get(&self, name: &str) -> Option<Obj> {
        self.attrs
            .borrow()
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    }

    /// Sets an instance attribute.
    pub fn set(&self, name: &str, v: Obj) {
        let mut attrs = self.attrs.borrow_mut();
        match attrs.iter_mut().find(|(k, _)| k == name) {
            Some(slot) => slot.1 = v,
            None => attrs.push((name.to_string(), v)),
        }
    }
}

/// A module: a name and its attributes.
pub struct Module {
    /// Dotted name.
    pub name: String,
    /// Attributes, looked up by name.
    pub attrs: RefCell<Vec<(String, Obj)>>,
}

impl Module {
    /// An attribute of the module.
    pub fn get(&self, name: &str) -> Option<Obj> {
        self.attrs
            .borrow()
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    }
}

pub use super::dict::{key_eq, Dict};

/// A Python value.
#[derive(Clone)]
pub enum Obj {
    /// `None`.
    None,
    /// `True` / `False`.
    Bool(bool),
    /// A Python int (64-bit here).
    Int(i64),
    /// A Python float.
    Float(f64),
    /// A Python complex: real and imaginary parts.
    Complex(f64, f64),
    /// A string.
    Str(Rc<str>),
    /// A list (mutable, shared).
    List(Rc<RefCell<Vec<Obj>>>),
    /// A tuple.
    Tuple(Rc<Vec<Obj>>),
    /// A dict (mutable, shared).
    Dict(Rc<RefCell<Dict>>),
    /// A set or frozenset.
    Set(Rc<RefCell<super::set::Set>>),
    /// `slice(start, stop, step)`.
    Slice(Rc<[Obj; 3]>),
    /// `...`.
    Ellipsis,
    /// `range(start, stop, step)`.
    Range(i64, i64, i64),
    /// A jax (or numpy) array, concrete or traced.
    Array(Value),
    /// A dtype such as `jnp.float32`.
    DType(DType),
    /// A function defined in the program.
    Func(Rc<Function>),
    /// A function implemented in Rust.
    Native(Rc<Native>),
    /// A user class.
    Class(Rc<Class>),
    /// An instance of a user class.
    Instance(Rc<Instance>),
    /// A method bound to its receiver.
    Method(Rc<(Obj, Obj)>),
    /// A module.
    Module(Rc<Module>),
    /// An object of a type a library defines (see [`Object`]).
    Lib(Rc<dyn Object>),
    /// A Python type object such as `int` used with isinstance.
    Type(&'static str),
}

impl Obj {
    /// A string object.
    pub fn str(s: impl AsRef<str>) -> Obj {
        Obj::Str(Rc::from(s.as_ref()))
    }

    /// A list object.
    pub fn list(v: Vec<Obj>) -> Obj {
        Obj::List(Rc::new(RefCell::new(v)))
    }

    /// A set object.
    pub fn set(s: super::set::Set) -> Obj {
        Obj::Set(Rc::new(RefCell::new(s)))
    }

    /// A tuple object.
    pub fn tuple(v: Vec<Obj>) -> Obj {
        Obj::Tuple(Rc::new(v))
    }

    /// A native function object.
    pub fn native(
        name: impl Into<String>,
        f: impl Fn(&mut Interp, Args) -> Result<Obj> + 'static,
    ) -> Obj {
        Obj::Native(Rc::new(Native {
            name: name.into(),
            f: Rc::new(f),
        }))
    }

    /// A library object.
    pub fn lib(o: impl Object) -> Obj {
        Obj::Lib(Rc::new(o))
    }

    /// The builtin value an instance of a `dict` or `list` subclass
    /// carries, where the builtin's own rules apply; any other object is
    /// itself.
    pub fn plain(&self) -> &Obj {
        match self {
            Obj::Instance(i) => i.base.as_ref().unwrap_or(self),
            _ => self,
        }
    }

    /// The library object inside, when it is a `T`.
    pub fn downcast<T: Object>(&self) -> Option<&T> {
        match self {
            Obj::Lib(o) => o.downcast::<T>(),
            _ => None,
        }
    }

    /// The shared library object inside, when it is a `T`.
    pub fn downcast_rc<T: Object>(&self) -> Option<Rc<T>> {
        match self {
            Obj::Lib(o) => super::object::downcast_rc::<T>(o),
            _ => None,
        }
    }

    /// The library behaviour of this object: its own for a library object,
    /// its class's for an instance of a library class (or a subclass of one).
    pub fn behaviour(&self) -> Option<Rc<dyn Object>> {
        match self {
            Obj::Lib(o) => Some(o.clone()),
            Obj::Instance(i) => i.class.native(),
            _ => None,
        }
    }

    /// The number, for bools, ints, floats and NumPy scalars.
    pub fn as_number(&self) -> Option<f64> {
        match self {
            Obj::Bool(b) => Some(*b as i64 as f64),
            Obj::Int(i) => Some(*i as f64),
            Obj::Float(f) => Some(*f),
            Obj::Lib(o) => o.scalar().and_then(|s| s.as_number()),
            _ => None,
        }
    }

    /// The Python number a scalar library object (a NumPy scalar) stands
    /// for; None for anything else.
    pub fn lib_scalar(&self) -> Option<Obj> {
        match self {
            Obj::Lib(o) => o.scalar(),
            _ => None,
        }
    }

    /// The qualified name of a library object that is a class
    /// (`jnp.float32`); None for anything else (see `Object::class_name`).
    pub fn class_name(&self) -> Option<String> {
        match self {
            Obj::Lib(o) => o.class_name(),
            _ => None,
        }
    }

    /// The Python type name, as `type(x).__name__` gives it.
    pub fn type_name(&self) -> String {
        match self {
            Obj::None => "NoneType".into(),
            Obj::Bool(_) => "bool".into(),
            Obj::Int(_) => "int".into(),
            Obj::Float(_) => "float".into(),
            Obj::Complex(..) => "complex".into(),
            Obj::Str(_) => "str".into(),
            Obj::List(_) => "list".into(),
            Obj::Tuple(_) => "tuple".into(),
            Obj::Dict(_) => "dict".into(),
            Obj::Set(s) if s.borrow().frozen => "frozenset".into(),
            Obj::Set(_) => "set".into(),
            Obj::Slice(_) => "slice".into(),
            Obj::Ellipsis => "ellipsis".into(),
            Obj::Range(..) => "range".into(),
            Obj::Array(Value::Concrete(_)) => "ArrayImpl".into(),
            Obj::Array(Value::Traced(_)) => "DynamicJaxprTracer".into(),
            Obj::DType(_) => "dtype".into(),
            Obj::Func(_) => "function".into(),
            Obj::Native(_) => "builtin_function_or_method".into(),
            Obj::Class(_) => "type".into(),
            Obj::Instance(i) => i.class.name.clone(),
            Obj::Method(_) => "method".into(),
            Obj::Module(_) => "module".into(),
            Obj::Lib(o) => o.type_name(),
            Obj::Type(_) => "type".into(),
        }
    }
}

impl fmt::Debug for Obj {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<{}>", self.type_name())
    }
}
