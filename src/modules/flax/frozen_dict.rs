//! `flax.core.FrozenDict` and the functions of `flax.core.frozen_dict`:
//! `freeze`, `unfreeze`, `copy`, `pop` and `pretty_repr`.
//!
//! A FrozenDict holds a plain dict (nested mappings copied into plain dicts,
//! as Flax keeps them) in `_dict`; reading an entry that is a dict gives it
//! back frozen. It is a pytree node registered with the run: its children
//! are the values in sorted key order and its aux data the sorted keys, so
//! `jax.tree.map` rebuilds a FrozenDict and the tree structure prints as
//! Flax's does. The class is made per run (with the module), so nothing
//! outlives a program.

use super::*;
use crate::python::pytree::{Registered, Registry};

/// The attribute that holds the entries.
const ENTRIES: &str = "_dict";

/// The entries of a FrozenDict instance (None for any other object).
fn entries_of(o: &Obj) -> Option<Rc<RefCell<Dict>>> {
    match o {
        Obj::Instance(i) if marked(i, "__flax_frozen_dict__") => match iattr(i, ENTRIES) {
            Some(Obj::Dict(d)) => Some(d),
            _ => None,
        },
        _ => None,
    }
}

/// A copy of `o` with every dict and FrozenDict in it (at any depth of
/// dicts) a fresh plain dict: Flax's `_prepare_freeze`.
fn prepare_freeze(o: &Obj) -> Obj {
    let d = match (entries_of(o), o) {
        (Some(d), _) => d,
        (None, Obj::Dict(d)) => d.clone(),
        _ => return o.clone(),
    };
    let mut out = Dict::default();
    for (k, v) in d.borrow().items.iter() {
        out.set(k.clone(), prepare_freeze(v));
    }
    Obj::Dict(Rc::new(RefCell::new(out)))
}

/// `unfreeze(x)`: a FrozenDict or a dict as nested plain dicts.
pub(super) fn unfreeze_obj(o: &Obj) -> Obj {
    match (entries_of(o), o) {
        (Some(d), _) => prepare_freeze(&Obj::Dict(d)),
        (None, Obj::Dict(_)) => prepare_freeze(o),
        _ => o.clone(),
    }
}

/// A FrozenDict of the class `class` holding `entries` as they are.
fn wrap(class: &Rc<Class>, entries: Obj) -> Obj {
    instance(class, vec![(ENTRIES.into(), entries)])
}

/// The FrozenDict class of `o`.
fn class_of(o: &Obj) -> Result<Rc<Class>> {
    match o {
        Obj::Instance(i) if entries_of(o).is_some() => Ok(i.class.clone()),
        _ => bail!(TypeError, "expected a FrozenDict, got {}", o.type_name()),
    }
}

/// The mapping `FrozenDict(*args, **kwargs)` is made of, as a plain dict.
fn dict_from(interp: &mut Interp, a: &Args) -> Result<Obj> {
    let first = a.pos.get(1).cloned();
    let base = match &first {
        None => Obj::Dict(Rc::new(RefCell::new(Dict::default()))),
        Some(o) if entries_of(o).is_some() => prepare_freeze(o),
        Some(o) => {
            let dict = interp
                .builtins
                .get("dict")
                .cloned()
                .ok_or_else(|| err!(NameError, "name 'dict' is not defined"))?;
            interp.call(&dict, Args::new(vec![o.clone()]))?
        }
    };
    if let Obj::Dict(d) = &base {
        for (k, v) in &a.kw {
            d.borrow_mut().set(Obj::str(k), v.clone());
        }
    }
    Ok(prepare_freeze(&base))
}

fn entries(a: &Args, what: &str) -> Result<Rc<RefCell<Dict>>> {
    match a.pos.first().and_then(entries_of) {
        Some(d) => Ok(d),
        None => bail!(TypeError, "FrozenDict.{what}() needs a FrozenDict as self"),
    }
}

/// `self[key]`: an entry, a dict entry frozen.
fn getitem(_: &mut Interp, a: Args) -> Result<Obj> {
    let d = entries(&a, "__getitem__")?;
    let key = a.req(Some(1), "key", "__getitem__")?;
    let v = d.borrow().get(&key);
    match v {
        Some(v @ Obj::Dict(_)) => Ok(wrap(&class_of(&a.pos[0])?, prepare_freeze(&v))),
        Some(v) => Ok(v),
        None => bail!(KeyError, "{}", repr_of(&key)),
    }
}

/// `self.get(key, default=None)`.
fn get(interp: &mut Interp, a: Args) -> Result<Obj> {
    let d = entries(&a, "get")?;
    let key = a.req(Some(1), "key", "get")?;
    if !d.borrow().contains(&key) {
        return Ok(a.opt(Some(2), "default").unwrap_or(Obj::None));
    }
    getitem(interp, Args::new(vec![a.pos[0].clone(), key]))
}

