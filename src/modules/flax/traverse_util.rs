//! `flax.traverse_util` (`flatten_dict`, `unflatten_dict`,
//! `path_aware_map`, `empty_node`) and `flax.nnx.traversals`
//! (`flatten_mapping`, `flatten_to_sequence`, `unflatten_mapping`).
//!
//! Flattening walks a nested mapping depth first in its own order, keying
//! each leaf by the tuple of keys on its path (or those keys joined by
//! `sep`); empty mappings vanish unless `keep_empty_nodes` stands them in
//! with `empty_node`, which unflattening turns back into `{}`.
//! `traverse_util` takes plain dicts; `traversals` any mapping, an
//! `nnx.State` included.

use std::cell::RefCell;

use super::*;
use crate::python::dict::Dict as PyDict;
use crate::python::ops::getattr;

/// The marker for an empty mapping in a flattened one, named by its
/// module. Each module has one, so a program can test `v is empty_node`.
struct EmptyNode(&'static str);

// Per thread rather than per run: the markers are immutable (a program
// can neither set attributes on them nor reach anything of a run through
// them), so sharing them across runs carries nothing from one to the next;
// they cannot be a `static`, as objects are reference counted per thread.
thread_local! {
    static EMPTY_NODES: [Obj; 2] = [
        Obj::lib(EmptyNode("flax.traverse_util")),
        Obj::lib(EmptyNode("flax.nnx.traversals")),
    ];
}

/// `traverse_util.empty_node`, or `nnx.traversals.empty_node` for `nnx`.
fn empty_node(nnx: bool) -> Obj {
    EMPTY_NODES.with(|n| n[usize::from(nnx)].clone())
}

impl Object for EmptyNode {
    fn type_name(&self) -> String {
        "_EmptyNode".into()
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some(format!(
            "<{}._EmptyNode object at {:#x}>",
            self.0, self as *const EmptyNode as usize
        ))
    }
}

fn is_empty_node(o: &Obj, nnx: bool) -> bool {
    let module = if nnx {
        "flax.nnx.traversals"
    } else {
        "flax.traverse_util"
    };
    o.behaviour()
        .is_some_and(|b| b.downcast::<EmptyNode>().is_some_and(|e| e.0 == module))
}

fn new_dict(d: PyDict) -> Obj {
    Obj::Dict(Rc::new(RefCell::new(d)))
}

/// The entries of `xs` when it is a mapping of the kind walked (`any`: an
/// `nnx.State` as well as a dict).
fn entries(xs: &Obj, any: bool) -> Option<Vec<(Obj, Obj)>> {
    match xs {
        Obj::Dict(d) => Some(d.borrow().items.clone()),
        Obj::Instance(i) if any && is_state(i) => Some(
            i.attrs
                .borrow()
                .iter()
                .map(|(k, v)| {
                    let key = match k.parse::<i64>() {
                        Ok(n) => Obj::Int(n),
                        Err(_) => Obj::str(k),
                    };
                    (key, v.clone())
                })
                .collect(),
        ),
        _ => None,
    }
}

struct Walk {
    keep_empty: bool,
    is_leaf: Option<Obj>,
    sep: Option<Obj>,
    any_mapping: bool,
}

impl Walk {
    fn key(&self, interp: &mut Interp, path: &[Obj]) -> Result<Obj> {
        let tuple = Obj::tuple(path.to_vec());
        match &self.sep {
            None => Ok(tuple),
            Some(sep) => {
                let join = getattr(interp, sep, "join")?;
                interp.call(&join, Args::new(vec![tuple]))
            }
        }
    }

    fn leaf(&self, interp: &mut Interp, path: &[Obj], xs: &Obj) -> Result<bool> {
        match &self.is_leaf {
            None => Ok(false),
            Some(f) => {
                let r = interp.call(f, Args::new(vec![Obj::tuple(path.to_vec()), xs.clone()]))?;
                truthy(&r, "is_leaf")
            }
        }
    }

    /// The leaves under `xs` at `path`, in order.
    fn flatten(
        &self,
        interp: &mut Interp,
        xs: &Obj,
        path: &mut Vec<Obj>,
        out: &mut Vec<(Obj, Obj)>,
    ) -> Result<()> {
        let items = match entries(xs, self.any_mapping) {
            Some(items) if !self.leaf(interp, path, xs)? => items,
            _ => {
                out.push((self.key(interp, path)?, xs.clone()));
                return Ok(());
            }
        };
        if items.is_empty() && self.keep_empty && !path.is_empty() {
            out.push((self.key(interp, path)?, empty_node(self.any_mapping)));
        }
        for (k, v) in items {
            path.push(k);
            self.flatten(interp, &v, path, out)?;
            path.pop();
        }
        Ok(())
    }
}

fn type_text(o: &Obj) -> String {
    format!("<class '{}'>", o.type_name())
}

/// The nested dict of `pairs` (paths, or `sep`-joined strings, to values).
pub(super) fn unflatten(
    interp: &mut Interp,
    pairs: Vec<(Obj, Obj)>,
    sep: Option<Obj>,
    nnx: bool,
) -> Result<Obj> {
    let root = new_dict(PyDict::default());
    for (path, value) in pairs {
        let path = match &sep {
            Some(sep) => {
                let split = getattr(interp, &path, "split")?;
                interp.call(&split, Args::new(vec![sep.clone()]))?
            }
            None => path,
        };
        let keys = iterate(&path)?;
        let value = if is_empty_node(&value, nnx) {
            new_dict(PyDict::default())
        } else {
            value
        };
        let Some((last, inner)) = keys.split_last() else {
            bail!(IndexError, "tuple index out of range");
        };
        let mut cursor = root.clone();
        for k in inner {
            let next = {
                let Obj::Dict(d) = &cursor else {
                    bail!(
                        TypeError,
                        "'{}' object does not support item assignment",
                        cursor.type_name()
                    );
                };
                let found = d.borrow().get(k);
                match found {
                    Some(n) => n,
                    None => {
                        let n = new_dict(PyDict::default());
                        d.borrow_mut().set(k.clone(), n.clone());
                        n
                    }
                }
            };
            cursor = next;
        }
        crate::python::ops::setitem(&cursor, last.clone(), value)?;
    }
    Ok(root)
}

fn flatten_dict(interp: &mut Interp, a: Args) -> Result<Obj> {
    let xs = a.req(Some(0), "xs", "flatten_dict")?;
    if !matches!(xs, Obj::Dict(_)) {
        bail!(
            AssertionError,
            "expected (frozen)dict; got {}",
            type_text(&xs)
        );
    }
    let walk = Walk {
        keep_empty: match a.get(Some(1), "keep_empty_nodes") {
            Some(o) => truthy(&o, "keep_empty_nodes")?,
            None => false,
        },
        is_leaf: a.opt(Some(2), "is_leaf"),
        sep: a.opt(Some(3), "sep"),
        any_mapping: false,
    };
    flat_dict(interp, &walk, &xs)
}

/// The flat dict of `xs`'s leaves under their joined keys.
fn flat_dict(interp: &mut Interp, walk: &Walk, xs: &Obj) -> Result<Obj> {
    let mut out = vec![];
    walk.flatten(interp, xs, &mut vec![], &mut out)?;
    let mut d = PyDict::default();
    for (k, v) in out {
        d.set(k, v);
    }
    Ok(new_dict(d))
}

fn unflatten_dict(interp: &mut Interp, a: Args) -> Result<Obj> {
    let xs = a.req(Some(0), "xs", "unflatten_dict")?;
    let Obj::Dict(d) = &xs else {
        bail!(
            AssertionError,
            "input is not a dict; it is a {}",
            type_text(&xs)
        );
    };
    let pairs = d.borrow().items.clone();
    unflatten(interp, pairs, a.opt(Some(1), "sep"), false)
}

fn path_aware_map(interp: &mut Interp, a: Args) -> Result<Obj> {
    let f = a.req(Some(0), "f", "path_aware_map")?;
    let xs = a.req(Some(1), "nested_dict", "path_aware_map")?;
    if !matches!(xs, Obj::Dict(_)) {
        bail!(
            AssertionError,
            "expected (frozen)dict; got {}",
            type_text(&xs)
        );
    }
    let walk = Walk {
        keep_empty: true,
        is_leaf: None,
        sep: None,
        any_mapping: false,
    };
    let mut flat = vec![];
    walk.flatten(interp, &xs, &mut vec![], &mut flat)?;
    let mut mapped = vec![];
    for (k, v) in flat {
        let v = if is_empty_node(&v, false) {
            v
        } else {
            interp.call(&f, Args::new(vec![k.clone(), v]))?
        };
        mapped.push((k, v));
    }
    unflatten(interp, mapped, None, false)
}

fn mapping_arg(a: &Args, func: &str) -> Result<Obj> {
    let xs = a.req(Some(0), "xs", func)?;
    if entries(&xs, true).is_none() {
        bail!(AssertionError, "expected Mapping; got {}", xs.type_name());
    }
    Ok(xs)
}

fn flatten_mapping(interp: &mut Interp, a: Args) -> Result<Obj> {
    let xs = mapping_arg(&a, "flatten_mapping")?;
    let walk = Walk {
        keep_empty: match a.get(None, "keep_empty_nodes") {
            Some(o) => truthy(&o, "keep_empty_nodes")?,
            None => false,
        },
        is_leaf: a.opt(None, "is_leaf"),
        sep: a.opt(None, "sep"),
        any_mapping: true,
    };
    flat_dict(interp, &walk, &xs)
}

fn flatten_to_sequence(interp: &mut Interp, a: Args) -> Result<Obj> {
    let xs = mapping_arg(&a, "flatten_to_sequence")?;
    let walk = Walk {
        keep_empty: false,
        is_leaf: a.opt(None, "is_leaf"),
        sep: None,
        any_mapping: true,
    };
    let mut out = vec![];
    walk.flatten(interp, &xs, &mut vec![], &mut out)?;
    let items = out
        .into_iter()
        .map(|(k, v)| Obj::tuple(vec![k, v]))
        .collect();
    Ok(Obj::list(items))
}

fn unflatten_mapping(interp: &mut Interp, a: Args) -> Result<Obj> {
    let xs = a.req(Some(0), "xs", "unflatten_mapping")?;
    let pairs = match entries(&xs, true) {
        Some(items) => items,
        None => {
            let mut pairs = vec![];
            for item in iterate(&xs).map_err(|_| {
                err!(
                    TypeError,
                    "expected Mapping or Iterable; got {}",
                    xs.type_name()
                )
            })? {
                let kv = iterate(&item)?;
                let [k, v] = <[Obj; 2]>::try_from(kv).map_err(|kv| {
                    err!(
                        ValueError,
                        "too many values to unpack (expected 2, got {})",
                        kv.len()
                    )
                })?;
                pairs.push((k, v));
            }
            pairs
        }
    };
    unflatten(interp, pairs, a.opt(None, "sep"), true)
}

/// The `flax.traverse_util` module.
pub fn traverse_util_module() -> Obj {
    let mut b = Builder::new("flax.traverse_util");
    b.func("flatten_dict", flatten_dict);
    b.func("unflatten_dict", unflatten_dict);
    b.func("path_aware_map", path_aware_map);
    b.attr("empty_node", empty_node(false));
    b.build()
}

/// The `flax.nnx.traversals` module.
pub(super) fn traversals_module() -> Obj {
    let mut b = Builder::new("flax.nnx.traversals");
    b.func("flatten_mapping", flatten_mapping);
    b.func("flatten_to_sequence", flatten_to_sequence);
    b.func("unflatten_mapping", unflatten_mapping);
    b.attr("empty_node", empty_node(true));
    b.build()
}
