//! `collections`: `namedtuple`, `OrderedDict`, `defaultdict`, `Counter` and
//! `deque`.
//!
//! A namedtuple is a class whose instances keep their fields as attributes;
//! the class's native behaviour makes them print, index, unpack, compare and
//! flatten (as pytree nodes, the way JAX treats namedtuples) like tuples.
//! `OrderedDict` and `defaultdict` are dicts (the latter with its factory);
//! `Counter` and `deque` are library objects.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::{Rc, Weak};

use crate::error::Result;
use crate::{bail, err};

use crate::modules::Builder;
use crate::python::builtins::{call_type, to_int};
use crate::python::format::{repr_of, str_of};
use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::ops::{getitem, iterate, py_cmp, py_eq};
use crate::python::value::{Args, Class, Dict, Instance, Obj};

/// The `collections` module.
pub fn module() -> Obj {
    Builder::new("collections")
        .func("namedtuple", namedtuple)
        .func("OrderedDict", |i, a| {
            let d = call_type(i, "dict", a)?;
            if let Obj::Dict(d) = &d {
                d.borrow_mut().ordered = true;
            }
            Ok(d)
        })
        .func("defaultdict", defaultdict)
        .func("Counter", counter)
        .func("deque", deque)
        .build()
}

/// `defaultdict(default_factory=None, *args, **kwargs)`: a dict whose
/// factory fills in missing keys on `d[key]`.
fn defaultdict(i: &mut Interp, a: Args) -> Result<Obj> {
    let factory = a.pos.first().cloned().unwrap_or(Obj::None);
    let callable = matches!(
        factory,
        Obj::None
            | Obj::Func(_)
            | Obj::Native(_)
            | Obj::Method(_)
            | Obj::Class(_)
            | Obj::Type(_)
            | Obj::Lib(_)
            | Obj::DType(_)
    );
    if !callable {
        bail!(TypeError, "first argument must be callable or None");
    }
    let rest = Args::with(a.pos.iter().skip(1).cloned().collect(), a.kw);
    let d = call_type(i, "dict", rest)?;
    if let (Obj::Dict(d), false) = (&d, matches!(factory, Obj::None)) {
        d.borrow_mut().default_factory = Some(factory);
    }
    Ok(d)
}

// ---------------------------------------------------------------- namedtuple

/// The field names a namedtuple is given: a list of strings or one string
/// of names separated by spaces or commas.
fn field_names(o: &Obj) -> Result<Vec<String>> {
    let names: Vec<String> = match o {
        Obj::Str(s) => s
            .replace(',', " ")
            .split_whitespace()
            .map(str::to_string)
            .collect(),
        other => iterate(other)?.iter().map(str_of).collect(),
    };
    for (k, n) in names.iter().enumerate() {
        let ident = n
            .chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_')
            && n.chars().all(|c| c.is_alphanumeric() || c == '_');
        if !ident {
            bail!(
                ValueError,
                "Type names and field names must be valid identifiers: {}",
                repr_of(&Obj::str(n))
            );
        }
        if n.starts_with('_') {
            bail!(
                ValueError,
                "Field names cannot start with an underscore: {}",
                repr_of(&Obj::str(n))
            );
        }
        if names[..k].contains(n) {
            bail!(
                ValueError,
                "Encountered duplicate field name: {}",
                repr_of(&Obj::str(n))
            );
        }
    }
    Ok(names)
}

