//! `nnx.Pytree` (the base of `nnx.Module`), `nnx.data`, `nnx.static`,
//! `nnx.dataclass` and `nnx.is_data`.
//!
//! An attribute is a pytree child when its value is data (arrays,
//! variables, nnx objects, containers holding them) or when it was
//! assigned through `nnx.data(...)`; `nnx.static(...)` keeps it out even
//! when it holds data. An attribute keeps the status its first value (or
//! its dataclass field's `static` metadata) gave it. The names are kept on the instance under
//! `_nnx_data` and `_nnx_static`, which reprs and the graph functions skip.
//!
//! As in Flax, a plain list, tuple or dict holding data is static when
//! assigned, so assigning one is an error (`nnx.List` makes a list that is
//! data); data found in a static attribute once `__init__` has returned is
//! an error too, and so are `nnx.data`/`nnx.static` nested in containers.
//! `class Foo(nnx.Pytree, pytree=False)` and `nnx.Object` make objects
//! without these checks, which JAX sees as leaves while nnx's graph
//! functions still traverse them.

use super::*;

/// A value assigned with `nnx.data` or `nnx.static`, unwrapped by the
/// assignment.
struct Marked {
    value: Obj,
    data: bool,
}

impl Object for Marked {
    fn type_name(&self) -> String {
        if self.data { "DataAttr" } else { "StaticAttr" }.into()
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        let kind = if self.data { "data" } else { "static" };
        Some(format!("{kind}({})", repr_of(&self.value)))
    }
}

fn names(i: &Instance, slot: &str) -> Vec<String> {
    match iattr(i, slot) {
        Some(Obj::Tuple(t)) => t.iter().map(str_of).collect(),
        _ => vec![],
    }
}

fn set_names(i: &Instance, slot: &str, v: Vec<String>) {
    set_iattr(
        i,
        slot,
        Obj::tuple(v.into_iter().map(|s| Obj::str(&s)).collect()),
    );
}

/// Whether the attribute `name` of `i` is a pytree child: the status it
/// was given when first assigned (or by `nnx.data`/`nnx.static`), else
/// whether its value is data.
pub(super) fn is_child(i: &Instance, name: &str, v: &Obj) -> bool {
    if name.starts_with("_nnx") {
        return false;
    }
    recorded(i, name).unwrap_or_else(|| is_data(v))
}

/// The data (true) or static (false) status recorded for `name`.
fn recorded(i: &Instance, name: &str) -> Option<bool> {
    if names(i, "_nnx_static").iter().any(|n| n == name) {
        Some(false)
    } else if names(i, "_nnx_data").iter().any(|n| n == name) {
        Some(true)
    } else {
        None
    }
}

/// Records every one of `names` as data (the children a node was rebuilt
/// from), unless it already has a status.
pub(super) fn record_data(me: &Instance, names: &[String]) {
    let mut data = self::names(me, "_nnx_data");
    let before = data.len();
    for name in names {
        if recorded(me, name).is_none() {
            data.push(name.clone());
        }
    }
    if data.len() > before {
        set_names(me, "_nnx_data", data);
    }
}

/// Records `name` as data or static, replacing an earlier status.
fn record(me: &Instance, name: &str, data: bool) {
    let mut order = names(me, "_nnx_order");
    if !order.iter().any(|n| n == name) {
        order.push(name.to_string());
        set_names(me, "_nnx_order", order);
    }
    let (add, drop) = if data {
        ("_nnx_data", "_nnx_static")
    } else {
        ("_nnx_static", "_nnx_data")
    };
    let mut keep = names(me, add);
    if !keep.iter().any(|n| n == name) {
        keep.push(name.to_string());
    }
    set_names(me, add, keep);
    if iattr(me, drop).is_some() {
        let rest = names(me, drop).into_iter().filter(|n| n != name).collect();
        set_names(me, drop, rest);
    }
}

/// The status a dataclass field declares with `nnx.data()`,
/// `nnx.static()` or `field(metadata={'static': ...})`.
fn field_status(c: &Class, name: &str) -> Option<bool> {
    let meta = crate::modules::std::dataclasses::field_metadata(c, name)?;
    let Obj::Dict(d) = meta else {
        return None;
    };
    let st = d.borrow().get(&Obj::str("static"))?;
    Some(!truthy(&st, "static").ok()?)
}

/// `<class 'module.Name'>`, classes of the program being in `__main__`.
fn class_text(c: &Rc<Class>) -> String {
    let own = c
        .attrs
        .borrow()
        .iter()
        .find(|(k, _)| k == "__module__")
        .map(|(_, v)| v.clone());
    match own {
        Some(m @ Obj::Str(_)) => format!("<class '{}.{}'>", str_of(&m), c.name),
        _ => format!("<class '__main__.{}'>", c.name),
    }
}

