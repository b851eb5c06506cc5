//! `dataclasses`: `dataclass`, `field`, `fields`, `asdict`, `astuple`,
//! `replace` and `is_dataclass`.
//!
//! `@dataclass` reads the class body's annotated names in order (the core
//! records them in `__annotations__`) and returns the class again with the
//! generated `__init__`, `__repr__`, `__eq__` (and, on request, ordering and
//! frozen `__setattr__`) among its attributes, and `__dataclass_fields__`
//! mapping each field name to its [`Field`]. Instances print through the
//! class's native behaviour as `Name(a=1, b=[1, 2])`.

use std::cell::RefCell;
use std::hash::{Hash, Hasher};
use std::rc::Rc;

use crate::error::Result;
use crate::{bail, err};

use super::collections::{join_names, too_many};
use crate::modules::Builder;
use crate::python::format::{repr_of, str_repr};
use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::ops::{getattr, py_cmp, py_eq, truthy};
use crate::python::value::{Args, Class, Dict, Instance, Obj};

/// The `dataclasses` module.
pub fn module(interp: &mut Interp) -> Obj {
    Builder::new("dataclasses")
        .func("dataclass", dataclass)
        .func("field", field)
        .func("fields", fields)
        .func("asdict", |i, a| convert(i, a, false))
        .func("astuple", |i, a| convert(i, a, true))
        .func("replace", replace)
        .func("is_dataclass", |_, a| {
            let o = a.req(Some(0), "obj", "is_dataclass")?;
            Ok(Obj::Bool(class_fields(&o).is_some()))
        })
        .attr("MISSING", Obj::lib(Missing))
        .attr("KW_ONLY", Obj::lib(Sentinel("KW_ONLY")))
        .attr("InitVar", Obj::lib(Sentinel("InitVar")))
        .attr("FrozenInstanceError", frozen_instance_error(interp))
        .build()
}

/// `dataclasses.MISSING`: no default was given.
struct Missing;

impl Object for Missing {
    fn type_name(&self) -> String {
        "_MISSING_TYPE".into()
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some("<dataclasses._MISSING_TYPE object>".into())
    }

    fn eq(&self, _: &Obj, other: &Obj) -> Option<bool> {
        Some(other.downcast::<Missing>().is_some())
    }
}

