//! `flax.struct`: `dataclass`, `field` and `PyTreeNode`.
//!
//! A struct dataclass is Python's dataclass (frozen unless the options say
//! otherwise) whose instances are pytree nodes, so that `jax.jit`,
//! `jax.grad` and `jax.tree.map` see through them: the fields made with
//! `field(pytree_node=False)` stay with the node as static data and the
//! others are its children. Because the instances are frozen, the class
//! gains `replace(**changes)`. A `class` statement deriving from
//! `PyTreeNode` makes such a dataclass of the new class (as a metaclass
//! would), with the statement's keywords as the dataclass options.

use super::*;
use crate::modules::std::dataclasses as dc;

/// The class attribute that marks a class the decorator already made.
const MADE: &str = "_flax_dataclass";

/// Where `PyTreeNode.__init_subclass__` leaves the class statement's
/// keywords for the dataclass made once the class exists.
const OPTIONS: &str = "__flax_struct_options__";

/// Whether the field `name` of the dataclass `class` is a pytree child.
fn is_pytree_node(class: &Class, name: &str) -> Result<bool> {
    match dc::field_metadata(class, name) {
        Some(Obj::Dict(d)) => match d.borrow().get(&Obj::str("pytree_node")) {
            Some(v) => truthy(&v, "pytree_node"),
            None => Ok(true),
        },
        _ => Ok(true),
    }
}

/// `dataclass(clz, **kwargs)` on a class: the dataclass with its data
/// fields as pytree children and `replace`.
fn make(interp: &mut Interp, c: &Rc<Class>, kw: &[(String, Obj)]) -> Result<Obj> {
    if c.attrs.borrow().iter().any(|(k, _)| k == MADE) {
        return Ok(Obj::Class(c.clone()));
    }
    let mut kw = kw.to_vec();
    if !kw.iter().any(|(k, _)| k == "frozen") {
        kw.push(("frozen".into(), Obj::Bool(true)));
    }
    let made = dc::dataclass_of(interp, c, &Args::with(vec![], kw))?;
    let Obj::Class(class) = &made else {
        bail!(TypeError, "dataclass() should be called on a class");
    };
    let mut data = vec![];
    for n in dc::field_names(&made).unwrap_or_default() {
        if is_pytree_node(class, &n)? {
            data.push(Obj::str(n));
        }
    }
    dc::set_data_fields(&made, data)?;
    let mut attrs = class.attrs.borrow_mut();
    attrs.retain(|(k, _)| k != "replace" && k != OPTIONS);
    attrs.push(("replace".into(), Obj::native("replace", dc::replace)));
    attrs.push((MADE.into(), Obj::Bool(true)));
    drop(attrs);
    Ok(made)
}

/// `flax.struct.dataclass(clz=None, **kwargs)`.
fn dataclass(interp: &mut Interp, a: Args) -> Result<Obj> {
    match a.opt(Some(0), "clz") {
        Some(Obj::Class(c)) => make(interp, &c, &a.kw),
        Some(other) => bail!(
            TypeError,
            "dataclass() should be called on a class, not {}",
            other.type_name()
        ),
        None => {
            let kw = a.kw.clone();
            Ok(Obj::native("flax.struct.dataclass", move |i, a| {
                match a.pos.first() {
                    Some(Obj::Class(c)) => make(i, c, &kw),
                    _ => bail!(TypeError, "dataclass() should be called on a class"),
                }
            }))
        }
    }
}

/// `flax.struct.field(pytree_node=True, *, metadata=None, **kwargs)`:
/// Python's `dataclasses.field` with `pytree_node` added to the metadata.
fn field(interp: &mut Interp, a: Args) -> Result<Obj> {
    let node = a.opt(Some(0), "pytree_node").unwrap_or(Obj::Bool(true));
    let mut metadata = Dict::default();
    if let Some(Obj::Dict(m)) = a.opt(None, "metadata") {
        for (k, v) in m.borrow().items.iter() {
            metadata.set(k.clone(), v.clone());
        }
    }
    metadata.set(Obj::str("pytree_node"), node);
    let mut kw: Vec<(String, Obj)> =
        a.kw.iter()
            .filter(|(k, _)| k != "pytree_node" && k != "metadata")
            .cloned()
            .collect();
    kw.push((
        "metadata".into(),
        Obj::Dict(Rc::new(RefCell::new(metadata))),
    ));
    let module = interp.import("dataclasses")?;
    let f = crate::python::ops::getattr(interp, &module, "field")?;
    interp.call(&f, Args::with(vec![], kw))
}

/// What `PyTreeNode` gives its subclasses: a dataclass's behaviour, and
/// being made a struct dataclass when a `class` statement derives one.
struct StructNode;

impl Object for StructNode {
    fn type_name(&self) -> String {
        "PyTreeNode".into()
    }

    fn repr(&self, this: &Obj) -> Option<String> {
        dc::Dataclass.repr(this)
    }

    fn eq(&self, this: &Obj, other: &Obj) -> Option<bool> {
        dc::Dataclass.eq(this, other)
    }

    fn children(&self, this: &Obj) -> Option<Vec<String>> {
        dc::Dataclass.children(this)
    }

    fn subclass_created(&self, interp: &mut Interp, class: &Rc<Class>) -> Option<Result<Obj>> {
        let options = match class.lookup(OPTIONS) {
            Some(Obj::Tuple(t)) => t
                .iter()
                .filter_map(|p| match p {
                    Obj::Tuple(kv) if kv.len() == 2 => Some((str_of(&kv[0]), kv[1].clone())),
                    _ => None,
                })
                .collect(),
            _ => vec![],
        };
        Some(make(interp, class, &options))
    }
}

/// `PyTreeNode.__init_subclass__(**kwargs)`: keeps the keywords for the
/// dataclass made of the new class.
fn init_subclass(_: &mut Interp, a: Args) -> Result<Obj> {
    let Some(Obj::Class(c)) = a.pos.first() else {
        bail!(TypeError, "__init_subclass__() needs the new class");
    };
    let pairs =
        a.kw.iter()
            .map(|(k, v)| Obj::tuple(vec![Obj::str(k), v.clone()]))
            .collect();
    let mut attrs = c.attrs.borrow_mut();
    attrs.retain(|(k, _)| k != OPTIONS);
    attrs.push((OPTIONS.into(), Obj::tuple(pairs)));
    Ok(Obj::None)
}

/// The `PyTreeNode` class.
fn pytree_node_class() -> Rc<Class> {
    let mut class = Class::new(
        "PyTreeNode",
        vec![],
        vec![
            (
                "__init_subclass__".into(),
                Obj::native("PyTreeNode.__init_subclass__", init_subclass),
            ),
            (
                "__init__".into(),
                Obj::native("PyTreeNode.__init__", |_, _| bail!(NotImplementedError, "")),
            ),
        ],
    );
    class.native = Some(Rc::new(StructNode));
    Rc::new(class)
}

/// Builds `flax.struct`.
pub fn struct_module() -> Obj {
    let mut b = Builder::new("flax.struct");
    b.func("dataclass", dataclass)
        .func("field", field)
        .attr("PyTreeNode", Obj::Class(pytree_node_class()));
    b.build()
}