fn type_text(v: &Obj) -> String {
    match v {
        Obj::Array(_) => "<class 'jaxlib._jax.ArrayImpl'>".into(),
        Obj::Instance(i) => class_text(&i.class),
        other => format!("<class '{}'>", other.type_name()),
    }
}

/// Whether instances of `i`'s class are pytrees. `class Foo(nnx.Pytree,
/// pytree=False)` and `nnx.Object` make objects that nnx's graph functions
/// traverse but JAX sees as leaves, and whose attributes are not checked.
pub(super) fn is_pytree(i: &Instance) -> bool {
    !matches!(i.class.lookup("_pytree__is_pytree"), Some(Obj::Bool(false)))
}

/// Flax's `is_data` of one value: arrays, variables and nnx objects.
fn data_value(v: &Obj) -> bool {
    match v {
        Obj::Array(_) => true,
        Obj::Instance(i) => is_variable(i) || is_nnx_module(i),
        _ => false,
    }
}

/// The leaves of `v` with data values kept whole, as
/// `jax.tree.leaves(v, is_leaf=is_data)` gives them.
fn leaves_to_check(v: &Obj, out: &mut Vec<Obj>) {
    match v {
        _ if data_value(v) => out.push(v.clone()),
        Obj::List(l) => l.borrow().iter().for_each(|x| leaves_to_check(x, out)),
        Obj::Tuple(t) => t.iter().for_each(|x| leaves_to_check(x, out)),
        Obj::Dict(d) => d
            .borrow()
            .items
            .iter()
            .for_each(|(_, x)| leaves_to_check(x, out)),
        Obj::None => {}
        other => out.push(other.clone()),
    }
}

/// The lists `nnx.List` made in this run: data even when empty, unlike
/// plain lists. Kept in the run context (`exec::run::local`), so that the
/// registry ends with the run; outside a run there is none and no list is
/// an `nnx.List`.
#[derive(Default)]
struct NnxLists(RefCell<Vec<std::rc::Weak<RefCell<Vec<Obj>>>>>);

/// `nnx.List(iterable)`: a list that is data as an attribute.
pub(super) fn nnx_list(items: Vec<Obj>) -> Obj {
    let list = Rc::new(RefCell::new(items));
    if let Some(lists) = crate::exec::run::local::<NnxLists>() {
        let mut l = lists.0.borrow_mut();
        l.retain(|w| w.strong_count() > 0);
        l.push(Rc::downgrade(&list));
    }
    Obj::List(list)
}

/// A new list of `items` of the kind `of` is: an `nnx.List` for one, a
/// plain list otherwise (copies of a graph keep their lists' kinds).
pub(super) fn list_like(of: &Obj, items: Vec<Obj>) -> Obj {
    if is_nnx_list(of) {
        nnx_list(items)
    } else {
        Obj::list(items)
    }
}

pub(super) fn is_nnx_list(v: &Obj) -> bool {
    let Obj::List(list) = v else { return false };
    crate::exec::run::local::<NnxLists>().is_some_and(|l| {
        l.0.borrow()
            .iter()
            .any(|w| w.upgrade().is_some_and(|x| Rc::ptr_eq(&x, list)))
    })
}

/// The type name Flax lists for a data value found in a static attribute.
fn leaf_type_name(v: &Obj) -> String {
    match v {
        Obj::Array(_) => "ArrayImpl".into(),
        Obj::Instance(i) => i.class.name.clone(),
        other => other.type_name(),
    }
}

/// The error for a container holding data assigned to an attribute that
/// is (or becomes) static.
fn data_in_static(me: &Instance, name: &str, value: &Obj, data: &[&Obj]) -> Result<()> {
    let mut types: Vec<String> = vec![];
    for t in data.iter().map(|d| leaf_type_name(d)) {
        if !types.contains(&t) {
            types.push(t);
        }
    }
    let (cls, base, ty) = (&me.class.name, base_name(me), value.type_name());
    bail!(
        ValueError,
        "Found data on value of type '{}' assigned to static attribute '{name}' of Pytree type '{}'. Static attributes should not contain data values. Consider one of the following options:\n\n1. If the attribute is meant to be static, remove the data values of type(s):\n\n  {}\n\n2. If the attribute is meant to be data, wrap the value with nnx.data  on assignment:\n\n  _.{name} = nnx.data(...)\n\n3. Alternatively, annotate the class attribute with nnx.data:\n\n  class {cls}({base}):\n    {name}: {ty} = nnx.data()\n\n4. If the container is a list or dict, try using nnx.List(...) or nnx.Dict(...) instead.\n\n5. Disable pytree for this class:\n\n  class {cls}({base}, pytree=False):\n\n",
        type_text(value),
        class_text(&me.class),
        types.join(", ")
    )
}