/// A marker (`KW_ONLY`, `InitVar`) that is accepted but has no effect: the
/// core does not keep annotation values, so a field's type is not known.
struct Sentinel(&'static str);

impl Object for Sentinel {
    fn type_name(&self) -> String {
        format!("_{}_TYPE", self.0)
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some(format!("dataclasses.{}", self.0))
    }

    fn getitem(&self, _: &mut Interp, this: &Obj, _: &Obj) -> Option<Result<Obj>> {
        Some(Ok(this.clone()))
    }
}

/// One field of a dataclass, as `dataclasses.field(...)` describes it.
#[derive(Clone)]
pub struct Field {
    name: String,
    default: Option<Obj>,
    default_factory: Option<Obj>,
    init: bool,
    repr: bool,
    compare: bool,
    hash: Obj,
    kw_only: Option<bool>,
    metadata: Obj,
}

impl Object for Field {
    fn type_name(&self) -> String {
        "Field".into()
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        let missing = || Obj::lib(Missing);
        Ok(Some(match name {
            "name" => Obj::str(&self.name),
            "type" => Obj::None,
            "default" => self.default.clone().unwrap_or_else(missing),
            "default_factory" => self.default_factory.clone().unwrap_or_else(missing),
            "init" => Obj::Bool(self.init),
            "repr" => Obj::Bool(self.repr),
            "compare" => Obj::Bool(self.compare),
            "hash" => self.hash.clone(),
            "kw_only" => Obj::Bool(self.kw_only.unwrap_or(false)),
            "metadata" => self.metadata.clone(),
            _ => return Ok(None),
        }))
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        let m = "<dataclasses._MISSING_TYPE object>".to_string();
        Some(format!(
            "Field(name={},type=None,default={},default_factory={},init={},repr={},hash={},compare={},metadata={},kw_only={})",
            str_repr(&self.name),
            self.default.as_ref().map(repr_of).unwrap_or_else(|| m.clone()),
            self.default_factory.as_ref().map(repr_of).unwrap_or(m),
            py_bool(self.init),
            py_bool(self.repr),
            repr_of(&self.hash),
            py_bool(self.compare),
            repr_of(&self.metadata),
            py_bool(self.kw_only.unwrap_or(false)),
        ))
    }
}

fn py_bool(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}

fn flag(a: &Args, name: &str, default: bool) -> Result<bool> {
    match a.get(None, name) {
        Some(v) => truthy(&v, name),
        None => Ok(default),
    }
}

/// `field(*, default=MISSING, default_factory=MISSING, init=True, repr=True,
/// hash=None, compare=True, metadata=None, kw_only=MISSING)`.
fn field(_: &mut Interp, a: Args) -> Result<Obj> {
    if !a.pos.is_empty() {
        bail!(
            TypeError,
            "field() takes 0 positional arguments but {} were given",
            a.pos.len()
        );
    }
    const KNOWN: [&str; 8] = [
        "default",
        "default_factory",
        "init",
        "repr",
        "hash",
        "compare",
        "metadata",
        "kw_only",
    ];
    if let Some((k, _)) = a.kw.iter().find(|(k, _)| !KNOWN.contains(&k.as_str())) {
        bail!(
            TypeError,
            "field() got an unexpected keyword argument '{k}'"
        );
    }
    let given = |n: &str| a.get(None, n).filter(|v| v.downcast::<Missing>().is_none());
    let default = given("default");
    let default_factory = given("default_factory");
    if default.is_some() && default_factory.is_some() {
        bail!(
            ValueError,
            "cannot specify both default and default_factory"
        );
    }
    let kw_only = match given("kw_only") {
        Some(v) => Some(truthy(&v, "kw_only")?),
        None => None,
    };
    Ok(Obj::lib(Field {
        name: String::new(),
        default,
        default_factory,
        init: flag(&a, "init", true)?,
        repr: flag(&a, "repr", true)?,
        compare: flag(&a, "compare", true)?,
        hash: a.get(None, "hash").unwrap_or(Obj::None),
        kw_only,
        metadata: a
            .opt(None, "metadata")
            .unwrap_or_else(|| Obj::Dict(Rc::new(RefCell::new(Dict::default())))),
    }))
}

/// What `@dataclass(...)` was asked for.
#[derive(Clone, Copy)]
struct Options {
    init: bool,
    repr: bool,
    eq: bool,
    order: bool,
    frozen: bool,
    kw_only: bool,
    unsafe_hash: bool,
}

fn options(a: &Args) -> Result<Options> {
    const KNOWN: [&str; 10] = [
        "init",
        "repr",
        "eq",
        "order",
        "unsafe_hash",
        "frozen",
        "match_args",
        "kw_only",
        "slots",
        "weakref_slot",
    ];
    if let Some((k, _)) = a.kw.iter().find(|(k, _)| !KNOWN.contains(&k.as_str())) {
        bail!(
            TypeError,
            "dataclass() got an unexpected keyword argument '{k}'"
        );
    }
    let o = Options {
        init: flag(a, "init", true)?,
        repr: flag(a, "repr", true)?,
        eq: flag(a, "eq", true)?,
        order: flag(a, "order", false)?,
        frozen: flag(a, "frozen", false)?,
        kw_only: flag(a, "kw_only", false)?,
        unsafe_hash: flag(a, "unsafe_hash", false)?,
    };
    if o.order && !o.eq {
        bail!(ValueError, "eq must be true if order is true");
    }
    Ok(o)
}

/// `dataclass(cls, **options)` for a library decorator built on Python's
/// (`flax.struct.dataclass`): the options are the keywords of `a`.
pub fn dataclass_of(interp: &mut Interp, c: &Rc<Class>, a: &Args) -> Result<Obj> {
    process(interp, c, options(a)?)
}

/// The names of the fields of a dataclass or of one of its instances.
pub fn field_names(o: &Obj) -> Option<Vec<String>> {
    class_fields(o).map(|fs| fs.into_iter().map(|f| f.name).collect())
}

/// Makes the fields `data` of the dataclass `cls` its pytree children (the
/// other fields stay with the node, as `register_dataclass`'s meta fields).
pub fn set_data_fields(cls: &Obj, data: Vec<Obj>) -> Result<()> {
    crate::python::ops::setattr(cls, DATA_FIELDS, Obj::tuple(data))
}

/// `@dataclass`, `@dataclass(...)` or `dataclass(cls, ...)`.
fn dataclass(interp: &mut Interp, a: Args) -> Result<Obj> {
    let opts = options(&a)?;
    match a.pos.first() {
        Some(Obj::Class(c)) => process(interp, c, opts),
        Some(other) => bail!(
            TypeError,
            "dataclass() should be called on a class, not {}",
            other.type_name()
        ),
        None => Ok(Obj::native("dataclasses.dataclass", move |i, a| {
            match a.pos.first() {
                Some(Obj::Class(c)) => process(i, c, opts),
                _ => bail!(TypeError, "dataclass() should be called on a class"),
            }
        })),
    }
}

/// The fields of a dataclass (or of an instance of one), in order.
fn class_fields(o: &Obj) -> Option<Vec<Field>> {
    let class = match o {
        Obj::Class(c) => c.clone(),
        Obj::Instance(i) => i.class.clone(),
        _ => return None,
    };
    match class.lookup("__dataclass_fields__") {
        Some(Obj::Dict(d)) => Some(
            d.borrow()
                .items
                .iter()
                .filter_map(|(_, f)| f.downcast::<Field>().cloned())
                .collect(),
        ),
        _ => None,
    }
}

fn own_attr(c: &Class, name: &str) -> Option<Obj> {
    c.attrs
        .borrow()
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.clone())
}

