//! The `typing` module. Annotations are evaluated and then ignored, so its
//! special forms only need to be subscriptable (`Optional[int]`,
//! `Dict[str, jax.Array]`, `Callable[[int], int]`) and to print as CPython
//! prints them. `Generic[T]` and `Protocol` are classes a program may
//! derive from, and `class P(NamedTuple)` gives instances that unpack,
//! index, print and flatten (as pytrees) like CPython's named tuples.

use std::rc::Rc;

use crate::error::Result;
use crate::python::format::{repr_of, str_repr};
use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::value::{Args, Class, Obj};

use super::super::Builder;

/// Forms that take a subscript and print as `typing.NAME[...]`.
const FORMS: &[&str] = &[
    "Any",
    "Callable",
    "Optional",
    "Union",
    "List",
    "Dict",
    "Tuple",
    "Set",
    "FrozenSet",
    "Type",
    "Sequence",
    "MutableSequence",
    "Mapping",
    "MutableMapping",
    "Iterable",
    "Iterator",
    "Generator",
    "Collection",
    "Container",
    "Hashable",
    "Sized",
    "Reversible",
    "AbstractSet",
    "DefaultDict",
    "OrderedDict",
    "Counter",
    "Deque",
    "ChainMap",
    "Literal",
    "Final",
    "ClassVar",
    "Annotated",
    "NoReturn",
    "Never",
    "Self",
    "TypeAlias",
    "TypeGuard",
    "Concatenate",
    "Required",
    "NotRequired",
    "LiteralString",
    "SupportsInt",
    "SupportsFloat",
    "SupportsIndex",
    "SupportsAbs",
    "SupportsRound",
    "Text",
    "AnyStr",
    "Awaitable",
    "Coroutine",
    "AsyncIterator",
    "AsyncIterable",
    "AsyncGenerator",
    "ContextManager",
];

/// The `typing` module.
pub fn module() -> Obj {
    let mut b = Builder::new("typing");
    for name in FORMS {
        b.attr(name, Obj::lib(Form::new(name)));
    }
    let class_getitem = Obj::native("__class_getitem__", |_, a| {
        let origin = a.req(Some(0), "cls", "__class_getitem__")?;
        let args = match a.req(Some(1), "params", "__class_getitem__")? {
            Obj::Tuple(t) => t.to_vec(),
            one => vec![one],
        };
        Ok(Obj::lib(Alias { origin, args }))
    });
    let generic = Obj::Class(Rc::new(Class::new(
        "Generic",
        vec![],
        vec![("__class_getitem__".into(), class_getitem)],
    )));
    b.attr("Generic", Obj::lib(Form::subscript_to("Generic", generic)))
        .attr(
            "Protocol",
            Obj::Class(Rc::new(Class::new("Protocol", vec![], vec![]))),
        )
        .attr("NamedTuple", named_tuple_class())
        .attr("TypedDict", Obj::Type("dict"))
        .attr("TYPE_CHECKING", Obj::Bool(false))
        .func("TypeVar", |_, a| type_var(&a, "TypeVar", "~"))
        .func("ParamSpec", |_, a| type_var(&a, "ParamSpec", "~"))
        .func("TypeVarTuple", |_, a| type_var(&a, "TypeVarTuple", ""))
        .func("NewType", |_, a| {
            let name = crate::python::format::str_of(&a.req(Some(0), "name", "NewType")?);
            a.req(Some(1), "tp", "NewType")?;
            Ok(Obj::native(format!("__main__.{name}"), |_, a| {
                a.req(Some(0), "x", "NewType")
            }))
        })
        .func("cast", |_, a| {
            a.req(Some(0), "typ", "cast")?;
            a.req(Some(1), "val", "cast")
        })
        .func("assert_type", |_, a| a.req(Some(0), "val", "assert_type"))
        .func("reveal_type", |_, a| a.req(Some(0), "obj", "reveal_type"));
    for name in [
        "overload",
        "final",
        "no_type_check",
        "runtime_checkable",
        "override",
    ] {
        b.func(name, move |_, a| a.req(Some(0), "f", name));
    }
    b.build()
}