/// `namedtuple(typename, field_names, *, rename=False, defaults=None, module=None)`.
fn namedtuple(_: &mut Interp, a: Args) -> Result<Obj> {
    let name = str_of(&a.req(Some(0), "typename", "namedtuple")?);
    let fields = field_names(&a.req(Some(1), "field_names", "namedtuple")?)?;
    let defaults = match a.opt(None, "defaults") {
        Some(d) => iterate(&d)?,
        None => vec![],
    };
    if defaults.len() > fields.len() {
        bail!(TypeError, "Got more default values than field names");
    }
    let first_default = fields.len() - defaults.len();
    let field_defaults: Dict = fields[first_default..]
        .iter()
        .zip(&defaults)
        .map(|(f, d)| (Obj::str(f), d.clone()))
        .collect();
    let spec = Rc::new(Spec {
        name: name.clone(),
        fields: fields.clone(),
        defaults: field_defaults.clone(),
    });
    let init_spec = spec.clone();
    let attrs = vec![
        (
            "_fields".to_string(),
            Obj::tuple(fields.iter().map(Obj::str).collect()),
        ),
        (
            "_field_defaults".into(),
            Obj::Dict(Rc::new(RefCell::new(field_defaults))),
        ),
        (
            "__init__".into(),
            Obj::native(format!("{name}.__new__"), move |_, a| init_spec.init(a)),
        ),
        ("_replace".into(), Obj::native("_replace", replace)),
        ("_asdict".into(), Obj::native("_asdict", asdict)),
        ("__repr__".into(), Obj::native("__repr__", tuple_repr)),
        ("__eq__".into(), Obj::native("__eq__", tuple_eq)),
        ("__len__".into(), Obj::native("__len__", tuple_len)),
        ("count".into(), Obj::native("count", tuple_count)),
        ("index".into(), Obj::native("index", tuple_index)),
    ];
    let mut class = Class::new(name, vec![], attrs);
    class.native = Some(Rc::new(NamedTuple));
    let class = Rc::new(class);
    let weak: Weak<Class> = Rc::downgrade(&class);
    let make = Obj::native("_make", move |i, a| {
        let Some(class) = weak.upgrade() else {
            bail!(RuntimeError, "the namedtuple class is gone");
        };
        let items = match a.pos.last() {
            Some(it) => iterate(it)?,
            None => bail!(TypeError, "_make() missing required argument: 'iterable'"),
        };
        i.call(&Obj::Class(class), Args::new(items))
    });
    class.attrs.borrow_mut().push(("_make".into(), make));
    Ok(Obj::Class(class))
}

/// What `__init__` of one namedtuple class needs to know.
struct Spec {
    name: String,
    fields: Vec<String>,
    defaults: Dict,
}

impl Spec {
    /// `Point(1, y=2)`: sets the fields on the new instance.
    fn init(&self, a: Args) -> Result<Obj> {
        let Some(Obj::Instance(inst)) = a.pos.first() else {
            bail!(
                TypeError,
                "{}.__new__(): not a {} instance",
                self.name,
                self.name
            );
        };
        let given = a.pos.len() - 1;
        if given > self.fields.len() {
            let required = self.fields.len() - self.defaults.len();
            let name = format!("{}.__new__", self.name);
            return Err(too_many(
                &name,
                required + 1,
                self.fields.len() + 1,
                given + 1,
            ));
        }
        let mut values: Vec<Option<Obj>> = a.pos[1..].iter().cloned().map(Some).collect();
        values.resize(self.fields.len(), None);
        for (k, v) in &a.kw {
            let Some(p) = self.fields.iter().position(|f| f == k) else {
                bail!(
                    TypeError,
                    "{}.__new__() got an unexpected keyword argument '{k}'",
                    self.name
                );
            };
            if values[p].is_some() {
                bail!(
                    TypeError,
                    "{}.__new__() got multiple values for argument '{k}'",
                    self.name
                );
            }
            values[p] = Some(v.clone());
        }
        let mut missing = vec![];
        for (f, v) in self.fields.iter().zip(values.iter_mut()) {
            if v.is_none() {
                *v = self.defaults.get(&Obj::str(f));
            }
            if v.is_none() {
                missing.push(format!("'{f}'"));
            }
        }
        if !missing.is_empty() {
            bail!(
                TypeError,
                "{}.__new__() missing {} required positional argument{}: {}",
                self.name,
                missing.len(),
                if missing.len() == 1 { "" } else { "s" },
                join_names(&missing)
            );
        }
        let mut attrs = inst.attrs.borrow_mut();
        for (f, v) in self.fields.iter().zip(values) {
            attrs.push((f.clone(), v.unwrap_or(Obj::None)));
        }
        Ok(Obj::None)
    }
}

/// Python's error for a call with too many positional arguments, to a
/// function taking `min` to `max` of them.
pub fn too_many(func: &str, min: usize, max: usize, given: usize) -> crate::error::Error {
    let takes = if min == max {
        format!(
            "{max} positional argument{}",
            if max == 1 { "" } else { "s" }
        )
    } else {
        format!("from {min} to {max} positional arguments")
    };
    err!(
        TypeError,
        "{func}() takes {takes} but {given} {} given",
        if given == 1 { "was" } else { "were" }
    )
}