/// The name of the nearest base class, as Flax's messages suggest it.
fn base_name(me: &Instance) -> String {
    me.class
        .bases
        .first()
        .map_or("Pytree".to_string(), |b| b.name.clone())
}

/// Flax's checks of a value inside an attribute: no `nnx.data`/
/// `nnx.static` markers nested in containers, and (once `__init__` has
/// returned, `after_init`) no data in an attribute that is static.
fn check_leaves(me: &Instance, name: &str, value: &Obj, after_init: bool) -> Result<()> {
    let mut leaves = vec![];
    leaves_to_check(value, &mut leaves);
    let owner = class_text(&me.class);
    let current_is_data = recorded(me, name).unwrap_or_else(|| is_data(value));
    let data: Vec<&Obj> = leaves.iter().filter(|l| data_value(l)).collect();
    // A plain container of data is static when assigned (only nnx.List is data).
    let declared_data =
        recorded(me, name) == Some(true) || field_status(&me.class, name) == Some(true);
    let plain_container = !is_nnx_list(value) && !data_value(value);
    if !after_init && !data.is_empty() && plain_container && !declared_data {
        return data_in_static(me, name, value, &data);
    }
    if after_init && !current_is_data && !data.is_empty() {
        let (cls, base, ty) = (&me.class.name, base_name(me), value.type_name());
        bail!(
            ValueError,
            "Found unexpected data on value of type {} in static attribute '{name}' of Pytree type '{owner}'. This is an error starting from Flax version 0.12.0.\nConsider one of the following options:\n\n1. If the attribute is meant to be static, either remove the data value or wrap it in a static container.\n2. Wrap the value with nnx.data on assignment:\n\n  _.{name} = nnx.data(...)\n\n3. Annotate the class attribute with nnx.data:\n\n  class {cls}({base}):\n    {name}: {ty} = nnx.data()\n\n4. If the container is a list or dict, try using nnx.List(...) or nnx.Dict(...) instead.\n5. Disable pytree for this class:\n\n  class {cls}({base}, pytree=False):\n\n",
            type_text(value)
        );
    }
    let marks: Vec<bool> = leaves
        .iter()
        .filter_map(|l| l.downcast::<Marked>().map(|m| m.data))
        .collect();
    if marks.is_empty() {
        return Ok(());
    }
    // Flax prints a set of the tags; this is the order it shows.
    let tags = match (marks.contains(&false), marks.contains(&true)) {
        (true, true) => "{'static', 'data'}",
        (true, false) => "{'static'}",
        _ => "{'data'}",
    };
    bail!(
        ValueError,
        "Found unexpected tags {tags} on attribute '{}.{name}'. Values from nnx.data(...) and\nnnx.static(...) should be assigned to nnx.Pytree attributes directly, they should not be inside other structures. Got value of type '{}' on Pytree of type '{owner}'.",
        me.class.name,
        type_text(value)
    )
}

/// The checks Flax makes of every attribute of a new pytree object.
pub(super) fn check_pytree(me: &Instance) -> Result<()> {
    if !is_pytree(me) {
        return Ok(());
    }
    // Attributes a library layer set without `__setattr__` follow those
    // assigned through it in Flax's record of their order.
    let mut order = names(me, "_nnx_order");
    let before = order.len();
    for (k, _) in me.attrs.borrow().iter() {
        if !k.starts_with("_nnx") && !order.contains(k) {
            order.push(k.clone());
        }
    }
    if order.len() != before {
        set_names(me, "_nnx_order", order);
    }
    let attrs = me.attrs.borrow().clone();
    for (name, value) in attrs.iter().filter(|(k, _)| !k.starts_with("_nnx")) {
        check_leaves(me, name, value, true)?;
    }
    Ok(())
}