fn type_var(a: &Args, what: &str, prefix: &str) -> Result<Obj> {
    let name = match a.req(Some(0), "name", what)? {
        Obj::Str(s) => s,
        o => crate::bail!(
            TypeError,
            "{what} name must be a string, not {}",
            o.type_name()
        ),
    };
    let mut f = Form::new(&format!("{prefix}{name}"));
    f.bare = true;
    Ok(Obj::lib(f))
}

/// A subclass of `Generic` subscripted (`Box[int]`): prints as
/// `__main__.Box[int]`, makes instances of its class when called, and
/// stands for its class as a base.
pub struct Alias {
    origin: Obj,
    args: Vec<Obj>,
}

impl Object for Alias {
    fn type_name(&self) -> String {
        "_GenericAlias".into()
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        let inner: Vec<String> = self.args.iter().map(type_repr).collect();
        Some(format!("{}[{}]", type_repr(&self.origin), inner.join(", ")))
    }

    fn call(&self, interp: &mut Interp, _: &Obj, args: Args) -> Option<Result<Obj>> {
        Some(interp.call(&self.origin, args))
    }

    fn callable(&self) -> bool {
        true
    }

    fn getattr(&self, interp: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        Ok(Some(match name {
            "__origin__" => self.origin.clone(),
            "__args__" => Obj::tuple(self.args.clone()),
            _ => crate::python::ops::getattr(interp, &self.origin, name)?,
        }))
    }
}

/// A special form of `typing` (`Optional`, `Dict[str, int]`, a `TypeVar`).
pub struct Form {
    name: String,
    /// The subscript, once subscripted.
    args: Option<Vec<Obj>>,
    /// What subscripting gives instead of a new form (`Generic[T]` is the
    /// class `Generic`).
    subscripted: Option<Obj>,
    /// Printed as its name alone (type variables: `~T`).
    bare: bool,
}

impl Form {
    fn new(name: &str) -> Form {
        Form {
            name: name.to_string(),
            args: None,
            subscripted: None,
            bare: false,
        }
    }

    fn subscript_to(name: &str, to: Obj) -> Form {
        Form {
            subscripted: Some(to),
            ..Form::new(name)
        }
    }

    fn text(&self) -> String {
        if self.bare {
            return self.name.clone();
        }
        let Some(args) = &self.args else {
            return format!("typing.{}", self.name);
        };
        let is_none = |o: &Obj| matches!(o, Obj::None);
        if self.name == "Union" && args.len() == 2 && args.iter().any(is_none) {
            let other = args.iter().find(|o| !is_none(o)).unwrap_or(&args[0]);
            return format!("typing.Optional[{}]", type_repr(other));
        }
        let inner: Vec<String> = args
            .iter()
            .map(|a| {
                if self.name == "Literal" {
                    repr_of(a)
                } else {
                    type_repr(a)
                }
            })
            .collect();
        format!("typing.{}[{}]", self.name, inner.join(", "))
    }
}

/// How `typing` prints a type inside a subscript: `int`, `None`, `...`,
/// `[int, str]`, `typing.List[int]`, `__main__.C`.
fn type_repr(o: &Obj) -> String {
    match o {
        Obj::Type(t) => t.to_string(),
        Obj::None => "None".into(),
        Obj::Ellipsis => "...".into(),
        // Builtin classes (exceptions) print bare, a program's own with its module.
        Obj::Class(c) if crate::python::exceptions::kind_of(c).is_some() && c.native.is_some() => {
            c.name.clone()
        }
        Obj::Class(c) => format!("__main__.{}", c.name),
        Obj::DType(d) => format!("jax.numpy.{}", d.name()),
        Obj::Lib(_) if o.class_name().is_some() => o.class_name().unwrap_or_default(),
        Obj::Str(s) => format!("ForwardRef({})", str_repr(s)),
        Obj::List(l) => {
            let items: Vec<String> = l.borrow().iter().map(type_repr).collect();
            format!("[{}]", items.join(", "))
        }
        Obj::Lib(x) => match x.downcast::<Form>() {
            Some(f) => f.text(),
            None => repr_of(o),
        },
        other => repr_of(other),
    }
}

