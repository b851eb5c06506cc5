//! Pytrees: flattening nested tuples, lists and dicts into leaves and back,
//! and broadcasting prefix trees (in_specs, in_axes) onto them as JAX does.

use std::cell::RefCell;
use std::rc::Rc;

use crate::error::Result;
use crate::trace::Value;
use crate::{bail, err};

use super::array::to_value;
use super::format::repr_of;
use super::ops::py_cmp;
use super::value::{Dict, Instance, Obj};

/// The structure of a pytree.
#[derive(Clone, Debug)]
pub enum TreeDef {
    /// A leaf.
    Leaf,
    /// `None`: a node without children.
    None,
    /// A tuple of subtrees.
    Tuple(Vec<TreeDef>),
    /// A list of subtrees.
    List(Vec<TreeDef>),
    /// A dict; keys in sorted order, as JAX flattens them.
    Dict(Vec<(Obj, TreeDef)>),
    /// An instance registered as a pytree node (see
    /// `Object::children`): its class, the attributes kept as they
    /// are, and the subtrees of its child attributes.
    Instance(Obj, Vec<(String, Obj)>, Vec<(String, TreeDef)>),
}

impl TreeDef {
    /// Number of leaves.
    pub fn num_leaves(&self) -> usize {
        match self {
            TreeDef::Leaf => 1,
            TreeDef::None => 0,
            TreeDef::Tuple(c) | TreeDef::List(c) => c.iter().map(|t| t.num_leaves()).sum(),
            TreeDef::Dict(c) => c.iter().map(|(_, t)| t.num_leaves()).sum(),
            TreeDef::Instance(_, _, c) => c.iter().map(|(_, t)| t.num_leaves()).sum(),
        }
    }