/// The `metadata` mapping of the field `name` of the dataclass `class`.
pub fn field_metadata(class: &Class, name: &str) -> Option<Obj> {
    let Some(Obj::Dict(d)) = class.lookup("__dataclass_fields__") else {
        return None;
    };
    let d = d.borrow();
    d.items
        .iter()
        .find(|(k, _)| matches!(k, Obj::Str(s) if &**s == name))
        .and_then(|(_, f)| f.downcast::<Field>().map(|f| f.metadata.clone()))
}

/// The fields of `c`: its dataclass bases' first, then its own annotations.
fn collect_fields(c: &Class, opts: Options) -> Result<Vec<Field>> {
    let mut out: Vec<Field> = vec![];
    for b in c.bases.iter().rev() {
        for f in class_fields(&Obj::Class(b.clone())).unwrap_or_default() {
            match out.iter_mut().find(|g| g.name == f.name) {
                Some(slot) => *slot = f,
                None => out.push(f),
            }
        }
    }
    let names: Vec<Obj> = match own_attr(c, "__annotations__") {
        Some(Obj::Dict(d)) => d.borrow().items.iter().map(|(k, _)| k.clone()).collect(),
        _ => vec![],
    };
    for n in names {
        let name = crate::python::format::str_of(&n);
        let mut f = match c.lookup(&name) {
            Some(v) => match v.downcast::<Field>() {
                Some(f) => f.clone(),
                None => plain_field(Some(v)),
            },
            None => plain_field(None),
        };
        f.name = name.clone();
        f.kw_only = Some(f.kw_only.unwrap_or(opts.kw_only));
        if let Some(d @ (Obj::List(_) | Obj::Dict(_))) = &f.default {
            bail!(
                ValueError,
                "mutable default <class '{}'> for field {name} is not allowed: use default_factory",
                d.type_name()
            );
        }
        match out.iter_mut().find(|g| g.name == f.name) {
            Some(slot) => *slot = f,
            None => out.push(f),
        }
    }
    Ok(out)
}