impl Object for Form {
    fn type_name(&self) -> String {
        if self.bare {
            "TypeVar".into()
        } else {
            "_SpecialForm".into()
        }
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some(self.text())
    }

    fn getitem(&self, _: &mut Interp, _: &Obj, key: &Obj) -> Option<Result<Obj>> {
        if let Some(to) = &self.subscripted {
            return Some(Ok(to.clone()));
        }
        let args = match key {
            Obj::Tuple(t) => t.to_vec(),
            k => vec![k.clone()],
        };
        let args = match self.name.as_str() {
            "Optional" => vec![args[0].clone(), Obj::None],
            // Union[X] is X itself.
            "Union" if args.len() == 1 => return Some(Ok(args[0].clone())),
            _ => args,
        };
        let name = if self.name == "Optional" {
            "Union".to_string()
        } else {
            self.name.clone()
        };
        Some(Ok(Obj::lib(Form {
            name,
            args: Some(args),
            subscripted: None,
            bare: false,
        })))
    }

    fn eq(&self, _: &Obj, other: &Obj) -> Option<bool> {
        Some(
            other
                .downcast::<Form>()
                .is_some_and(|o| o.text() == self.text()),
        )
    }
}

/// `typing.NamedTuple` as a base class: `__init__` takes the annotated
/// fields (by position or name, defaults from the class body), and the
/// instances behave as tuples of their fields.
fn named_tuple_class() -> Obj {
    let init = Obj::native("NamedTuple.__init__", named_tuple_init);
    let mut class = Class::new("NamedTuple", vec![], vec![("__init__".into(), init)]);
    class.native = Some(Rc::new(NamedTupleFields));
    Obj::Class(Rc::new(class))
}

/// The field names of a named tuple class, in declaration order.
fn field_names(class: &Class) -> Vec<String> {
    match class.lookup("__annotations__") {
        Some(Obj::Dict(d)) => d
            .borrow()
            .items
            .iter()
            .map(|(k, _)| crate::python::format::str_of(k))
            .collect(),
        _ => vec![],
    }
}

fn named_tuple_init(_: &mut Interp, a: Args) -> Result<Obj> {
    let Some(Obj::Instance(this)) = a.pos.first() else {
        crate::bail!(TypeError, "NamedTuple.__init__ needs an instance");
    };
    let names = field_names(&this.class);
    let cls = this.class.name.clone();
    let given = a.pos.len() - 1;
    if given > names.len() {
        crate::bail!(
            TypeError,
            "{cls}.__new__() takes {} positional arguments but {} were given",
            names.len() + 1,
            given + 1
        );
    }
    let mut values = vec![];
    let mut missing = vec![];
    for (k, n) in names.iter().enumerate() {
        let v = match (a.pos.get(k + 1), a.kw.iter().find(|(x, _)| x == n)) {
            (Some(_), Some(_)) => crate::bail!(
                TypeError,
                "{cls}.__new__() got multiple values for argument '{n}'"
            ),
            (Some(v), None) | (None, Some((_, v))) => v.clone(),
            (None, None) => match this.class.lookup(n) {
                Some(d) => d,
                None => {
                    missing.push(format!("'{n}'"));
                    continue;
                }
            },
        };
        values.push((n.clone(), v));
    }
    if let Some((k, _)) = a.kw.iter().find(|(k, _)| !names.contains(k)) {
        crate::bail!(
            TypeError,
            "{cls}.__new__() got an unexpected keyword argument '{k}'"
        );
    }
    if !missing.is_empty() {
        crate::bail!(
            TypeError,
            "{cls}.__new__() missing {} required positional argument{}: {}",
            missing.len(),
            if missing.len() == 1 { "" } else { "s" },
            join_names(&missing)
        );
    }
    *this.attrs.borrow_mut() = values;
    Ok(Obj::None)
}