/// The errors Flax raises for data assigned as static: explicitly, or
/// implicitly to an attribute that holds static values.
fn check_status(me: &Rc<Instance>, name: &str, value: &Obj) -> Result<()> {
    let owner = class_text(&me.class);
    if let Some(m) = value.downcast::<Marked>() {
        if !m.data && is_data(&m.value) {
            bail!(
                ValueError,
                "Found data in value of type '{}' annotated with nnx.static(...) when setting attribute '{name}' of Pytree type '{owner}'.",
                type_text(&m.value)
            );
        }
        return Ok(());
    }
    if let Some(current) = iattr(me, name) {
        let value_is_data = matches!(value, Obj::Array(_))
            || matches!(value, Obj::Instance(i) if is_variable(i) || is_nnx_module(i));
        if value_is_data && !is_child(me, name, &current) {
            bail!(
                ValueError,
                "Cannot assign data value of type '{}' to static attribute '{name}' of Pytree type '{owner}'. To override the status explicitly wrap the value with nnx.data on assignment:\n\n  _.{name} = nnx.data(...)\n\n",
                type_text(value)
            );
        }
    }
    check_leaves(me, name, value, false)
}

/// `Pytree.__setattr__`: unwraps `nnx.data`/`nnx.static` and remembers
/// which it was; objects that are not pytrees only unwrap.
fn pytree_setattr(_: &mut Interp, a: Args) -> Result<Obj> {
    let me = self_arg(&a, "__setattr__")?;
    let name = str_of(&a.req(Some(1), "name", "__setattr__")?);
    let mut value = a.req(Some(2), "value", "__setattr__")?;
    super::trace_level::check_mutable(&me)?;
    if !is_pytree(&me) {
        if let Some(m) = value.downcast::<Marked>() {
            value = m.value.clone();
        }
        set_iattr(&me, &name, value);
        return Ok(Obj::None);
    }
    check_status(&me, &name, &value)?;
    if let Some(m) = value.downcast::<Marked>() {
        record(&me, &name, m.data);
        value = m.value.clone();
    } else if !name.starts_with("_nnx") && recorded(&me, &name).is_none() {
        // An attribute keeps the status of its first value: assigning a
        // string to a data attribute leaves it data.
        let data = field_status(&me.class, &name).unwrap_or_else(|| is_data(&value));
        record(&me, &name, data);
    }
    set_iattr(&me, &name, value);
    Ok(Obj::None)
}

/// Assigns `value` to `name` of `me` as a data attribute, as
/// `me.name = nnx.data(value)` does.
pub(super) fn assign_data(me: &Rc<Instance>, name: &str, value: Obj) -> Result<()> {
    super::trace_level::check_mutable(me)?;
    if is_pytree(me) {
        record(me, name, true);
    }
    set_iattr(me, name, value);
    Ok(())
}

/// `del me.name`: the attribute and the status recorded for it.
pub(super) fn remove_attr(me: &Instance, name: &str) {
    me.attrs.borrow_mut().retain(|(k, _)| k != name);
    for slot in ["_nnx_data", "_nnx_static", "_nnx_order"] {
        if iattr(me, slot).is_some() {
            let rest = names(me, slot).into_iter().filter(|n| n != name).collect();
            set_names(me, slot, rest);
        }
    }
}

/// `Pytree.__init_subclass__(pytree=True)`: whether the new class's
/// objects are pytrees (each subclass is, unless it says otherwise).
fn pytree_init_subclass(_: &mut Interp, a: Args) -> Result<Obj> {
    let Some(Obj::Class(cls)) = a.pos.first() else {
        bail!(TypeError, "__init_subclass__() needs the new class");
    };
    if let Some((k, _)) = a.kw.iter().find(|(k, _)| k != "pytree") {
        bail!(
            TypeError,
            "Pytree.__init_subclass__() got an unexpected keyword argument '{k}'"
        );
    }
    let pytree = match a.kw.iter().find(|(k, _)| k == "pytree") {
        Some((_, v)) => truthy(v, "pytree")?,
        None => true,
    };
    cls.attrs
        .borrow_mut()
        .push(("_pytree__is_pytree".into(), Obj::Bool(pytree)));
    Ok(Obj::None)
}

/// `nnx.Object.__init_subclass__`: its subclasses are never pytrees.
fn object_init_subclass(_: &mut Interp, a: Args) -> Result<Obj> {
    let Some(Obj::Class(cls)) = a.pos.first() else {
        bail!(TypeError, "__init_subclass__() needs the new class");
    };
    if let Some((_, v)) = a.kw.iter().find(|(k, _)| k == "pytree") {
        if !matches!(v, Obj::Bool(false)) {
            bail!(
                ValueError,
                "Object is not a pytree, but 'pytree' was explicitly set to {} for type {}.",
                repr_of(v),
                class_text(cls)
            );
        }
    }
    cls.attrs
        .borrow_mut()
        .push(("_pytree__is_pytree".into(), Obj::Bool(false)));
    Ok(Obj::None)
}

