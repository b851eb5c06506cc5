//! Walking an nnx graph: `nnx.iter_graph`, `iter_modules`, `iter_children`,
//! `iter_module_children`, and the state helpers `filter_state` and
//! `split_state`.
//!
//! In graph mode a node's children are its `node_dict`: for an
//! `nnx.Pytree` (modules, `Rngs`, streams) its attributes sorted by name,
//! which in Flax include the bookkeeping attributes `_pytree__nodes` and
//! `_pytree__state`; list and tuple positions; dict keys in sorted order.
//! `iter_graph` yields `(path, node)` depth first, each node after its
//! children, each shared node or variable once.

use std::collections::HashSet;

use super::*;

/// Flax's bookkeeping attributes of every `nnx.Pytree`, with the class
/// names of their values: shardlab keeps that information elsewhere, so
/// they stand in as objects that print only their type.
const PYTREE_ATTRS: [(&str, &str); 2] = [
    ("_pytree__nodes", "HashableMapping"),
    ("_pytree__state", "PytreeState"),
];

fn bookkeeping(class: &str) -> Obj {
    let what = format!("the value of nnx.Pytree's {class} attribute");
    let repr = Obj::native(format!("{class}.__repr__"), move |_, _| {
        bail!(NotImplementedError, "not supported by shardlab yet: {what}")
    });
    instance(
        &new_class(class, vec![], vec![("__repr__".into(), repr)]),
        vec![],
    )
}

/// The children of a graph node by key, in Flax's order, or None for a
/// leaf.
fn node_dict(o: &Obj) -> Option<Vec<(Obj, Obj)>> {
    match o {
        Obj::Instance(i) if is_nnx_module(i) && !is_variable(i) => {
            let mut attrs: Vec<(String, Obj)> = i
                .attrs
                .borrow()
                .iter()
                .filter(|(k, _)| !k.starts_with("_nnx") && !k.starts_with("_linen"))
                .cloned()
                .collect();
            for (k, class) in PYTREE_ATTRS {
                attrs.push((k.to_string(), bookkeeping(class)));
            }
            attrs.sort_by(|a, b| a.0.cmp(&b.0));
            Some(attrs.into_iter().map(|(k, v)| (Obj::str(k), v)).collect())
        }
        Obj::List(l) => Some(numbered(&l.borrow())),
        Obj::Tuple(t) => Some(numbered(t)),
        Obj::Dict(d) => {
            let mut items = d.borrow().items.clone();
            items.sort_by(|a, b| key_order(&str_of(&a.0), &str_of(&b.0)));
            Some(items)
        }
        _ => None,
    }
}

fn numbered(items: &[Obj]) -> Vec<(Obj, Obj)> {
    items
        .iter()
        .enumerate()
        .map(|(k, v)| (Obj::Int(k as i64), v.clone()))
        .collect()
}

/// The identity by which a node or variable is visited once.
fn identity(o: &Obj) -> Option<usize> {
    match o {
        Obj::Instance(i) if is_nnx_module(i) || is_variable(i) => Some(Rc::as_ptr(i) as usize),
        Obj::List(l) => Some(Rc::as_ptr(l) as usize),
        Obj::Dict(d) => Some(Rc::as_ptr(d) as usize),
        _ => None,
    }
}

fn walk(o: &Obj, path: &mut Vec<Obj>, seen: &mut HashSet<usize>, out: &mut Vec<(Obj, Obj)>) {
    if let Some(id) = identity(o) {
        if !seen.insert(id) {
            return;
        }
    }
    if let Some(children) = node_dict(o) {
        for (k, v) in children {
            path.push(k);
            walk(&v, path, seen, out);
            path.pop();
        }
    }
    out.push((Obj::tuple(path.clone()), o.clone()));
}

/// Whether `o` is an `nnx.Module` (not only an `nnx.Pytree`); an
/// `nnx.List` is one.
pub(super) fn is_module(o: &Obj) -> bool {
    fn named(c: &Rc<Class>) -> bool {
        (c.name == "Module" && matches!(c.lookup("__nnx_module__"), Some(Obj::Bool(true))))
            || c.bases.iter().any(named)
    }
    match o {
        Obj::Instance(i) => is_nnx_module(i) && named(&i.class),
        other => super::pytree::is_nnx_list(other),
    }
}

/// Tree mode (`graph=False`) walks modules as pytrees, which shardlab
/// does not do here.
fn check_graph_mode(a: &Args, func: &str) -> Result<()> {
    match a.opt(None, "graph") {
        Some(g) if !matches!(g, Obj::None) && !truthy(&g, "graph")? => bail!(
            NotImplementedError,
            "not supported by shardlab yet: nnx.{func}(graph=False)"
        ),
        _ => Ok(()),
    }
}

fn pairs(items: Vec<(Obj, Obj)>) -> Obj {
    Obj::list(
        items
            .into_iter()
            .map(|(p, v)| Obj::tuple(vec![p, v]))
            .collect(),
    )
}

fn iter_graph(interp: &mut Interp, a: &Args, func: &str, modules_only: bool) -> Result<Obj> {
    check_graph_mode(a, func)?;
    let node = a.req(Some(0), "node", func)?;
    let mut out = vec![];
    walk(&node, &mut vec![], &mut HashSet::new(), &mut out);
    if modules_only {
        out.retain(|(_, v)| is_module(v));
    }
    interp.iter_of(&pairs(out))
}

/// The direct children of a graph node that are graph nodes (modules,
/// pytrees, variables, containers) or, with `modules_only`, modules.
fn iter_children(interp: &mut Interp, a: &Args, func: &str, modules_only: bool) -> Result<Obj> {
    check_graph_mode(a, func)?;
    let node = a.req(Some(0), "node", func)?;
    let Some(children) = node_dict(&node).filter(|_| !matches!(node, Obj::Tuple(_))) else {
        bail!(
            ValueError,
            "Expected a graph node, got {}. If this is a regular pytree, use graph=False.",
            node.type_name()
        );
    };
    let keep = |v: &Obj| match v {
        v if modules_only => is_module(v),
        Obj::Instance(i) => is_nnx_module(i) || is_variable(i),
        Obj::List(_) | Obj::Dict(_) => !modules_only,
        _ => false,
    };
    let out = children.into_iter().filter(|(_, v)| keep(v)).collect();
    interp.iter_of(&pairs(out))
}

/// `filter_state(state, first, *filters)` / `split_state(...)`: the
/// states of each filter (a lone state for one filter); what no filter
/// selects is left out.
fn state_groups(interp: &mut Interp, a: &Args, func: &str) -> Result<Obj> {
    let state = a.req(Some(0), "state", func)?;
    if a.pos.len() < 2 {
        bail!(
            TypeError,
            "{func}() missing 1 required positional argument: 'first'"
        );
    }
    let f = crate::python::ops::getattr(interp, &state, "filter")?;
    interp.call(&f, Args::new(a.pos[1..].to_vec()))
}

/// Adds the graph walkers and state helpers to `flax.nnx`.
pub(super) fn register(b: &mut Builder) {
    b.func("iter_graph", |i, a| iter_graph(i, &a, "iter_graph", false));
    b.func("iter_modules", |i, a| {
        iter_graph(i, &a, "iter_modules", true)
    });
    b.func("iter_children", |i, a| {
        iter_children(i, &a, "iter_children", false)
    });
    b.func("iter_module_children", |i, a| {
        iter_children(i, &a, "iter_module_children", true)
    });
    b.func("filter_state", |i, a| state_groups(i, &a, "filter_state"));
    b.func("split_state", |i, a| state_groups(i, &a, "split_state"));
}
