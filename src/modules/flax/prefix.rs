//! `nnx.prefix(node, filter_map, graph=False)`: the node's pytree with every
//! variable replaced by a prefix value (an axis for `nnx.vmap`'s
//! `in_axes`, say), chosen by `filter_map(path, variable)` or by the first
//! filter of a `{filter: value}` mapping that the variable passes. The
//! path is nnx's: attribute names, dict keys and list positions.
//!
//! In tree mode (`graph=False`) modules are ordinary pytrees and the
//! result keeps their structure. Graph mode, which first turns shared
//! references into a tree, is refused by name.

use super::filters::{to_predicate, Pred};
use super::*;
use crate::python::ops::getattr;

/// A JAX key-path entry as nnx names it: a list position, a dict key or an
/// attribute name.
fn nnx_key(interp: &mut Interp, k: &Obj) -> Obj {
    for attr in ["idx", "key", "name"] {
        if let Ok(v) = getattr(interp, k, attr) {
            return v;
        }
    }
    Obj::str(str_of(k))
}

/// How the prefix of a variable is chosen.
enum Choice {
    Filters(Vec<(Pred, Obj)>, Vec<Obj>),
    Call(Obj),
}

impl Choice {
    fn new(filter_map: &Obj) -> Result<Choice> {
        let Obj::Dict(d) = filter_map else {
            return Ok(Choice::Call(filter_map.clone()));
        };
        let items = d.borrow().items.clone();
        let mut preds = vec![];
        for (f, v) in &items {
            preds.push((to_predicate(f)?, v.clone()));
        }
        Ok(Choice::Filters(
            preds,
            items.into_iter().map(|(f, _)| f).collect(),
        ))
    }

    fn pick(&self, interp: &mut Interp, path: &Obj, leaf: &Obj) -> Result<Obj> {
        match self {
            Choice::Call(f) => interp.call(f, Args::new(vec![path.clone(), leaf.clone()])),
            Choice::Filters(preds, filters) => {
                for (pred, value) in preds {
                    if pred.eval(interp, path, leaf)? {
                        return Ok(value.clone());
                    }
                }
                bail!(
                    ValueError,
                    "No filter matched leaf at path {} with value {}. Filters: {}",
                    repr_of(path),
                    repr_of(leaf),
                    repr_of(&Obj::list(filters.clone()))
                )
            }
        }
    }
}

/// `nnx.prefix(node, filter_map, /, *, graph=None)`.
fn prefix(interp: &mut Interp, a: Args) -> Result<Obj> {
    let node = a.req(Some(0), "node", "prefix")?;
    let filter_map = a.req(Some(1), "filter_map", "prefix")?;
    // Flax's default graph mode is on.
    let graph = match a.opt(None, "graph") {
        Some(g) => truthy(&g, "graph")?,
        None => true,
    };
    if graph {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: nnx.prefix in graph mode (graph=True)"
        );
    }
    let choice = Rc::new(Choice::new(&filter_map)?);
    let apply = Obj::native("_apply_prefix", move |i, a| {
        let jax_path = a.req(Some(0), "path", "_apply_prefix")?;
        let leaf = a.req(Some(1), "leaf", "_apply_prefix")?;
        let mut keys = vec![];
        for k in iterate(&jax_path)? {
            keys.push(nnx_key(i, &k));
        }
        choice.pick(i, &Obj::tuple(keys), &leaf)
    });
    let is_leaf = Obj::native("is_leaf", |_, a| {
        let x = a.req(Some(0), "x", "is_leaf")?;
        Ok(Obj::Bool(matches!(&x, Obj::Instance(i) if is_variable(i))))
    });
    let tree_util = crate::modules::import(interp, "jax.tree_util")?;
    let map = getattr(interp, &tree_util, "tree_map_with_path")?;
    interp.call(
        &map,
        Args::with(vec![apply, node], vec![("is_leaf".into(), is_leaf)]),
    )
}

/// The axis `tree` (a node's tree of prefixes, as `prefix` makes) gives the
/// variable at `path`: the first int or `None` met walking down the path.
pub(super) fn axis_at(tree: &Obj, path: &[String]) -> Result<Obj> {
    let mut cur = tree.clone();
    for name in path {
        let next = match &cur {
            Obj::Int(_) | Obj::None => return Ok(cur),
            Obj::Instance(i) => iattr(i, name),
            Obj::Dict(d) => d
                .borrow()
                .items
                .iter()
                .find(|(k, _)| &str_of(k) == name)
                .map(|(_, v)| v.clone()),
            Obj::List(_) | Obj::Tuple(_) => match name.parse::<usize>() {
                Ok(k) => iterate(&cur)?.get(k).cloned(),
                Err(_) => None,
            },
            _ => None,
        };
        cur = next.ok_or_else(|| {
            err!(
                ValueError,
                "the tree of axes has no entry at {} (it must be a prefix of the node's tree)",
                path.join("/")
            )
        })?;
    }
    match cur {
        Obj::Int(_) | Obj::None => Ok(cur),
        other => bail!(
            ValueError,
            "vmap in_axes must hold ints or None at a node's variables, got {}",
            repr_of(&other)
        ),
    }
}

/// A node's tree of axes as the prefix of its whole state: the state's
/// structure with each variable's axis in place of the variable.
pub(super) fn state_prefix(st: &Rc<Class>, node: &Obj, tree: &Obj) -> Result<Obj> {
    let mut vars = vec![];
    super::nnx::collect_vars(node, &mut vec![], &|_| true, &mut vars);
    let mut entries = vec![];
    for (path, _) in vars {
        let axis = axis_at(tree, &path)?;
        entries.push((path, axis));
    }
    Ok(super::graph::StateClass(st.clone()).build(entries))
}

/// Adds `prefix` to `flax.nnx`.
pub(super) fn register(b: &mut Builder) {
    b.func("prefix", prefix);
}