fn plain_field(default: Option<Obj>) -> Field {
    Field {
        name: String::new(),
        default,
        default_factory: None,
        init: true,
        repr: true,
        compare: true,
        hash: Obj::None,
        kw_only: None,
        metadata: Obj::Dict(Rc::new(RefCell::new(Dict::default()))),
    }
}

fn has_default(f: &Field) -> bool {
    f.default.is_some() || f.default_factory.is_some()
}

/// Builds the dataclass from the class the body made.
fn process(_: &mut Interp, c: &Rc<Class>, opts: Options) -> Result<Obj> {
    let fields = collect_fields(c, opts)?;
    let mut seen_default: Option<&Field> = None;
    for f in fields.iter().filter(|f| f.init && f.kw_only != Some(true)) {
        if has_default(f) {
            seen_default = Some(f);
        } else if seen_default.is_some() {
            bail!(
                TypeError,
                "non-default argument '{}' follows default argument",
                f.name
            );
        }
    }
    check_frozen_bases(c, opts.frozen)?;
    let fields = Rc::new(fields);
    let mut attrs: Vec<(String, Obj)> = c.attrs.borrow().clone();
    for f in fields.iter() {
        let was_field = own_attr(c, &f.name).is_some_and(|v| v.downcast::<Field>().is_some());
        if was_field {
            attrs.retain(|(k, _)| *k != f.name);
            if let Some(d) = &f.default {
                attrs.push((f.name.clone(), d.clone()));
            }
        }
    }
    let table: Dict = fields
        .iter()
        .map(|f| (Obj::str(&f.name), Obj::lib(f.clone())))
        .collect();
    let mut add = |name: &str, v: Obj| {
        if !attrs.iter().any(|(k, _)| k == name) {
            attrs.push((name.to_string(), v));
        }
    };
    add(
        "__dataclass_fields__",
        Obj::Dict(Rc::new(RefCell::new(table))),
    );
    add("__dataclass_frozen__", Obj::Bool(opts.frozen));
    let positional: Vec<Obj> = fields
        .iter()
        .filter(|f| f.init && f.kw_only != Some(true))
        .map(|f| Obj::str(&f.name))
        .collect();
    add("__match_args__", Obj::tuple(positional));
    generate(&mut add, &c.name, &fields, opts);
    let mut class = Class::new(c.name.clone(), c.bases.clone(), attrs);
    if c.native().is_none() {
        class.native = Some(Rc::new(Dataclass));
    }
    Ok(Obj::Class(Rc::new(class)))
}

/// Adds the generated methods.
fn generate(add: &mut dyn FnMut(&str, Obj), name: &str, fields: &Rc<Vec<Field>>, opts: Options) {
    if opts.init {
        let (fs, n) = (fields.clone(), name.to_string());
        add(
            "__init__",
            Obj::native(format!("{name}.__init__"), move |i, a| init(i, &n, &fs, a)),
        );
    }
    if opts.repr {
        add(
            "__repr__",
            Obj::native(REPR, |_, a| {
                let this = a.req(Some(0), "self", "__repr__")?;
                Ok(Obj::str(instance_repr(&this)))
            }),
        );
    }
    if opts.eq {
        add(
            "__eq__",
            Obj::native(EQ, |_, a| {
                let this = a.req(Some(0), "self", "__eq__")?;
                let other = a.req(Some(1), "other", "__eq__")?;
                Ok(Obj::Bool(instance_eq(&this, &other)))
            }),
        );
    }
    if opts.order {
        for (op, name) in [
            ("<", "__lt__"),
            ("<=", "__le__"),
            (">", "__gt__"),
            (">=", "__ge__"),
        ] {
            add(name, Obj::native(name, move |_, a| order(op, &a)));
        }
    }
    if opts.frozen {
        for (name, verb) in [("__setattr__", "assign to"), ("__delattr__", "delete")] {
            add(
                name,
                Obj::native(name, move |interp, a| {
                    let n = a
                        .get(Some(1), "name")
                        .map(|n| crate::python::format::str_of(&n));
                    let message = format!("cannot {verb} field '{}'", n.unwrap_or_default());
                    // The module's own class, so that `except
                    // dataclasses.FrozenInstanceError` catches it.
                    let module = interp.import("dataclasses")?;
                    let class =
                        crate::python::ops::getattr(interp, &module, "FrozenInstanceError")?;
                    let error = interp.call(&class, Args::new(vec![Obj::str(message)]))?;
                    Err(interp.raise(error)?)
                }),
            );
        }
    }
    if opts.unsafe_hash || (opts.eq && opts.frozen) {
        add(
            "__hash__",
            Obj::native("__hash__", |_, a| {
                let this = a.req(Some(0), "self", "__hash__")?;
                let mut h = std::collections::hash_map::DefaultHasher::new();
                compared_values(&this)
                    .iter()
                    .map(repr_of)
                    .for_each(|s| s.hash(&mut h));
                Ok(Obj::Int(h.finish() as i64 >> 1))
            }),
        );
    } else if opts.eq {
        add("__hash__", Obj::None);
    }
}