/// `'a'`, `'a' and 'b'`, `'a', 'b', and 'c'`, as Python lists missing
/// arguments.
pub fn join_names(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        [a, b] => format!("{a} and {b}"),
        [init @ .., last] => format!("{}, and {last}", init.join(", ")),
    }
}

/// The fields of a namedtuple instance's class.
fn fields_of(i: &Instance) -> Vec<String> {
    match i.class.lookup("_fields") {
        Some(Obj::Tuple(t)) => t.iter().map(str_of).collect(),
        _ => vec![],
    }
}

/// The field values of a namedtuple instance, in order.
fn values_of(i: &Instance) -> Vec<Obj> {
    let attrs = i.attrs.borrow();
    fields_of(i)
        .iter()
        .map(|f| {
            attrs
                .iter()
                .find(|(k, _)| k == f)
                .map(|(_, v)| v.clone())
                .unwrap_or(Obj::None)
        })
        .collect()
}

fn this_instance(a: &Args, what: &str) -> Result<Rc<Instance>> {
    match a.pos.first() {
        Some(Obj::Instance(i)) => Ok(i.clone()),
        _ => bail!(TypeError, "{what}() needs a namedtuple instance"),
    }
}

/// `p._replace(**changes)`: for any class whose `_fields` name its
/// instances' fields (optax's states too).
pub(crate) fn replace(_: &mut Interp, a: Args) -> Result<Obj> {
    let inst = this_instance(&a, "_replace")?;
    let fields = fields_of(&inst);
    let unknown: Vec<String> =
        a.kw.iter()
            .filter(|(k, _)| !fields.contains(k))
            .map(|(k, _)| repr_of(&Obj::str(k)))
            .collect();
    if !unknown.is_empty() {
        bail!(
            ValueError,
            "Got unexpected field names: [{}]",
            unknown.join(", ")
        );
    }
    let mut attrs = inst.attrs.borrow().clone();
    for (k, v) in a.kw {
        if let Some(slot) = attrs.iter_mut().find(|(n, _)| *n == k) {
            slot.1 = v;
        }
    }
    Ok(Obj::Instance(Rc::new(Instance::with_attrs(
        inst.class.clone(),
        attrs,
    ))))
}

/// `p._asdict()`.
pub(crate) fn asdict(_: &mut Interp, a: Args) -> Result<Obj> {
    let inst = this_instance(&a, "_asdict")?;
    let d: Dict = fields_of(&inst)
        .iter()
        .map(Obj::str)
        .zip(values_of(&inst))
        .collect();
    Ok(Obj::Dict(Rc::new(RefCell::new(d))))
}

fn tuple_repr(_: &mut Interp, a: Args) -> Result<Obj> {
    let inst = this_instance(&a, "__repr__")?;
    Ok(Obj::str(namedtuple_repr(&inst)))
}

fn tuple_eq(_: &mut Interp, a: Args) -> Result<Obj> {
    let inst = this_instance(&a, "__eq__")?;
    let other = a.req(Some(1), "other", "__eq__")?;
    Ok(Obj::Bool(namedtuple_eq(&inst, &other)))
}

fn tuple_len(_: &mut Interp, a: Args) -> Result<Obj> {
    let inst = this_instance(&a, "__len__")?;
    Ok(Obj::Int(fields_of(&inst).len() as i64))
}

fn tuple_count(_: &mut Interp, a: Args) -> Result<Obj> {
    let inst = this_instance(&a, "count")?;
    let x = a.req(Some(1), "value", "count")?;
    let n = values_of(&inst).iter().filter(|v| py_eq(v, &x)).count();
    Ok(Obj::Int(n as i64))
}

fn tuple_index(_: &mut Interp, a: Args) -> Result<Obj> {
    let inst = this_instance(&a, "index")?;
    let x = a.req(Some(1), "value", "index")?;
    values_of(&inst)
        .iter()
        .position(|v| py_eq(v, &x))
        .map(|p| Obj::Int(p as i64))
        .ok_or_else(|| err!(ValueError, "tuple.index(x): x not in tuple"))
}