/// Flax's `pretty_repr` of a plain dict: `key: value,` lines indented by
/// `spaces` inside braces, the keys as `str` prints them.
fn pretty_dict(o: &Obj, spaces: usize) -> String {
    let Obj::Dict(d) = o else {
        return repr_of(o);
    };
    let mut body = String::new();
    for (k, v) in d.borrow().items.iter() {
        body.push_str(&format!("{}: {},\n", str_of(k), pretty_dict(v, spaces)));
    }
    if body.is_empty() {
        return "{}".into();
    }
    let pad = " ".repeat(spaces);
    let indented: String = body.lines().map(|l| format!("{pad}{l}\n")).collect();
    format!("{{\n{indented}}}")
}

/// `repr(o)` when `o` is a FrozenDict.
pub(super) fn frozen_repr(o: &Obj) -> Option<String> {
    entries_of(o).map(|d| frozen_text(&d, 4))
}

/// `x.pretty_repr(num_spaces=4)` of a FrozenDict.
fn frozen_text(d: &Rc<RefCell<Dict>>, spaces: usize) -> String {
    format!("FrozenDict({})", pretty_dict(&Obj::Dict(d.clone()), spaces))
}

fn num_spaces(a: &Args, at: usize) -> Result<usize> {
    match a.opt(Some(at), "num_spaces") {
        Some(n) => Ok(to_int(&n)?.max(0) as usize),
        None => Ok(4),
    }
}

/// `self.copy(add_or_replace={})`.
fn copy_method(_: &mut Interp, a: Args) -> Result<Obj> {
    let d = entries(&a, "copy")?;
    let class = class_of(&a.pos[0])?;
    let out = prepare_freeze(&Obj::Dict(d));
    if let (Obj::Dict(o), Some(extra)) = (&out, a.opt(Some(1), "add_or_replace")) {
        let extra = unfreeze_obj(&extra);
        let Obj::Dict(e) = &extra else {
            bail!(TypeError, "copy() expects a mapping to add or replace");
        };
        for (k, v) in e.borrow().items.iter() {
            o.borrow_mut().set(k.clone(), v.clone());
        }
    }
    Ok(wrap(&class, out))
}

/// `self.pop(key)`: `(FrozenDict without key, value)`.
fn pop_method(interp: &mut Interp, a: Args) -> Result<Obj> {
    let d = entries(&a, "pop")?;
    let key = a.req(Some(1), "key", "pop")?;
    let value = getitem(interp, Args::new(vec![a.pos[0].clone(), key.clone()]))?;
    let rest = prepare_freeze(&Obj::Dict(d));
    if let Obj::Dict(r) = &rest {
        r.borrow_mut().remove(&key);
    }
    Ok(Obj::tuple(vec![wrap(&class_of(&a.pos[0])?, rest), value]))
}

/// A `keys()` or `values()` view, printed as Flax's views print.
struct View {
    name: &'static str,
    items: Vec<Obj>,
}

impl Object for View {
    fn type_name(&self) -> String {
        format!(
            "Frozen{}View",
            if self.name == "keys" {
                "Keys"
            } else {
                "Values"
            }
        )
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some(format!(
            "frozen_dict_{}({})",
            self.name,
            repr_of(&Obj::list(self.items.clone()))
        ))
    }

    fn items(&self, _: &Obj) -> Option<Result<Vec<Obj>>> {
        Some(Ok(self.items.clone()))
    }
}

/// The keys in order, and each entry as `self[key]` gives it.
fn pairs(interp: &mut Interp, this: &Obj) -> Result<Vec<(Obj, Obj)>> {
    let d = entries_of(this).ok_or_else(|| err!(TypeError, "expected a FrozenDict"))?;
    let keys: Vec<Obj> = d.borrow().items.iter().map(|(k, _)| k.clone()).collect();
    let mut out = vec![];
    for k in keys {
        let v = getitem(interp, Args::new(vec![this.clone(), k.clone()]))?;
        out.push((k, v));
    }
    Ok(out)
}

fn method(name: &str, f: fn(&mut Interp, Args) -> Result<Obj>) -> (String, Obj) {
    (
        name.to_string(),
        Obj::native(format!("FrozenDict.{name}"), f),
    )
}