/// Names of the generated `__repr__` and `__eq__`, by which the native
/// behaviour knows a class did not define its own.
const REPR: &str = "dataclasses.__repr__";
const EQ: &str = "dataclasses.__eq__";

/// Python refuses a frozen dataclass over a non-frozen one and the reverse.
fn check_frozen_bases(c: &Class, frozen: bool) -> Result<()> {
    for b in &c.bases {
        if let Some(Obj::Bool(f)) = b.lookup("__dataclass_frozen__") {
            if f && !frozen {
                bail!(
                    TypeError,
                    "cannot inherit non-frozen dataclass from a frozen one"
                );
            }
            if !f && frozen {
                bail!(
                    TypeError,
                    "cannot inherit frozen dataclass from a non-frozen one"
                );
            }
        }
    }
    Ok(())
}

/// The generated `__init__(self, a, b=..., *, c=...)`.
fn init(interp: &mut Interp, name: &str, fields: &[Field], a: Args) -> Result<Obj> {
    let Some(Obj::Instance(inst)) = a.pos.first().cloned() else {
        bail!(TypeError, "{name}.__init__() needs an instance");
    };
    let this = Obj::Instance(inst.clone());
    let inits: Vec<&Field> = fields.iter().filter(|f| f.init).collect();
    let positional: Vec<&Field> = inits
        .iter()
        .copied()
        .filter(|f| f.kw_only != Some(true))
        .collect();
    let given = a.pos.len() - 1;
    if given > positional.len() {
        let required = positional.iter().filter(|f| !has_default(f)).count();
        let func = format!("{name}.__init__");
        return Err(too_many(
            &func,
            required + 1,
            positional.len() + 1,
            given + 1,
        ));
    }
    let mut values: Vec<(String, Obj)> = positional
        .iter()
        .zip(&a.pos[1..])
        .map(|(f, v)| (f.name.clone(), v.clone()))
        .collect();
    for (k, v) in &a.kw {
        if !inits.iter().any(|f| f.name == *k) {
            bail!(
                TypeError,
                "{name}.__init__() got an unexpected keyword argument '{k}'"
            );
        }
        if values.iter().any(|(n, _)| n == k) {
            bail!(
                TypeError,
                "{name}.__init__() got multiple values for argument '{k}'"
            );
        }
        values.push((k.clone(), v.clone()));
    }
    check_missing(name, &inits, &values)?;
    let mut attrs = vec![];
    for f in fields {
        let v = match values.iter().find(|(n, _)| *n == f.name) {
            Some((_, v)) => v.clone(),
            None => match (&f.default, &f.default_factory) {
                (Some(d), _) => d.clone(),
                (None, Some(factory)) => interp.call(factory, Args::default())?,
                (None, None) => continue,
            },
        };
        attrs.push((f.name.clone(), v));
    }
    // A class's own `__setattr__` sees the fields' assignments, as the
    // generated `self.name = value` lines do (nnx.Pytree records data or
    // static there); a frozen class sets them around its refusal.
    let frozen = matches!(
        inst.class.lookup("__dataclass_frozen__"),
        Some(Obj::Bool(true))
    );
    match inst.class.lookup("__setattr__").filter(|_| !frozen) {
        Some(set) => {
            for (k, v) in attrs {
                interp.call(&set, Args::new(vec![this.clone(), Obj::str(&k), v]))?;
            }
        }
        None => inst.attrs.borrow_mut().extend(attrs),
    }
    if let Some(post) = inst.class.lookup("__post_init__") {
        interp.call(&post, Args::new(vec![this]))?;
    }
    Ok(Obj::None)
}