fn namedtuple_repr(i: &Instance) -> String {
    let parts: Vec<String> = fields_of(i)
        .iter()
        .zip(values_of(i))
        .map(|(f, v)| format!("{f}={}", repr_of(&v)))
        .collect();
    format!("{}({})", i.class.name, parts.join(", "))
}

/// Tuple equality: a namedtuple equals any tuple (or namedtuple) with equal items.
fn namedtuple_eq(i: &Instance, other: &Obj) -> bool {
    let theirs = match other {
        Obj::Tuple(t) => t.to_vec(),
        Obj::Instance(o)
            if o.class
                .native()
                .is_some_and(|b| b.downcast::<NamedTuple>().is_some()) =>
        {
            values_of(o)
        }
        _ => return false,
    };
    let ours = values_of(i);
    ours.len() == theirs.len() && ours.iter().zip(&theirs).all(|(a, b)| py_eq(a, b))
}

/// The behaviour of namedtuple instances.
struct NamedTuple;

impl Object for NamedTuple {
    fn type_name(&self) -> String {
        "namedtuple".into()
    }

    fn repr(&self, this: &Obj) -> Option<String> {
        let Obj::Instance(i) = this else { return None };
        Some(namedtuple_repr(i))
    }

    fn items(&self, this: &Obj) -> Option<Result<Vec<Obj>>> {
        let Obj::Instance(i) = this else { return None };
        Some(Ok(values_of(i)))
    }

    fn getitem(&self, interp: &mut Interp, this: &Obj, key: &Obj) -> Option<Result<Obj>> {
        let Obj::Instance(i) = this else { return None };
        Some(getitem(interp, &Obj::tuple(values_of(i)), key))
    }

    fn eq(&self, this: &Obj, other: &Obj) -> Option<bool> {
        let Obj::Instance(i) = this else { return None };
        Some(namedtuple_eq(i, other))
    }

    fn children(&self, this: &Obj) -> Option<Vec<String>> {
        let Obj::Instance(i) = this else { return None };
        Some(fields_of(i))
    }
}

// ------------------------------------------------------------------- Counter

/// `collections.Counter`: counts by key; a missing key counts 0.
pub struct Counter {
    counts: RefCell<Dict>,
}

/// `Counter(iterable_or_mapping=None, /, **kwargs)`.
fn counter(_: &mut Interp, a: Args) -> Result<Obj> {
    let c = Counter {
        counts: RefCell::new(Dict::default()),
    };
    c.update(a.pos.first(), &a.kw)?;
    Ok(Obj::lib(c))
}

/// Adds `n` to the count of `key`.
fn add_count(d: &mut Dict, key: Obj, n: &Obj) -> Result<()> {
    crate::python::dict::check_hashable(&key)?;
    let cur = d.get(&key).unwrap_or(Obj::Int(0));
    let sum = match (&cur, n) {
        (Obj::Int(x), Obj::Int(y)) => Obj::Int(x + y),
        (x, y) => match (x.as_number(), y.as_number()) {
            (Some(x), Some(y)) => Obj::Float(x + y),
            _ => bail!(
                TypeError,
                "unsupported operand type(s) for +: '{}' and '{}'",
                x.type_name(),
                y.type_name()
            ),
        },
    };
    d.set(key, sum);
    Ok(())
}

impl Counter {
    /// `c.update(iterable_or_mapping, **kwargs)` (`sign` -1 for `subtract`).
    fn merge(&self, src: Option<&Obj>, kw: &[(String, Obj)], sign: i64) -> Result<()> {
        let mut pairs: Vec<(Obj, Obj)> = vec![];
        match src {
            None | Some(Obj::None) => {}
            Some(Obj::Dict(d)) => pairs.extend(d.borrow().items.iter().cloned()),
            Some(o) => match o.downcast::<Counter>() {
                Some(c) => pairs.extend(c.counts.borrow().items.iter().cloned()),
                None => pairs.extend(iterate(o)?.into_iter().map(|k| (k, Obj::Int(1)))),
            },
        }
        pairs.extend(kw.iter().map(|(k, v)| (Obj::str(k), v.clone())));
        let mut d = self.counts.borrow_mut();
        for (k, v) in pairs {
            let v = match (sign, &v) {
                (1, _) => v,
                (_, Obj::Int(n)) => Obj::Int(-n),
                (_, o) => Obj::Float(-o.as_number().unwrap_or(0.0)),
            };
            add_count(&mut d, k, &v)?;
        }
        Ok(())
    }