/// The methods that read a FrozenDict as a mapping.
fn mapping_methods() -> Vec<(String, Obj)> {
    vec![
        method("__getitem__", getitem),
        method("get", get),
        method("__contains__", |_, a| {
            let d = entries(&a, "__contains__")?;
            let key = a.req(Some(1), "key", "__contains__")?;
            let found = d.borrow().contains(&key);
            Ok(Obj::Bool(found))
        }),
        method("__len__", |_, a| {
            Ok(Obj::Int(entries(&a, "__len__")?.borrow().len() as i64))
        }),
        method("__iter__", |interp, a| {
            let d = entries(&a, "__iter__")?;
            let keys: Vec<Obj> = d.borrow().items.iter().map(|(k, _)| k.clone()).collect();
            let iter = interp
                .builtins
                .get("iter")
                .cloned()
                .ok_or_else(|| err!(NameError, "name 'iter' is not defined"))?;
            interp.call(&iter, Args::new(vec![Obj::list(keys)]))
        }),
        method("keys", |interp, a| {
            let items = pairs(interp, &a.pos[0])?.into_iter().map(|p| p.0).collect();
            Ok(Obj::lib(View {
                name: "keys",
                items,
            }))
        }),
        method("values", |interp, a| {
            let items = pairs(interp, &a.pos[0])?.into_iter().map(|p| p.1).collect();
            Ok(Obj::lib(View {
                name: "values",
                items,
            }))
        }),
        method("items", |interp, a| {
            let items = pairs(interp, &a.pos[0])?
                .into_iter()
                .map(|(k, v)| Obj::tuple(vec![k, v]))
                .collect();
            Ok(Obj::list(items))
        }),
    ]
}

/// The methods that make new FrozenDicts or other views of one.
fn other_methods() -> Vec<(String, Obj)> {
    vec![
        method("__init__", |interp, a| {
            let Some(Obj::Instance(me)) = a.pos.first() else {
                bail!(TypeError, "FrozenDict.__init__() needs self");
            };
            let d = dict_from(interp, &a)?;
            set_iattr(me, ENTRIES, d);
            Ok(Obj::None)
        }),
        method("__setitem__", |_, _| {
            bail!(ValueError, "FrozenDict is immutable.")
        }),
        method("__repr__", |_, a| {
            Ok(Obj::str(frozen_text(&entries(&a, "__repr__")?, 4)))
        }),
        method("pretty_repr", |_, a| {
            let spaces = num_spaces(&a, 1)?;
            Ok(Obj::str(frozen_text(&entries(&a, "pretty_repr")?, spaces)))
        }),
        method("__eq__", |_, a| {
            let me = unfreeze_obj(&a.req(Some(0), "self", "__eq__")?);
            let other = unfreeze_obj(&a.req(Some(1), "other", "__eq__")?);
            Ok(Obj::Bool(
                matches!(other, Obj::Dict(_)) && crate::python::ops::py_eq(&me, &other),
            ))
        }),
        method("copy", copy_method),
        method("pop", pop_method),
        method("unfreeze", |_, a| {
            Ok(unfreeze_obj(&a.req(Some(0), "self", "unfreeze")?))
        }),
    ]
}

/// `FrozenDict`'s flatten: the values in sorted key order, the sorted keys
/// as aux data; with `keys`, each value paired with its `DictKey`.
fn flatten(interp: &mut Interp, a: Args, keys: bool) -> Result<Obj> {
    let d = entries(&a, "tree_flatten")?;
    let mut items = d.borrow().items.clone();
    let mut failed = false;
    items.sort_by(|x, y| {
        crate::python::ops::py_cmp(&x.0, &y.0).unwrap_or_else(|_| {
            failed = true;
            std::cmp::Ordering::Equal
        })
    });
    if failed {
        bail!(
            TypeError,
            "FrozenDict keys must be comparable to flatten it"
        );
    }
    let dict_key = if keys {
        let tu = interp.import("jax.tree_util")?;
        Some(crate::python::ops::getattr(interp, &tu, "DictKey")?)
    } else {
        None
    };
    let mut children = vec![];
    for (k, v) in &items {
        children.push(match &dict_key {
            Some(dk) => Obj::tuple(vec![
                interp.call(dk, Args::new(vec![k.clone()]))?,
                v.clone(),
            ]),
            None => v.clone(),
        });
    }
    let aux = Obj::tuple(items.into_iter().map(|(k, _)| k).collect());
    Ok(Obj::tuple(vec![Obj::tuple(children), aux]))
}

/// `FrozenDict.tree_unflatten(keys, values)`, keeping the values as given.
fn unflatten(class: &Rc<Class>, a: Args) -> Result<Obj> {
    let keys = iterate(&a.req(Some(0), "aux_data", "tree_unflatten")?)?;
    let values = iterate(&a.req(Some(1), "children", "tree_unflatten")?)?;
    let d: Dict = keys.into_iter().zip(values).collect();
    Ok(wrap(class, Obj::Dict(Rc::new(RefCell::new(d)))))
}