/// `'a'`, `'a' and 'b'`, `'a', 'b', and 'c'`, as CPython lists missing
/// arguments.
fn join_names(names: &[String]) -> String {
    match names {
        [one] => one.clone(),
        [a, b] => format!("{a} and {b}"),
        [rest @ .., last] => format!("{}, and {last}", rest.join(", ")),
        [] => String::new(),
    }
}

/// The tuple behaviour of named tuple instances.
struct NamedTupleFields;

impl NamedTupleFields {
    fn fields(this: &Obj) -> Vec<(String, Obj)> {
        let Obj::Instance(i) = this else {
            return vec![];
        };
        let attrs = i.attrs.borrow();
        field_names(&i.class)
            .into_iter()
            .map(|n| {
                let v = attrs
                    .iter()
                    .find(|(k, _)| *k == n)
                    .map(|(_, v)| v.clone())
                    .unwrap_or(Obj::None);
                (n, v)
            })
            .collect()
    }

    fn values(this: &Obj) -> Obj {
        Obj::tuple(Self::fields(this).into_iter().map(|(_, v)| v).collect())
    }
}

impl Object for NamedTupleFields {
    fn type_name(&self) -> String {
        "NamedTuple".into()
    }

    fn getattr(&self, _: &mut Interp, this: &Obj, name: &str) -> Result<Option<Obj>> {
        let fields = Self::fields(this);
        let this = this.clone();
        Ok(match name {
            "_fields" => Some(Obj::tuple(
                fields.iter().map(|(k, _)| Obj::str(k)).collect(),
            )),
            "_asdict" => Some(Obj::native("_asdict", move |_, _| {
                let d = Self::fields(&this)
                    .into_iter()
                    .map(|(k, v)| (Obj::str(k), v))
                    .collect();
                Ok(Obj::Dict(Rc::new(std::cell::RefCell::new(d))))
            })),
            "_replace" => Some(Obj::native("_replace", move |i, a| {
                let Obj::Instance(inst) = &this else {
                    return Ok(Obj::None);
                };
                let mut kw: Vec<(String, Obj)> = Self::fields(&this);
                for (k, v) in a.kw {
                    match kw.iter_mut().find(|(n, _)| *n == k) {
                        Some(slot) => slot.1 = v,
                        None => crate::bail!(ValueError, "Got unexpected field names: ['{k}']"),
                    }
                }
                i.call(&Obj::Class(inst.class.clone()), Args::with(vec![], kw))
            })),
            _ => None,
        })
    }

    fn repr(&self, this: &Obj) -> Option<String> {
        let Obj::Instance(i) = this else {
            return None;
        };
        let body: Vec<String> = Self::fields(this)
            .iter()
            .map(|(k, v)| format!("{k}={}", repr_of(v)))
            .collect();
        Some(format!("{}({})", i.class.name, body.join(", ")))
    }

    fn items(&self, this: &Obj) -> Option<Result<Vec<Obj>>> {
        Some(Ok(Self::fields(this).into_iter().map(|(_, v)| v).collect()))
    }

    fn getitem(&self, interp: &mut Interp, this: &Obj, key: &Obj) -> Option<Result<Obj>> {
        Some(crate::python::ops::getitem(
            interp,
            &Self::values(this),
            key,
        ))
    }

    fn eq(&self, this: &Obj, other: &Obj) -> Option<bool> {
        let other = match other {
            Obj::Instance(_) => Self::values(other),
            o => o.clone(),
        };
        Some(crate::python::ops::py_eq(&Self::values(this), &other))
    }

    fn children(&self, this: &Obj) -> Option<Vec<String>> {
        Some(Self::fields(this).into_iter().map(|(k, _)| k).collect())
    }
}