    fn update(&self, src: Option<&Obj>, kw: &[(String, Obj)]) -> Result<()> {
        self.merge(src, kw, 1)
    }

    /// The (key, count) pairs, largest counts first (ties in insertion order).
    fn most_common(&self) -> Result<Vec<(Obj, Obj)>> {
        let mut items = self.counts.borrow().items.clone();
        let mut failure = None;
        items.sort_by(|a, b| match py_cmp(&b.1, &a.1) {
            Ok(o) => o,
            Err(e) => {
                failure = Some(e);
                std::cmp::Ordering::Equal
            }
        });
        match failure {
            Some(e) => Err(e),
            None => Ok(items),
        }
    }

    fn repr(&self) -> String {
        let items = self
            .most_common()
            .unwrap_or_else(|_| self.counts.borrow().items.clone());
        if items.is_empty() {
            return "Counter()".into();
        }
        let body: Vec<String> = items
            .iter()
            .map(|(k, v)| format!("{}: {}", repr_of(k), repr_of(v)))
            .collect();
        format!("Counter({{{}}})", body.join(", "))
    }

    /// A method of the counter, bound to it.
    fn method(this: &Obj, name: &str) -> Option<Obj> {
        let me = this.clone();
        let with = move |f: fn(&Counter, Args) -> Result<Obj>| {
            let me = me.clone();
            Obj::native(format!("Counter.{name}"), move |_, a| {
                match me.downcast::<Counter>() {
                    Some(c) => f(c, a),
                    None => bail!(TypeError, "not a Counter"),
                }
            })
        };
        Some(match name {
            "most_common" => with(|c, a| {
                let items = c.most_common()?;
                let n = match a.opt(Some(0), "n") {
                    Some(n) => to_int(&n)?.max(0) as usize,
                    None => items.len(),
                };
                Ok(Obj::list(
                    items
                        .into_iter()
                        .take(n)
                        .map(|(k, v)| Obj::tuple(vec![k, v]))
                        .collect(),
                ))
            }),
            "update" => with(|c, a| c.update(a.pos.first(), &a.kw).map(|_| Obj::None)),
            "subtract" => with(|c, a| c.merge(a.pos.first(), &a.kw, -1).map(|_| Obj::None)),
            "total" => with(|c, _| {
                let mut d = Dict::default();
                for (_, v) in c.counts.borrow().items.iter() {
                    add_count(&mut d, Obj::None, v)?;
                }
                Ok(d.get(&Obj::None).unwrap_or(Obj::Int(0)))
            }),
            "elements" => with(|c, _| {
                let mut out = vec![];
                for (k, v) in c.counts.borrow().items.iter() {
                    let n = to_int(v).unwrap_or(0);
                    out.extend((0..n.max(0)).map(|_| k.clone()));
                }
                Ok(Obj::list(out))
            }),
            "copy" => with(|c, _| {
                Ok(Obj::lib(Counter {
                    counts: RefCell::new(c.counts.borrow().clone()),
                }))
            }),
            "clear" => with(|c, _| {
                c.counts.borrow_mut().clear();
                Ok(Obj::None)
            }),
            "keys" | "values" | "items" | "get" | "pop" | "setdefault" => {
                Counter::dict_method(this, name)
            }
            _ => return None,
        })
    }

    /// A dict method (`keys`, `items`, `get`, ...) run on the counts.
    fn dict_method(this: &Obj, name: &str) -> Obj {
        let me = this.clone();
        let name = name.to_string();
        Obj::native(format!("Counter.{name}"), move |i, a| {
            let Some(c) = me.downcast::<Counter>() else {
                bail!(TypeError, "not a Counter");
            };
            let shared = Obj::Dict(Rc::new(RefCell::new(c.counts.borrow().clone())));
            let f = crate::python::builtins::method(&shared, &name).ok_or_else(|| {
                err!(AttributeError, "'Counter' object has no attribute '{name}'")
            })?;
            let out = i.call(&f, a)?;
            if let Obj::Dict(d) = &shared {
                *c.counts.borrow_mut() = d.borrow().clone();
            }
            Ok(out)
        })
    }
}