/// The run's FrozenDict class, registered as a pytree node.
fn frozen_dict_class(interp: &mut Interp) -> Result<Rc<Class>> {
    let mut attrs = mapping_methods();
    attrs.extend(other_methods());
    attrs.push(("__flax_frozen_dict__".into(), Obj::Bool(true)));
    attrs.push(("__hash__".into(), Obj::None));
    attrs.push(("__module__".into(), Obj::str("flax.core.frozen_dict")));
    let class = new_class("FrozenDict", vec![], attrs);
    let c2 = class.clone();
    interp.state::<Registry>().register(Registered {
        class: class.clone(),
        flatten: Some(Obj::native("FrozenDict.tree_flatten", |i, a| {
            flatten(i, a, false)
        })),
        flatten_with_keys: Some(Obj::native("FrozenDict.tree_flatten_with_keys", |i, a| {
            flatten(i, a, true)
        })),
        unflatten: Some(Obj::native("FrozenDict.tree_unflatten", move |_, a| {
            unflatten(&c2, a)
        })),
    })?;
    Ok(class)
}

/// `copy(x, add_or_replace=FrozenDict({}))` and `pop(x, key)` of the module,
/// on a FrozenDict or a dict; `dict` results are fresh plain dicts.
fn copy_fn(interp: &mut Interp, a: Args) -> Result<Obj> {
    let x = a.req(Some(0), "x", "copy")?;
    let extra = a.opt(Some(1), "add_or_replace");
    if entries_of(&x).is_some() {
        let mut pos = vec![x];
        pos.extend(extra);
        return copy_method(interp, Args::new(pos));
    }
    let out = plain_copy(&x)?;
    if let (Obj::Dict(o), Some(e)) = (&out, extra) {
        for (k, v) in iterate_pairs(interp, &e)? {
            o.borrow_mut().set(k, v);
        }
    }
    Ok(out)
}

/// A fresh plain copy of a dict argument of the module's `copy`/`pop`.
fn plain_copy(x: &Obj) -> Result<Obj> {
    match x {
        Obj::Dict(_) => Ok(prepare_freeze(x)),
        _ => bail!(
            TypeError,
            "Expected FrozenDict or dict, got <class '{}'>",
            x.type_name()
        ),
    }
}

/// The entries of a dict or FrozenDict, as `self[key]` gives them.
fn iterate_pairs(interp: &mut Interp, o: &Obj) -> Result<Vec<(Obj, Obj)>> {
    match o {
        Obj::Dict(d) => Ok(d.borrow().items.clone()),
        _ if entries_of(o).is_some() => pairs(interp, o),
        _ => bail!(TypeError, "expected a mapping, got {}", o.type_name()),
    }
}

fn pop_fn(interp: &mut Interp, a: Args) -> Result<Obj> {
    let x = a.req(Some(0), "x", "pop")?;
    let key = a.req(Some(1), "key", "pop")?;
    if entries_of(&x).is_some() {
        return pop_method(interp, Args::new(vec![x, key]));
    }
    let out = plain_copy(&x)?;
    let Obj::Dict(o) = &out else {
        return Ok(out);
    };
    let removed = o.borrow_mut().remove(&key);
    let Some(value) = removed else {
        bail!(KeyError, "{}", repr_of(&key));
    };
    Ok(Obj::tuple(vec![out, value]))
}

/// Builds `flax.core.frozen_dict` (and `flax.core`, which re-exports it).
pub fn frozen_dict_module(interp: &mut Interp, name: &str) -> Result<Obj> {
    let class = frozen_dict_class(interp)?;
    let c2 = class.clone();
    let mut b = Builder::new(name);
    b.attr("FrozenDict", Obj::Class(class));
    b.func("freeze", move |i, a| {
        let xs = a.req(Some(0), "xs", "freeze")?;
        i.call(&Obj::Class(c2.clone()), Args::new(vec![xs]))
    });
    b.func("unfreeze", |_, a| {
        Ok(unfreeze_obj(&a.req(Some(0), "x", "unfreeze")?))
    });
    b.func("copy", copy_fn);
    b.func("pop", pop_fn);
    b.func("pretty_repr", |_, a| {
        let x = a.req(Some(0), "x", "pretty_repr")?;
        let spaces = num_spaces(&a, 1)?;
        Ok(Obj::str(match entries_of(&x) {
            Some(d) => frozen_text(&d, 4),
            None => pretty_dict(&x, spaces),
        }))
    });
    Ok(b.build())
}

/// Builds `flax.core`: the names of `flax.core.frozen_dict` it re-exports,
/// the same objects, and the submodule itself.
pub fn core_module(interp: &mut Interp) -> Result<Obj> {
    let fd = interp.import("flax.core.frozen_dict")?;
    let mut b = Builder::new("flax.core");
    for name in [
        "FrozenDict",
        "freeze",
        "unfreeze",
        "copy",
        "pop",
        "pretty_repr",
    ] {
        b.attr(name, crate::python::ops::getattr(interp, &fd, name)?);
    }
    b.attr("frozen_dict", fd);
    Ok(b.build())
}