fn check_missing(name: &str, inits: &[&Field], values: &[(String, Obj)]) -> Result<()> {
    for kw_only in [false, true] {
        let missing: Vec<String> = inits
            .iter()
            .filter(|f| (f.kw_only == Some(true)) == kw_only && !has_default(f))
            .filter(|f| !values.iter().any(|(n, _)| *n == f.name))
            .map(|f| format!("'{}'", f.name))
            .collect();
        if !missing.is_empty() {
            bail!(
                TypeError,
                "{name}.__init__() missing {} required {}argument{}: {}",
                missing.len(),
                if kw_only {
                    "keyword-only "
                } else {
                    "positional "
                },
                if missing.len() == 1 { "" } else { "s" },
                join_names(&missing)
            );
        }
    }
    Ok(())
}

fn attr_of(i: &Instance, name: &str) -> Option<Obj> {
    i.attrs
        .borrow()
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.clone())
}

/// `Name(a=1, b=[1, 2])`.
fn instance_repr(this: &Obj) -> String {
    let Obj::Instance(i) = this else {
        return repr_of(this);
    };
    let fields = class_fields(this).unwrap_or_default();
    let parts: Vec<String> = fields
        .iter()
        .filter(|f| f.repr)
        .map(|f| {
            let v = attr_of(i, &f.name)
                .map(|v| repr_of(&v))
                .unwrap_or_else(|| "<missing>".into());
            format!("{}={v}", f.name)
        })
        .collect();
    format!("{}({})", i.class.name, parts.join(", "))
}

/// The values of the fields that take part in comparisons.
fn compared_values(this: &Obj) -> Vec<Obj> {
    let Obj::Instance(i) = this else {
        return vec![];
    };
    class_fields(this)
        .unwrap_or_default()
        .iter()
        .filter(|f| f.compare)
        .map(|f| attr_of(i, &f.name).unwrap_or(Obj::None))
        .collect()
}

fn same_class(a: &Obj, b: &Obj) -> bool {
    matches!((a, b), (Obj::Instance(x), Obj::Instance(y)) if Rc::ptr_eq(&x.class, &y.class))
}

/// `==` of the generated `__eq__`: same class and equal compared fields,
/// compared as tuple items (the same object is equal to itself).
fn instance_eq(a: &Obj, b: &Obj) -> bool {
    if !same_class(a, b) {
        return false;
    }
    let (x, y) = (compared_values(a), compared_values(b));
    x.len() == y.len()
        && x.iter()
            .zip(&y)
            .all(|(p, q)| crate::python::ops::item_eq(p, q))
}

/// The generated ordering methods compare the field tuples.
fn order(op: &str, a: &Args) -> Result<Obj> {
    let this = a.req(Some(0), "self", op)?;
    let other = a.req(Some(1), "other", op)?;
    if !same_class(&this, &other) {
        bail!(
            TypeError,
            "'{op}' not supported between instances of '{}' and '{}'",
            this.type_name(),
            other.type_name()
        );
    }
    let o = py_cmp(
        &Obj::tuple(compared_values(&this)),
        &Obj::tuple(compared_values(&other)),
    )?;
    use std::cmp::Ordering::*;
    Ok(Obj::Bool(match op {
        "<" => o == Less,
        "<=" => o != Greater,
        ">" => o == Greater,
        _ => o != Less,
    }))
}

/// The behaviour of dataclass instances.
pub struct Dataclass;