impl Object for Counter {
    fn type_name(&self) -> String {
        "Counter".into()
    }

    fn getattr(&self, _: &mut Interp, this: &Obj, name: &str) -> Result<Option<Obj>> {
        Ok(Counter::method(this, name))
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some(self.repr())
    }

    fn items(&self, _: &Obj) -> Option<Result<Vec<Obj>>> {
        Some(Ok(self
            .counts
            .borrow()
            .items
            .iter()
            .map(|(k, _)| k.clone())
            .collect()))
    }

    fn getitem(&self, _: &mut Interp, _: &Obj, key: &Obj) -> Option<Result<Obj>> {
        if let Err(e) = crate::python::dict::check_hashable(key) {
            return Some(Err(e));
        }
        Some(Ok(self.counts.borrow().get(key).unwrap_or(Obj::Int(0))))
    }

    fn eq(&self, _: &Obj, other: &Obj) -> Option<bool> {
        let theirs = match other {
            Obj::Dict(d) => d.borrow().clone(),
            o => match o.downcast::<Counter>() {
                Some(c) => c.counts.borrow().clone(),
                None => return Some(false),
            },
        };
        let ours = self.counts.borrow();
        let zero = Obj::Int(0);
        let same = |a: &Dict, b: &Dict| {
            a.items
                .iter()
                .all(|(k, v)| py_eq(v, &b.get(k).unwrap_or(zero.clone())))
        };
        Some(same(&ours, &theirs) && same(&theirs, &ours))
    }
}

// --------------------------------------------------------------------- deque

/// `collections.deque`: a list with fast ends and an optional bound.
pub struct Deque {
    items: RefCell<VecDeque<Obj>>,
    maxlen: Option<usize>,
}

/// `deque(iterable=(), maxlen=None)`.
fn deque(_: &mut Interp, a: Args) -> Result<Obj> {
    let maxlen = match a.opt(Some(1), "maxlen") {
        Some(m) => {
            let n = to_int(&m)?;
            if n < 0 {
                bail!(ValueError, "maxlen must be non-negative");
            }
            Some(n as usize)
        }
        None => None,
    };
    let d = Deque {
        items: RefCell::new(VecDeque::new()),
        maxlen,
    };
    if let Some(src) = a.opt(Some(0), "iterable") {
        for x in iterate(&src)? {
            d.push(x, false);
        }
    }
    Ok(Obj::lib(d))
}

impl Deque {
    /// Appends on the right (or the left), dropping from the other end when full.
    fn push(&self, x: Obj, left: bool) {
        let mut items = self.items.borrow_mut();
        if self.maxlen == Some(0) {
            return;
        }
        if left {
            items.push_front(x);
        } else {
            items.push_back(x);
        }
        if let Some(m) = self.maxlen {
            while items.len() > m {
                if left {
                    items.pop_back();
                } else {
                    items.pop_front();
                }
            }
        }
    }

    fn pop(&self, left: bool) -> Result<Obj> {
        let mut items = self.items.borrow_mut();
        let x = if left {
            items.pop_front()
        } else {
            items.pop_back()
        };
        x.ok_or_else(|| err!(IndexError, "pop from an empty deque"))
    }

    fn rotate(&self, n: i64) {
        let mut items = self.items.borrow_mut();
        let len = items.len() as i64;
        if len == 0 {
            return;
        }
        let k = n.rem_euclid(len) as usize;
        items.rotate_right(k);
    }

    /// `append`, `appendleft`, `extend` or `extendleft`, bound to the deque.
    fn push_method(this: &Obj, name: &str) -> Obj {
        let left = name.ends_with("left");
        let many = name.starts_with("extend");
        let me = this.clone();
        Obj::native(format!("deque.{name}"), move |_, a| {
            let xs = if many {
                iterate(&a.req(Some(0), "iterable", "extend")?)?
            } else {
                vec![a.req(Some(0), "x", "append")?]
            };
            if let Some(d) = me.downcast::<Deque>() {
                for x in xs {
                    d.push(x, left);
                }
            }
            Ok(Obj::None)
        })
    }