    /// `PyTreeDef(...)` as `jax.tree_util.tree_structure` prints it.
    pub fn repr(&self) -> String {
        fn r(t: &TreeDef) -> String {
            match t {
                TreeDef::Leaf => "*".into(),
                TreeDef::None => "None".into(),
                TreeDef::Tuple(c) => {
                    let parts: Vec<String> = c.iter().map(r).collect();
                    if parts.len() == 1 {
                        format!("({},)", parts[0])
                    } else {
                        format!("({})", parts.join(", "))
                    }
                }
                TreeDef::List(c) => format!("[{}]", c.iter().map(r).collect::<Vec<_>>().join(", ")),
                TreeDef::Dict(c) => format!(
                    "{{{}}}",
                    c.iter()
                        .map(|(k, t)| format!("{}: {}", repr_of(k), r(t)))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                TreeDef::Instance(class, _, c) => format!(
                    "CustomNode({}[{}], [{}])",
                    match class {
                        Obj::Class(k) => k.name.clone(),
                        _ => "?".into(),
                    },
                    c.iter()
                        .map(|(k, _)| format!("'{k}'"))
                        .collect::<Vec<_>>()
                        .join(", "),
                    c.iter().map(|(_, t)| r(t)).collect::<Vec<_>>().join(", ")
                ),
            }
        }
        format!("PyTreeDef({})", r(self))
    }
}

fn sorted_items(d: &Dict) -> Vec<(Obj, Obj)> {
    let mut items = d.items.clone();
    items.sort_by(|a, b| py_cmp(&a.0, &b.0).unwrap_or(std::cmp::Ordering::Equal));
    items
}

/// Flattens `o` into its leaves and structure.
pub fn flatten(o: &Obj) -> (Vec<Obj>, TreeDef) {
    let mut leaves = vec![];
    let def = flatten_into(o, &mut leaves);
    (leaves, def)
}

fn flatten_into(o: &Obj, leaves: &mut Vec<Obj>) -> TreeDef {
    match o {
        Obj::None => TreeDef::None,
        Obj::Tuple(t) => TreeDef::Tuple(t.iter().map(|x| flatten_into(x, leaves)).collect()),
        Obj::List(l) => TreeDef::List(l.borrow().iter().map(|x| flatten_into(x, leaves)).collect()),
        Obj::Dict(d) => {
            let items = sorted_items(&d.borrow());
            TreeDef::Dict(
                items
                    .iter()
                    .map(|(k, v)| (k.clone(), flatten_into(v, leaves)))
                    .collect(),
            )
        }
        Obj::Instance(i) => match o.behaviour().and_then(|b| b.children(o)) {
            Some(names) => {
                let attrs = i.attrs.borrow().clone();
                let statics = attrs
                    .iter()
                    .filter(|(k, _)| !names.contains(k))
                    .cloned()
                    .collect();
                let children = names
                    .iter()
                    .map(|n| {
                        let v = attrs
                            .iter()
                            .find(|(k, _)| k == n)
                            .map(|(_, v)| v.clone())
                            .unwrap_or(Obj::None);
                        (n.clone(), flatten_into(&v, leaves))
                    })
                    .collect();
                TreeDef::Instance(Obj::Class(i.class.clone()), statics, children)
            }
            None => {
                leaves.push(o.clone());
                TreeDef::Leaf
            }
        },
        other => {
            leaves.push(other.clone());
            TreeDef::Leaf
        }
    }
}

/// Rebuilds a tree from its structure and leaves.
pub fn unflatten(def: &TreeDef, leaves: &[Obj]) -> Result<Obj> {
    let mut it = leaves.iter().cloned();
    let out = unflatten_from(def, &mut it)?;
    if it.next().is_some() {
        bail!(
            ValueError,
            "too many leaves for the tree structure {}",
            def.repr()
        );
    }
    Ok(out)
}

fn unflatten_from(def: &TreeDef, it: &mut dyn Iterator<Item = Obj>) -> Result<Obj> {
    Ok(match def {
        TreeDef::Leaf => it
            .next()
            .ok_or_else(|| err!(ValueError, "too few leaves for the tree structure"))?,
        TreeDef::None => Obj::None,
        TreeDef::Tuple(c) => Obj::tuple(
            c.iter()
                .map(|t| unflatten_from(t, it))
                .collect::<Result<_>>()?,
        ),
        TreeDef::List(c) => Obj::list(
            c.iter()
                .map(|t| unflatten_from(t, it))
                .collect::<Result<_>>()?,
        ),
        TreeDef::Dict(c) => {
            let mut d = Dict::default();
            for (k, t) in c {
                d.set(k.clone(), unflatten_from(t, it)?);
            }
            Obj::Dict(Rc::new(RefCell::new(d)))
        }
        TreeDef::Instance(class, statics, children) => {
            let Obj::Class(class) = class else {
                bail!(TypeError, "a pytree node without a class");
            };
            let mut attrs = statics.clone();
            for (k, t) in children {
                attrs.push((k.clone(), unflatten_from(t, it)?));
            }
            Obj::Instance(Rc::new(Instance {
                class: class.clone(),
                attrs: RefCell::new(attrs),
            }))
        }
    })
}

/// The leaves of `o` as array values (Python numbers become arrays).
pub fn leaf_values(leaves: &[Obj]) -> Result<Vec<Value>> {
    leaves.iter().map(to_value).collect()
}

/// Wraps values as array objects.
pub fn value_objs(vals: &[Value]) -> Vec<Obj> {
    vals.iter().cloned().map(Obj::Array).collect()
}

/// Broadcasts a prefix tree onto `full`: each leaf of `prefix` (as decided by
/// `is_leaf`) covers every leaf of the matching subtree of `full`. Returns one
/// entry per leaf of `full`.
pub fn broadcast_prefix(
    prefix: &Obj,
    full: &TreeDef,
    is_leaf: &dyn Fn(&Obj) -> bool,
    what: &str,
) -> Result<Vec<Obj>> {
    let mut out = vec![];
    broadcast_into(prefix, full, is_leaf, what, &mut out)?;
    Ok(out)
}

fn broadcast_into(
    prefix: &Obj,
    full: &TreeDef,
    is_leaf: &dyn Fn(&Obj) -> bool,
    what: &str,
    out: &mut Vec<Obj>,
) -> Result<()> {
    if is_leaf(prefix) {
        for _ in 0..full.num_leaves() {
            out.push(prefix.clone());
        }
        return Ok(());
    }
    match (prefix, full) {
        (Obj::Tuple(_) | Obj::List(_), TreeDef::Tuple(c) | TreeDef::List(c)) => {
            let items = super::ops::iterate(prefix)?;
            if items.len() != c.len() {
                bail!(
                    ValueError,
                    "{what} specification must be a tree prefix of the corresponding value, got specification {} for value tree {}",
                    repr_of(prefix),
                    full.repr()
                );
            }
            for (p, t) in items.iter().zip(c) {
                broadcast_into(p, t, is_leaf, what, out)?;
            }
            Ok(())
        }
        (Obj::Dict(d), TreeDef::Dict(c)) => {
            let d = d.borrow();
            if d.items.len() != c.len() {
                bail!(
                    ValueError,
                    "{what} specification must be a tree prefix of the corresponding value, got specification {} for value tree {}",
                    repr_of(prefix),
                    full.repr()
                );
            }
            for (k, t) in c {
                let p = d.get(k).ok_or_else(|| err!(ValueError, "{what} is missing the key {}", repr_of(k)))?;
                broadcast_into(&p, t, is_leaf, what, out)?;
            }
            Ok(())
        }
        (_, TreeDef::None) => Ok(()),
        _ => bail!(
            ValueError,
            "{what} specification must be a tree prefix of the corresponding value, got specification {} for value tree {}",
            repr_of(prefix),
            full.repr()
        ),
    }
}