/// `nnx.Object`: the base of nnx objects that are not pytrees.
pub(super) fn object_class(pytree: &Rc<Class>) -> Rc<Class> {
    new_class(
        "Object",
        vec![pytree.clone()],
        vec![
            ("_pytree__is_pytree".into(), Obj::Bool(false)),
            (
                "__init_subclass__".into(),
                Obj::native("Object.__init_subclass__", object_init_subclass),
            ),
        ],
    )
}

/// The `nnx.Pytree` class: nnx's root of objects that are pytree nodes.
pub(super) fn pytree_class() -> Rc<Class> {
    nnx_root_class(
        "Pytree",
        vec![
            ("__nnx_module__".into(), Obj::Bool(true)),
            (
                "__setattr__".into(),
                Obj::native("Pytree.__setattr__", pytree_setattr),
            ),
            (
                "__init_subclass__".into(),
                Obj::native("Pytree.__init_subclass__", pytree_init_subclass),
            ),
        ],
    )
}

/// `nnx.data(value)` / `nnx.static(value)` mark a value on assignment;
/// with keyword arguments only they are `dataclasses.field(...)` whose
/// metadata says `static`, for `nnx.dataclass` fields.
fn marker(interp: &mut Interp, a: Args, data: bool) -> Result<Obj> {
    let func = if data { "data" } else { "static" };
    if let Some(value) = a.pos.first() {
        if !a.kw.is_empty() {
            bail!(
                TypeError,
                "nnx.{func}() accepts either a single positional argument or keyword arguments, but not both."
            );
        }
        return Ok(Obj::lib(Marked {
            value: value.clone(),
            data,
        }));
    }
    // The keywords are dataclasses.field's, handed on whole.
    a.read_all();
    let mut meta = Dict::default();
    let mut kw = vec![];
    for (k, v) in a.kw {
        match (k.as_str(), &v) {
            ("metadata", Obj::Dict(d)) => {
                if d.borrow().get(&Obj::str("static")).is_some() {
                    bail!(
                        ValueError,
                        "Cannot use 'static' key in metadata argument for nnx.{func}."
                    );
                }
                for (mk, mv) in d.borrow().items.iter() {
                    meta.set(mk.clone(), mv.clone());
                }
            }
            ("metadata", Obj::None) => {}
            _ => kw.push((k, v)),
        }
    }
    meta.set(Obj::str("static"), Obj::Bool(!data));
    kw.push(("metadata".into(), Obj::Dict(Rc::new(RefCell::new(meta)))));
    let dc = super::super::import(interp, "dataclasses")?;
    let field = crate::python::ops::getattr(interp, &dc, "field")?;
    interp.call(&field, Args::with(vec![], kw))
}

/// `nnx.data`, `nnx.static` and `nnx.is_data`.
pub(super) fn register(b: &mut Builder) {
    b.func("dataclass", |interp, a| {
        let dc = super::super::import(interp, "dataclasses")?;
        let f = crate::python::ops::getattr(interp, &dc, "dataclass")?;
        interp.call(&f, a)
    });
    b.func("data", |interp, a| marker(interp, a, true));
    b.func("static", |interp, a| marker(interp, a, false));
    b.func("is_data", |_, a| {
        let v = a.req(Some(0), "value", "is_data")?;
        Ok(Obj::Bool(match &v {
            Obj::Array(_) => true,
            Obj::Instance(i) => is_variable(i) || is_nnx_module(i),
            _ => false,
        }))
    });
}

/// The text of Flax's `_pytree__nodes` of a module: each attribute's data
/// (True) or static (False) status, in the order the attributes were
/// first assigned, between its own two entries. `attrs` are the
/// attributes with their values; `data` tells a child.
pub(super) fn pytree_nodes_text(attrs: &[(String, Obj)], data: &dyn Fn(&str) -> bool) -> String {
    let listed = |k: &str| !k.starts_with("_nnx");
    let order_attr = attrs.iter().find(|(k, _)| k == "_nnx_order");
    let mut order: Vec<String> = match order_attr {
        Some((_, Obj::Tuple(t))) => t.iter().map(str_of).collect(),
        _ => vec![],
    };
    for (k, _) in attrs {
        if listed(k) && !order.contains(k) {
            order.push(k.clone());
        }
    }
    let mut parts = vec!["'_pytree__state': True".to_string()];
    for k in order.iter().filter(|k| attrs.iter().any(|(n, _)| n == *k)) {
        let status = if data(k) { "True" } else { "False" };
        parts.push(format!("{}: {status}", repr_of(&Obj::str(k))));
    }
    parts.push("'_pytree__nodes': False".into());
    format!("{{{}}}", parts.join(", "))
}