    /// A method of the deque, bound to it.
    fn method(this: &Obj, name: &str) -> Option<Obj> {
        let me = this.clone();
        let with = move |f: fn(&Deque, Args) -> Result<Obj>| {
            let me = me.clone();
            Obj::native(format!("deque.{name}"), move |_, a| {
                match me.downcast::<Deque>() {
                    Some(d) => f(d, a),
                    None => bail!(TypeError, "not a deque"),
                }
            })
        };
        Some(match name {
            "append" | "appendleft" | "extend" | "extendleft" => Deque::push_method(this, name),
            "pop" => with(|d, _| d.pop(false)),
            "popleft" => with(|d, _| d.pop(true)),
            "clear" => with(|d, _| {
                d.items.borrow_mut().clear();
                Ok(Obj::None)
            }),
            "rotate" => with(|d, a| {
                let n = match a.get(Some(0), "n") {
                    Some(n) => to_int(&n)?,
                    None => 1,
                };
                d.rotate(n);
                Ok(Obj::None)
            }),
            "reverse" => with(|d, _| {
                d.items.borrow_mut().make_contiguous().reverse();
                Ok(Obj::None)
            }),
            "count" => with(|d, a| {
                let x = a.req(Some(0), "x", "count")?;
                let n = d.items.borrow().iter().filter(|y| py_eq(y, &x)).count();
                Ok(Obj::Int(n as i64))
            }),
            "index" => with(|d, a| {
                let x = a.req(Some(0), "x", "index")?;
                let p = d.items.borrow().iter().position(|y| py_eq(y, &x));
                p.map(|p| Obj::Int(p as i64))
                    .ok_or_else(|| err!(ValueError, "{} is not in deque", repr_of(&x)))
            }),
            "remove" => with(|d, a| {
                let x = a.req(Some(0), "value", "remove")?;
                let p = d.items.borrow().iter().position(|y| py_eq(y, &x));
                match p {
                    Some(p) => {
                        d.items.borrow_mut().remove(p);
                        Ok(Obj::None)
                    }
                    None => bail!(ValueError, "deque.remove(x): x not in deque"),
                }
            }),
            "copy" => with(|d, _| {
                Ok(Obj::lib(Deque {
                    items: RefCell::new(d.items.borrow().clone()),
                    maxlen: d.maxlen,
                }))
            }),
            "maxlen" => {
                let d = this.downcast::<Deque>()?;
                d.maxlen.map(|m| Obj::Int(m as i64)).unwrap_or(Obj::None)
            }
            _ => return None,
        })
    }
}

impl Object for Deque {
    fn type_name(&self) -> String {
        "deque".into()
    }

    fn getattr(&self, _: &mut Interp, this: &Obj, name: &str) -> Result<Option<Obj>> {
        Ok(Deque::method(this, name))
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        let items: Vec<String> = self.items.borrow().iter().map(repr_of).collect();
        Some(match self.maxlen {
            Some(m) => format!("deque([{}], maxlen={m})", items.join(", ")),
            None => format!("deque([{}])", items.join(", ")),
        })
    }

    fn items(&self, _: &Obj) -> Option<Result<Vec<Obj>>> {
        Some(Ok(self.items.borrow().iter().cloned().collect()))
    }

    fn getitem(&self, _: &mut Interp, _: &Obj, key: &Obj) -> Option<Result<Obj>> {
        let items = self.items.borrow();
        Some(match key {
            Obj::Slice(_) => Err(err!(
                TypeError,
                "sequence index must be integer, not 'slice'"
            )),
            k => to_int(k).and_then(|i| {
                let n = items.len() as i64;
                let j = if i < 0 { i + n } else { i };
                if j < 0 || j >= n {
                    bail!(IndexError, "deque index out of range");
                }
                Ok(items[j as usize].clone())
            }),
        })
    }

    fn eq(&self, _: &Obj, other: &Obj) -> Option<bool> {
        let Some(o) = other.downcast::<Deque>() else {
            return Some(false);
        };
        let (a, b) = (self.items.borrow(), o.items.borrow());
        Some(a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| py_eq(x, y)))
    }
}