fn generated(this: &Obj, name: &str, marker: &str) -> bool {
    let Obj::Instance(i) = this else { return false };
    matches!(i.class.lookup(name), Some(Obj::Native(n)) if n.name == marker)
}

impl Object for Dataclass {
    fn type_name(&self) -> String {
        "dataclass".into()
    }

    fn repr(&self, this: &Obj) -> Option<String> {
        generated(this, "__repr__", REPR).then(|| instance_repr(this))
    }

    fn eq(&self, this: &Obj, other: &Obj) -> Option<bool> {
        generated(this, "__eq__", EQ).then(|| instance_eq(this, other))
    }

    fn children(&self, this: &Obj) -> Option<Vec<String>> {
        let Obj::Instance(i) = this else { return None };
        match i.class.lookup(DATA_FIELDS) {
            Some(Obj::Tuple(t)) => Some(t.iter().map(crate::python::format::str_of).collect()),
            _ => None,
        }
    }
}

/// The class attribute naming the fields that are pytree children of a
/// class registered with `jax.tree_util.register_dataclass`.
const DATA_FIELDS: &str = "__pytree_data_fields__";

fn is_static(f: &Field) -> bool {
    match &f.metadata {
        Obj::Dict(d) => d
            .borrow()
            .get(&Obj::str("static"))
            .is_some_and(|v| truthy(&v, "static").unwrap_or(false)),
        _ => false,
    }
}

/// `jax.tree_util.register_dataclass(nodetype, data_fields=None,
/// meta_fields=None)`: the dataclass's instances become pytree nodes whose
/// children are the data fields (by default the fields not marked
/// `metadata=dict(static=True)`).
pub fn register_dataclass(_: &mut Interp, a: Args) -> Result<Obj> {
    let cls = a.req(Some(0), "nodetype", "register_dataclass")?;
    let Obj::Class(c) = &cls else {
        bail!(
            TypeError,
            "register_dataclass expects a class, got {}",
            cls.type_name()
        );
    };
    let Some(fs) = class_fields(&cls) else {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.tree_util.register_dataclass of a class that is not a dataclass ({})",
            c.name
        );
    };
    let native = c.native();
    if native
        .and_then(|n| n.downcast::<Dataclass>().map(|_| ()))
        .is_none()
    {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.tree_util.register_dataclass of {}, whose instances are library objects",
            c.name
        );
    }
    let names = |o: Obj| -> Result<Vec<Obj>> {
        Ok(crate::python::ops::iterate(&o)?
            .iter()
            .map(|x| Obj::str(crate::python::format::str_of(x)))
            .collect())
    };
    let data = match (a.opt(Some(1), "data_fields"), a.opt(Some(2), "meta_fields")) {
        (Some(d), _) => names(d)?,
        (None, Some(m)) => {
            let meta = names(m)?;
            fs.iter()
                .map(|f| Obj::str(&f.name))
                .filter(|n| !meta.iter().any(|m| py_eq(m, n)))
                .collect()
        }
        (None, None) => fs
            .iter()
            .filter(|f| !is_static(f))
            .map(|f| Obj::str(&f.name))
            .collect(),
    };
    crate::python::ops::setattr(&cls, DATA_FIELDS, Obj::tuple(data))?;
    Ok(cls)
}

/// `fields(class_or_instance)`.
fn fields(_: &mut Interp, a: Args) -> Result<Obj> {
    let o = a.req(Some(0), "class_or_instance", "fields")?;
    let fs = class_fields(&o).ok_or_else(|| {
        err!(
            TypeError,
            "must be called with a dataclass type or instance"
        )
    })?;
    Ok(Obj::tuple(fs.into_iter().map(Obj::lib).collect()))
}

/// `asdict(obj, *, dict_factory=dict)` and `astuple(obj, *, tuple_factory=tuple)`.
fn convert(interp: &mut Interp, a: Args, tuple: bool) -> Result<Obj> {
    let what = if tuple { "astuple" } else { "asdict" };
    let o = a.req(Some(0), "obj", what)?;
    if !matches!(o, Obj::Instance(_)) || class_fields(&o).is_none() {
        bail!(
            TypeError,
            "{what}() should be called on dataclass instances"
        );
    }
    let factory = a.opt(
        None,
        if tuple {
            "tuple_factory"
        } else {
            "dict_factory"
        },
    );
    convert_inner(interp, &o, tuple, factory.as_ref())
}

fn convert_inner(interp: &mut Interp, o: &Obj, tuple: bool, factory: Option<&Obj>) -> Result<Obj> {
    if let (Obj::Instance(i), Some(fs)) = (o, class_fields(o)) {
        let mut items = vec![];
        for f in &fs {
            let v = attr_of(i, &f.name).unwrap_or(Obj::None);
            items.push((f.name.clone(), convert_inner(interp, &v, tuple, factory)?));
        }
        return match (factory, tuple) {
            (Some(f), true) => {
                let vals = items.into_iter().map(|(_, v)| v).collect();
                interp.call(f, Args::new(vec![Obj::list(vals)]))
            }
            (Some(f), false) => {
                let pairs = items
                    .into_iter()
                    .map(|(k, v)| Obj::tuple(vec![Obj::str(k), v]))
                    .collect();
                interp.call(f, Args::new(vec![Obj::list(pairs)]))
            }
            (None, true) => Ok(Obj::tuple(items.into_iter().map(|(_, v)| v).collect())),
            (None, false) => {
                let d: Dict = items.into_iter().map(|(k, v)| (Obj::str(k), v)).collect();
                Ok(Obj::Dict(Rc::new(RefCell::new(d))))
            }
        };
    }
    Ok(match o {
        Obj::List(l) => {
            let items = l.borrow().clone();
            let mut out = vec![];
            for x in &items {
                out.push(convert_inner(interp, x, tuple, factory)?);
            }
            Obj::list(out)
        }
        Obj::Tuple(t) => {
            let mut out = vec![];
            for x in t.iter() {
                out.push(convert_inner(interp, x, tuple, factory)?);
            }
            Obj::tuple(out)
        }
        Obj::Dict(d) => {
            let items = d.borrow().items.clone();
            let mut out = Dict::default();
            for (k, v) in &items {
                out.set(
                    convert_inner(interp, k, tuple, factory)?,
                    convert_inner(interp, v, tuple, factory)?,
                );
            }
            Obj::Dict(Rc::new(RefCell::new(out)))
        }
        other => other.clone(),
    })
}

/// `replace(obj, /, **changes)`: a new instance through `__init__`.
pub fn replace(interp: &mut Interp, a: Args) -> Result<Obj> {
    let o = a.req(Some(0), "obj", "replace")?;
    let (Obj::Instance(i), Some(fs)) = (&o, class_fields(&o)) else {
        bail!(
            TypeError,
            "replace() should be called on dataclass instances"
        );
    };
    let mut kw = a.kw.clone();
    for f in &fs {
        let changed = kw.iter().any(|(k, _)| *k == f.name);
        if !f.init {
            if changed {
                bail!(
                    ValueError,
                    "field {} is declared with init=False, it cannot be specified with replace()",
                    f.name
                );
            }
            continue;
        }
        if !changed {
            kw.push((f.name.clone(), getattr(interp, &o, &f.name)?));
        }
    }
    interp.call(&Obj::Class(i.class.clone()), Args::with(vec![], kw))
}

/// `dataclasses.FrozenInstanceError`, a subclass of `AttributeError`.
fn frozen_instance_error(interp: &mut Interp) -> Obj {
    let base = match interp.builtins.get("AttributeError") {
        Some(Obj::Class(c)) => vec![c.clone()],
        _ => vec![],
    };
    Obj::Class(std::rc::Rc::new(Class::new(
        "FrozenInstanceError",
        base,
        vec![],
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_names_are_joined_as_python_does() {
        let names: Vec<String> = ["'a'", "'b'", "'c'"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(join_names(&names[..1]), "'a'");
        assert_eq!(join_names(&names[..2]), "'a' and 'b'");
        assert_eq!(join_names(&names), "'a', 'b', and 'c'");
    }
}
