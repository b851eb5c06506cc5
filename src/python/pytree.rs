//! Pytrees: flattening nested containers into leaves and a structure
//! ([`TreeDef`]) and back, as JAX does, and broadcasting prefix trees
//! (in_specs, in_axes) onto them.
//!
//! The nodes JAX knows by itself are here: `None` (a node without
//! children), tuples, lists, dicts (children in sorted key order),
//! `defaultdict`s (sorted too, keeping their factory), and instances whose
//! library behaviour names child attributes (`Object::children`:
//! namedtuples, registered dataclasses, optax states, nnx objects).
//! Classes registered from the program (`register_pytree_node` and its
//! relatives) are looked up in the run's [`Registry`], kept in the
//! interpreter; flattening one calls its Python flatten function, and
//! rebuilding it calls its unflatten function with `(aux, children)`.
//! Everything else is a leaf.
//!
//! Flattening can also record each leaf's key path ([`KeyEntry`]s), which
//! `jax.tree_util` turns into its key objects.

use std::cell::RefCell;
use std::rc::Rc;

use crate::error::Result;
use crate::trace::Value;
use crate::{bail, err};

use super::array::to_value;
use super::format::{repr_of, str_of};
use super::interp::Interp;
use super::ops::{iterate, py_cmp, py_eq};
use super::value::{Args, Class, Dict, Instance, Obj};

/// One step of a key path.
#[derive(Clone, Debug)]
pub enum KeyEntry {
    /// `DictKey(key)`: a dict's entry.
    Dict(Obj),
    /// `SequenceKey(idx)`: a tuple's or list's item.
    Sequence(usize),
    /// `GetAttrKey(name)`: an attribute (namedtuple fields, dataclasses).
    Attr(String),
    /// `FlattenedIndexKey(key)`: the n-th child of a registered node
    /// flattened without keys.
    Flat(usize),
    /// A key given by a `register_pytree_with_keys` flatten function.
    Given(Obj),
}

/// A class registered from the program as a pytree node.
pub struct Registered {
    /// The class (JAX matches the exact type, not subclasses).
    pub class: Rc<Class>,
    /// `flatten(x) -> (children, aux)`, when given.
    pub flatten: Option<Obj>,
    /// `flatten_with_keys(x) -> (((key, child), ...), aux)`, when given.
    pub flatten_with_keys: Option<Obj>,
    /// `unflatten(aux, children) -> x`; None for a static class, whose
    /// instances are their own aux data.
    pub unflatten: Option<Obj>,
}

/// The pytree nodes registered during a run (`interp.state::<Registry>()`).
#[derive(Default)]
pub struct Registry {
    nodes: Vec<Rc<Registered>>,
}

impl Registry {
    /// The registration of exactly `class`.
    pub fn find(&self, class: &Rc<Class>) -> Option<Rc<Registered>> {
        self.nodes
            .iter()
            .find(|n| Rc::ptr_eq(&n.class, class))
            .cloned()
    }

    /// Registers a node; a class registers once, as in JAX.
    pub fn register(&mut self, node: Registered) -> Result<()> {
        if self.find(&node.class).is_some() {
            bail!(
                ValueError,
                "Duplicate custom PyTreeDef type registration for {}.",
                repr_of(&Obj::Class(node.class.clone()))
            );
        }
        node.class
            .attrs
            .borrow_mut()
            .push((REGISTERED_MARK.into(), Obj::Bool(true)));
        self.nodes.push(Rc::new(node));
        Ok(())
    }
}

/// The kind of a node other than the built-in containers.
pub enum NodeKind {
    /// A `defaultdict`: its factory and its keys in sorted order.
    DefaultDict { factory: Obj, keys: Vec<Obj> },
    /// An `OrderedDict`: its keys in insertion order.
    OrderedDict { keys: Vec<Obj> },
    /// An instance whose library behaviour names its child attributes: its
    /// class, the other attributes (kept as they are) and the child names.
    Attrs {
        class: Rc<Class>,
        statics: Vec<(String, Obj)>,
        names: Vec<String>,
    },
    /// An instance of a registered class and its aux data.
    Custom { node: Rc<Registered>, aux: Obj },
}

impl NodeKind {
    /// The node's class as Python names it in messages (`<class 'P'>`).
    pub fn type_repr(&self) -> String {
        match self {
            NodeKind::DefaultDict { .. } => "<class 'collections.defaultdict'>".into(),
            NodeKind::OrderedDict { .. } => "<class 'collections.OrderedDict'>".into(),
            NodeKind::Attrs { class, .. } => class_repr(class),
            NodeKind::Custom { node, .. } => class_repr(&node.class),
        }
    }
}

/// The structure of a pytree.
#[derive(Clone)]
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
    /// Any other node and its children's structures.
    Node(Rc<NodeKind>, Vec<TreeDef>),
}

impl std::fmt::Debug for TreeDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.repr())
    }
}

/// How a node's aux data prints inside `PyTreeDef(...)`.
pub type AuxStr<'a> = dyn FnMut(&Obj) -> Result<String> + 'a;

impl TreeDef {
    /// The structures of the node's children, in order.
    pub fn children(&self) -> Vec<&TreeDef> {
        match self {
            TreeDef::Leaf | TreeDef::None => vec![],
            TreeDef::Tuple(c) | TreeDef::List(c) | TreeDef::Node(_, c) => c.iter().collect(),
            TreeDef::Dict(c) => c.iter().map(|(_, t)| t).collect(),
        }
    }

    /// How a key path names each child, as JAX's `keystr` prints the
    /// pieces: `[0]`, `['a']`, `.name`, `[<flat index 0>]`.
    pub fn child_labels(&self) -> Vec<String> {
        let repr = super::format::repr_of;
        match self {
            TreeDef::Leaf | TreeDef::None => vec![],
            TreeDef::Tuple(c) | TreeDef::List(c) => {
                (0..c.len()).map(|i| format!("[{i}]")).collect()
            }
            TreeDef::Dict(c) => c.iter().map(|(k, _)| format!("[{}]", repr(k))).collect(),
            TreeDef::Node(kind, c) => match &**kind {
                NodeKind::Attrs { names, .. } => names.iter().map(|k| format!(".{k}")).collect(),
                NodeKind::DefaultDict { keys, .. } | NodeKind::OrderedDict { keys } => {
                    keys.iter().map(|k| format!("[{}]", repr(k))).collect()
                }
                NodeKind::Custom { .. } => (0..c.len())
                    .map(|i| format!("[<flat index {i}>]"))
                    .collect(),
            },
        }
    }

    /// The key path of every leaf, each starting with `base`: `p['u']`,
    /// `q[0].w`, as JAX names leaves in its messages.
    pub fn leaf_paths(&self, base: &str) -> Vec<String> {
        fn walk(t: &TreeDef, at: String, out: &mut Vec<String>) {
            if let TreeDef::Leaf = t {
                out.push(at);
                return;
            }
            for (label, c) in t.child_labels().iter().zip(t.children()) {
                walk(c, format!("{at}{label}"), out);
            }
        }
        let mut out = vec![];
        walk(self, base.to_string(), &mut out);
        out
    }

    /// Number of leaves.
    pub fn num_leaves(&self) -> usize {
        match self {
            TreeDef::Leaf => 1,
            t => t.children().iter().map(|c| c.num_leaves()).sum(),
        }
    }

    /// Number of nodes, leaves and `None`s included.
    pub fn num_nodes(&self) -> usize {
        1 + self.children().iter().map(|c| c.num_nodes()).sum::<usize>()
    }

    /// Whether the two structures are the same, comparing keys and aux data
    /// with `eq`.
    pub fn same_with(
        &self,
        other: &TreeDef,
        eq: &mut dyn FnMut(&Obj, &Obj) -> Result<bool>,
    ) -> Result<bool> {
        let here = match (self, other) {
            (TreeDef::Leaf, TreeDef::Leaf) | (TreeDef::None, TreeDef::None) => true,
            (TreeDef::Tuple(x), TreeDef::Tuple(y)) | (TreeDef::List(x), TreeDef::List(y)) => {
                x.len() == y.len()
            }
            (TreeDef::Dict(x), TreeDef::Dict(y)) => {
                x.len() == y.len() && all_eq(x.iter().map(|p| &p.0), y.iter().map(|p| &p.0), eq)?
            }
            (TreeDef::Node(a, x), TreeDef::Node(b, y)) => {
                x.len() == y.len() && same_kind(a, b, eq)?
            }
            _ => false,
        };
        if !here {
            return Ok(false);
        }
        for (a, b) in self.children().iter().zip(other.children()) {
            if !a.same_with(b, eq)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Whether the two structures are the same, comparing aux data with
    /// Python's `==` on plain values.
    pub fn same(&self, other: &TreeDef) -> bool {
        self.same_with(other, &mut |a, b| Ok(py_eq(a, b)))
            .unwrap_or(false)
    }

    /// `PyTreeDef(...)` as JAX prints it, with aux data printed by `aux`
    /// (Python's `str`).
    pub fn repr_with(&self, aux: &mut AuxStr) -> Result<String> {
        Ok(format!("PyTreeDef({})", self.body(aux)?))
    }

    /// [`TreeDef::repr_with`] for messages, where aux data prints without
    /// calling the program's `__str__`.
    pub fn repr(&self) -> String {
        self.repr_with(&mut |o| Ok(str_of(o)))
            .unwrap_or_else(|e| e.message)
    }

    fn body(&self, aux: &mut AuxStr) -> Result<String> {
        let kids = |c: &[TreeDef], aux: &mut AuxStr| -> Result<Vec<String>> {
            c.iter().map(|t| t.body(aux)).collect()
        };
        Ok(match self {
            TreeDef::Leaf => "*".into(),
            TreeDef::None => "None".into(),
            TreeDef::Tuple(c) if c.len() == 1 => format!("({},)", c[0].body(aux)?),
            TreeDef::Tuple(c) => format!("({})", kids(c, aux)?.join(", ")),
            TreeDef::List(c) => format!("[{}]", kids(c, aux)?.join(", ")),
            TreeDef::Dict(c) => {
                let mut parts = vec![];
                for (k, t) in c {
                    parts.push(format!("{}: {}", repr_of(k), t.body(aux)?));
                }
                format!("{{{}}}", parts.join(", "))
            }
            TreeDef::Node(kind, c) => {
                if let NodeKind::Attrs {
                    class,
                    statics,
                    names,
                } = &**kind
                {
                    let texts = kids(c, aux)?;
                    let own = class
                        .native()
                        .and_then(|n| n.treedef_text(class, statics, names, &texts));
                    if let Some(text) = own {
                        return Ok(text);
                    }
                }
                let data = match &**kind {
                    NodeKind::DefaultDict { factory, keys } => format!(
                        "defaultdict[({}, {})]",
                        repr_of(factory),
                        repr_of(&Obj::tuple(keys.clone()))
                    ),
                    NodeKind::OrderedDict { keys } => {
                        format!("OrderedDict[{}]", repr_of(&Obj::tuple(keys.clone())))
                    }
                    NodeKind::Attrs {
                        class,
                        statics,
                        names,
                    } => attrs_data(class, statics, names),
                    NodeKind::Custom { node, aux: a } => {
                        format!("{}[{}]", node.class.name, aux(a)?)
                    }
                };
                format!("CustomNode({data}, [{}])", kids(c, aux)?.join(", "))
            }
        })
    }
}

/// `<class '...'>` for a node's class: the program's namedtuples and
/// dataclasses are `__main__`'s.
pub fn class_repr(class: &Rc<Class>) -> String {
    let kind = class.native().map(|n| n.type_name()).unwrap_or_default();
    match kind.as_str() {
        "namedtuple" | "NamedTuple" | "dataclass" => format!("<class '__main__.{}'>", class.name),
        _ => repr_of(&Obj::Class(class.clone())),
    }
}

/// The `Name[data]` of a node whose children are attributes: namedtuples
/// print as `namedtuple[Name]`, registered dataclasses with the tuple of
/// their other fields, other library nodes with their child names.
fn attrs_data(class: &Rc<Class>, statics: &[(String, Obj)], names: &[String]) -> String {
    let kind = class.native().map(|n| n.type_name()).unwrap_or_default();
    match kind.as_str() {
        "namedtuple" | "NamedTuple" => format!("namedtuple[{}]", class.name),
        "dataclass" => format!(
            "{}[{}]",
            class.name,
            repr_of(&Obj::tuple(
                statics.iter().map(|(_, v)| v.clone()).collect()
            ))
        ),
        // An nnx Variable's aux data is its metadata (with the entries
        // every variable has) as sorted (name, value) pairs.
        _ if matches!(class.lookup("__nnx_variable__"), Some(Obj::Bool(true))) => {
            let mut items: Vec<(String, Obj)> = statics.to_vec();
            for (k, v) in [
                ("eager_sharding", Obj::Bool(true)),
                ("hijax", Obj::Bool(false)),
                ("ref", Obj::Bool(false)),
            ] {
                if !items.iter().any(|(n, _)| n == k) {
                    items.push((k.to_string(), v));
                }
            }
            items.sort_by(|a, b| a.0.cmp(&b.0));
            let pairs = items
                .into_iter()
                .map(|(k, v)| Obj::tuple(vec![Obj::str(k), v]))
                .collect();
            format!("{}[{}]", class.name, repr_of(&Obj::tuple(pairs)))
        }
        // An nnx State's aux data is the tuple of its keys (list
        // positions are ints).
        _ if matches!(class.lookup("__nnx_state__"), Some(Obj::Bool(true))) => {
            let keys = names
                .iter()
                .map(|n| match n.parse::<i64>() {
                    Ok(k) => Obj::Int(k),
                    Err(_) => Obj::str(n),
                })
                .collect();
            format!("{}[{}]", class.name, repr_of(&Obj::tuple(keys)))
        }
        _ => format!(
            "{}[[{}]]",
            class.name,
            names
                .iter()
                .map(|n| format!("'{n}'"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn all_eq<'a>(
    x: impl Iterator<Item = &'a Obj>,
    y: impl Iterator<Item = &'a Obj>,
    eq: &mut dyn FnMut(&Obj, &Obj) -> Result<bool>,
) -> Result<bool> {
    for (a, b) in x.zip(y) {
        if !eq(a, b)? {
            return Ok(false);
        }
    }
    Ok(true)
}

fn same_kind(
    a: &NodeKind,
    b: &NodeKind,
    eq: &mut dyn FnMut(&Obj, &Obj) -> Result<bool>,
) -> Result<bool> {
    Ok(match (a, b) {
        (
            NodeKind::DefaultDict { factory, keys },
            NodeKind::DefaultDict {
                factory: f2,
                keys: k2,
            },
        ) => keys.len() == k2.len() && eq(factory, f2)? && all_eq(keys.iter(), k2.iter(), eq)?,
        (
            NodeKind::Attrs {
                class,
                statics,
                names,
            },
            NodeKind::Attrs {
                class: c2,
                statics: s2,
                names: n2,
            },
        ) => {
            Rc::ptr_eq(class, c2)
                && names == n2
                && statics.len() == s2.len()
                && statics.iter().zip(s2).all(|(p, q)| p.0 == q.0)
                && all_eq(statics.iter().map(|p| &p.1), s2.iter().map(|p| &p.1), eq)?
        }
        (NodeKind::OrderedDict { keys }, NodeKind::OrderedDict { keys: k2 }) => {
            keys.len() == k2.len() && all_eq(keys.iter(), k2.iter(), eq)?
        }
        (NodeKind::Custom { node, aux }, NodeKind::Custom { node: n2, aux: a2 }) => {
            Rc::ptr_eq(node, n2) && eq(aux, a2)?
        }
        _ => false,
    })
}

/// The shape of one node, before its children are flattened.
pub enum Shape {
    None,
    Tuple,
    List,
    /// A plain dict with its keys in sorted order.
    Dict(Vec<Obj>),
    Node(NodeKind),
}

/// One level of a node: its shape and its children with their keys.
pub struct Level {
    pub shape: Shape,
    pub children: Vec<(KeyEntry, Obj)>,
}

/// A dict's items in key order, or JAX's error when two keys do not
/// compare (`{1: 7, 'y': 42}`).
fn sorted_items(d: &Dict) -> Result<Vec<(Obj, Obj)>> {
    let mut items = d.items.clone();
    let mut failed = false;
    items.sort_by(|a, b| {
        py_cmp(&a.0, &b.0).unwrap_or_else(|_| {
            failed = true;
            std::cmp::Ordering::Equal
        })
    });
    if failed {
        bail!(
            ValueError,
            "Comparator raised exception while sorting pytree dictionary keys."
        );
    }
    Ok(items)
}

fn seq_level(shape: Shape, items: &[Obj]) -> Level {
    Level {
        shape,
        children: items
            .iter()
            .enumerate()
            .map(|(k, x)| (KeyEntry::Sequence(k), x.clone()))
            .collect(),
    }
}

/// The class attribute that marks a class registered as a pytree node, so
/// that flattening without the interpreter ([`flatten_known`]) can refuse
/// its instances instead of taking them for leaves.
pub const REGISTERED_MARK: &str = "__jax_pytree_node__";

/// Flattens one level of `o`: None when `o` is a leaf (`is_leaf` is a
/// Python predicate asked first, as in JAX). `keys` asks registered nodes
/// for their own keys where they have them.
pub fn flatten_one_level(
    interp: &mut Interp,
    o: &Obj,
    is_leaf: Option<&Obj>,
    keys: bool,
) -> Result<Option<Level>> {
    if let Some(pred) = is_leaf {
        let r = interp.call(pred, Args::new(vec![o.clone()]))?;
        if interp.truth(&r, "is_leaf")? {
            return Ok(None);
        }
    }
    if let Obj::Instance(i) = o {
        let registered = interp.state::<Registry>().find(&i.class);
        if let Some(node) = registered {
            return custom_level(interp, o, node, keys).map(Some);
        }
    }
    known_level(o)
}

/// One level of a node that needs no Python call: the built-in containers
/// and library nodes.
fn known_level(o: &Obj) -> Result<Option<Level>> {
    Ok(Some(match o {
        Obj::None => Level {
            shape: Shape::None,
            children: vec![],
        },
        Obj::Tuple(t) => seq_level(Shape::Tuple, t),
        Obj::List(l) => seq_level(Shape::List, &l.borrow()),
        Obj::Dict(d) => dict_level(&d.borrow())?,
        Obj::Instance(i) => match o.behaviour().and_then(|b| b.children(o)) {
            Some(names) => {
                let entries = o.behaviour().is_some_and(|b| b.children_are_entries(o));
                attrs_level(i, names, entries)
            }
            None => return Ok(None),
        },
        Obj::Lib(l) => match l.unflattenable() {
            Some(what) => bail!(NotImplementedError, "not supported by shardlab yet: {what}"),
            None => return Ok(None),
        },
        _ => return Ok(None),
    }))
}

fn dict_level(d: &Dict) -> Result<Level> {
    let items = if d.ordered {
        d.items.clone()
    } else {
        sorted_items(d)?
    };
    let keys: Vec<Obj> = items.iter().map(|(k, _)| k.clone()).collect();
    let children = items
        .into_iter()
        .map(|(k, v)| (KeyEntry::Dict(k), v))
        .collect();
    let shape = match &d.default_factory {
        Some(factory) => Shape::Node(NodeKind::DefaultDict {
            factory: factory.clone(),
            keys,
        }),
        None if d.ordered => Shape::Node(NodeKind::OrderedDict { keys }),
        None => Shape::Dict(keys),
    };
    Ok(Level { shape, children })
}

fn attrs_level(i: &Instance, names: Vec<String>, entries: bool) -> Level {
    let attrs = i.attrs.borrow().clone();
    let statics = attrs
        .iter()
        .filter(|(k, _)| !names.contains(k))
        .cloned()
        .collect();
    let children = names
        .iter()
        .map(|n| {
            let v = i.get(n).unwrap_or(Obj::None);
            let key = match n.parse::<i64>() {
                _ if !entries => KeyEntry::Attr(n.clone()),
                Ok(k) => KeyEntry::Dict(Obj::Int(k)),
                Err(_) => KeyEntry::Dict(Obj::str(n)),
            };
            (key, v)
        })
        .collect();
    Level {
        shape: Shape::Node(NodeKind::Attrs {
            class: i.class.clone(),
            statics,
            names,
        }),
        children,
    }
}

/// Calls a registered node's flatten function.
fn custom_level(interp: &mut Interp, o: &Obj, node: Rc<Registered>, keys: bool) -> Result<Level> {
    let (f, keyed) = match (&node.flatten, &node.flatten_with_keys) {
        (_, Some(fk)) if keys => (fk.clone(), true),
        (Some(f), _) => (f.clone(), false),
        (None, Some(fk)) => (fk.clone(), true),
        (None, None) => {
            // A static class: no children, the object is its aux data.
            return Ok(Level {
                shape: Shape::Node(NodeKind::Custom {
                    node,
                    aux: o.clone(),
                }),
                children: vec![],
            });
        }
    };
    let out = interp.call(&f, Args::new(vec![o.clone()]))?;
    let parts = iterate(&out)?;
    let [children, aux] = parts.as_slice() else {
        bail!(
            ValueError,
            "The pytree flatten function for {} must return a pair (children, aux_data); got {}",
            node.class.name,
            repr_of(&out)
        );
    };
    let mut level = vec![];
    for (k, c) in interp.iterate(children)?.into_iter().enumerate() {
        if keyed {
            let kv = iterate(&c)?;
            let [key, child] = kv.as_slice() else {
                bail!(
                    ValueError,
                    "The pytree flatten_with_keys function for {} must return (key, child) pairs",
                    node.class.name
                );
            };
            level.push((KeyEntry::Given(key.clone()), child.clone()));
        } else {
            level.push((KeyEntry::Flat(k), c));
        }
    }
    Ok(Level {
        shape: Shape::Node(NodeKind::Custom {
            node,
            aux: aux.clone(),
        }),
        children: level,
    })
}

/// What [`flatten_full`] records besides the structure.
struct Sink<'a> {
    leaves: Vec<Obj>,
    /// Each leaf's key path, when asked for.
    paths: Option<Vec<Vec<KeyEntry>>>,
    path: Vec<KeyEntry>,
    is_leaf: Option<&'a Obj>,
}

fn flatten_rec(interp: &mut Interp, o: &Obj, sink: &mut Sink) -> Result<TreeDef> {
    let _level = super::depth::enter()?;
    let keys = sink.paths.is_some();
    let Some(level) = flatten_one_level(interp, o, sink.is_leaf, keys)? else {
        sink.leaves.push(o.clone());
        if let Some(p) = &mut sink.paths {
            p.push(sink.path.clone());
        }
        return Ok(TreeDef::Leaf);
    };
    let mut defs = Vec::with_capacity(level.children.len());
    for (key, child) in level.children {
        sink.path.push(key);
        defs.push(flatten_rec(interp, &child, sink)?);
        sink.path.pop();
    }
    Ok(build(level.shape, defs))
}

/// The structure of a node of `shape` with children `defs`.
pub fn build(shape: Shape, defs: Vec<TreeDef>) -> TreeDef {
    match shape {
        Shape::None => TreeDef::None,
        Shape::Tuple => TreeDef::Tuple(defs),
        Shape::List => TreeDef::List(defs),
        Shape::Dict(keys) => TreeDef::Dict(keys.into_iter().zip(defs).collect()),
        Shape::Node(kind) => TreeDef::Node(Rc::new(kind), defs),
    }
}

/// Leaves, their key paths when asked for, and the structure.
pub type Flat = (Vec<Obj>, Option<Vec<Vec<KeyEntry>>>, TreeDef);

/// Flattens `o` into its leaves and structure, with a Python `is_leaf`
/// predicate when given, and each leaf's key path when `paths`.
pub fn flatten_full(
    interp: &mut Interp,
    o: &Obj,
    is_leaf: Option<&Obj>,
    paths: bool,
) -> Result<Flat> {
    let mut sink = Sink {
        leaves: vec![],
        paths: paths.then(Vec::new),
        path: vec![],
        is_leaf,
    };
    let def = flatten_rec(interp, o, &mut sink)?;
    Ok((sink.leaves, sink.paths, def))
}

/// Flattens `o` into its leaves and structure.
pub fn flatten(interp: &mut Interp, o: &Obj) -> Result<(Vec<Obj>, TreeDef)> {
    let (leaves, _, def) = flatten_full(interp, o, None, false)?;
    Ok((leaves, def))
}

/// Flattens `o` without calling Python, for library code that has no
/// interpreter at hand: built-in containers and library nodes flatten as
/// [`flatten`] does, and an instance of a class registered from the
/// program fails as not supported.
pub fn flatten_known(o: &Obj) -> Result<(Vec<Obj>, TreeDef)> {
    let mut leaves = vec![];
    let def = known_rec(o, &mut leaves)?;
    Ok((leaves, def))
}

fn known_rec(o: &Obj, leaves: &mut Vec<Obj>) -> Result<TreeDef> {
    let _level = super::depth::enter()?;
    if let Obj::Instance(i) = o {
        if i.class
            .attrs
            .borrow()
            .iter()
            .any(|(k, _)| k == REGISTERED_MARK)
        {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: an instance of {} (a registered pytree node) here",
                i.class.name
            );
        }
    }
    let Some(level) = known_level(o)? else {
        leaves.push(o.clone());
        return Ok(TreeDef::Leaf);
    };
    let mut defs = Vec::with_capacity(level.children.len());
    for (_, child) in &level.children {
        defs.push(known_rec(child, leaves)?);
    }
    Ok(build(level.shape, defs))
}

/// Rebuilds a tree from its structure and leaves.
pub fn unflatten(interp: &mut Interp, def: &TreeDef, leaves: &[Obj]) -> Result<Obj> {
    check_count(def, leaves)?;
    let mut it = leaves.iter().cloned();
    unflatten_from(Some(interp), def, &mut it)
}

/// [`unflatten`] without calling Python (see [`flatten_known`]).
pub fn unflatten_known(def: &TreeDef, leaves: &[Obj]) -> Result<Obj> {
    check_count(def, leaves)?;
    let mut it = leaves.iter().cloned();
    unflatten_from(None, def, &mut it)
}

fn check_count(def: &TreeDef, leaves: &[Obj]) -> Result<()> {
    let n = def.num_leaves();
    if leaves.len() < n {
        bail!(
            ValueError,
            "Too few leaves for PyTreeDef; expected {n}, got {}",
            leaves.len()
        );
    }
    if leaves.len() > n {
        bail!(ValueError, "Too many leaves for PyTreeDef; expected {n}.");
    }
    Ok(())
}

fn unflatten_from(
    mut interp: Option<&mut Interp>,
    def: &TreeDef,
    it: &mut dyn Iterator<Item = Obj>,
) -> Result<Obj> {
    let mut kids = |c: &[TreeDef], interp: &mut Option<&mut Interp>| -> Result<Vec<Obj>> {
        c.iter()
            .map(|t| unflatten_from(interp.as_deref_mut(), t, it))
            .collect()
    };
    Ok(match def {
        TreeDef::Leaf => it
            .next()
            .ok_or_else(|| err!(ValueError, "Too few leaves for PyTreeDef"))?,
        TreeDef::None => Obj::None,
        TreeDef::Tuple(c) => Obj::tuple(kids(c, &mut interp)?),
        TreeDef::List(c) => Obj::list(kids(c, &mut interp)?),
        TreeDef::Dict(c) => {
            let defs: Vec<TreeDef> = c.iter().map(|(_, t)| t.clone()).collect();
            let vals = kids(&defs, &mut interp)?;
            dict_of(c.iter().map(|(k, _)| k.clone()).zip(vals), None, false)
        }
        TreeDef::Node(kind, c) => {
            let vals = kids(c, &mut interp)?;
            rebuild_node(interp, kind, vals)?
        }
    })
}

fn dict_of(items: impl Iterator<Item = (Obj, Obj)>, factory: Option<Obj>, ordered: bool) -> Obj {
    let mut d = Dict::default();
    for (k, v) in items {
        d.set(k, v);
    }
    d.default_factory = factory;
    d.ordered = ordered;
    Obj::Dict(Rc::new(RefCell::new(d)))
}

/// The attributes of a rebuilt instance: an nnx module (as Flax's
/// unflatten sets them) has its children first, then its other attributes
/// sorted by name; other instances keep their other attributes first.
fn rebuilt_attrs(
    class: &Rc<Class>,
    statics: &[(String, Obj)],
    names: &[String],
    vals: Vec<Obj>,
) -> Vec<(String, Obj)> {
    if matches!(class.lookup("__nnx_module__"), Some(Obj::Bool(true))) {
        let mut attrs: Vec<(String, Obj)> = names.iter().cloned().zip(vals).collect();
        let mut rest = statics.to_vec();
        rest.sort_by(|a, b| a.0.cmp(&b.0));
        attrs.extend(rest);
        return attrs;
    }
    let mut attrs = statics.to_vec();
    attrs.extend(names.iter().cloned().zip(vals));
    attrs
}

/// A node of `kind` with children `vals`; a registered node's unflatten
/// function needs the interpreter.
pub fn rebuild_node(interp: Option<&mut Interp>, kind: &NodeKind, vals: Vec<Obj>) -> Result<Obj> {
    Ok(match kind {
        NodeKind::DefaultDict { factory, keys } => {
            dict_of(keys.iter().cloned().zip(vals), Some(factory.clone()), false)
        }
        NodeKind::OrderedDict { keys } => dict_of(keys.iter().cloned().zip(vals), None, true),
        NodeKind::Attrs {
            class,
            statics,
            names,
        } => {
            let attrs = rebuilt_attrs(class, statics, names, vals);
            let inst = Rc::new(Instance::with_attrs(class.clone(), attrs));
            if let Some(n) = class.native() {
                n.created(&inst);
                n.rebuilt(&inst, names);
            }
            Obj::Instance(inst)
        }
        NodeKind::Custom { node, aux } => match (&node.unflatten, interp) {
            (None, _) => aux.clone(),
            (Some(f), Some(interp)) => {
                interp.call(f, Args::new(vec![aux.clone(), Obj::tuple(vals)]))?
            }
            (Some(_), None) => bail!(
                NotImplementedError,
                "not supported by shardlab yet: an instance of {} (a registered pytree node) here",
                node.class.name
            ),
        },
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
    Ok(broadcast_prefix_keyed(prefix, full, is_leaf, what)?
        .into_iter()
        .map(|(_, o)| o)
        .collect())
}

/// [`broadcast_prefix`] with, for each leaf of `full`, the key path of the
/// prefix's leaf it came from (as `jax.tree_util.keystr` prints it).
pub fn broadcast_prefix_keyed(
    prefix: &Obj,
    full: &TreeDef,
    is_leaf: &dyn Fn(&Obj) -> bool,
    what: &str,
) -> Result<Vec<(String, Obj)>> {
    let mut out = vec![];
    broadcast_into(prefix, full, is_leaf, what, String::new(), &mut out)?;
    Ok(out)
}

fn broadcast_into(
    prefix: &Obj,
    full: &TreeDef,
    is_leaf: &dyn Fn(&Obj) -> bool,
    what: &str,
    at: String,
    out: &mut Vec<(String, Obj)>,
) -> Result<()> {
    if is_leaf(prefix) {
        for _ in 0..full.num_leaves() {
            out.push((at.clone(), prefix.clone()));
        }
        return Ok(());
    }
    let labels = full.child_labels();
    let below = |i: usize| format!("{at}{}", labels.get(i).map_or("", |l| l.as_str()));
    let mismatch = || {
        err!(
            ValueError,
            "{what} specification must be a tree prefix of the corresponding value, got specification {} for value tree {}",
            repr_of(prefix),
            full.repr()
        )
    };
    match (prefix, full) {
        (Obj::Tuple(_) | Obj::List(_), TreeDef::Tuple(c) | TreeDef::List(c)) => {
            let items = iterate(prefix)?;
            if items.len() != c.len() {
                return Err(mismatch());
            }
            for (i, (p, t)) in items.iter().zip(c).enumerate() {
                broadcast_into(p, t, is_leaf, what, below(i), out)?;
            }
            Ok(())
        }
        (Obj::Dict(d), TreeDef::Dict(c)) => {
            let d = d.borrow();
            if d.items.len() != c.len() {
                return Err(mismatch());
            }
            for (i, (k, t)) in c.iter().enumerate() {
                let p = d
                    .get(k)
                    .ok_or_else(|| err!(ValueError, "{what} is missing the key {}", repr_of(k)))?;
                broadcast_into(&p, t, is_leaf, what, below(i), out)?;
            }
            Ok(())
        }
        (_, TreeDef::None) => Ok(()),
        (Obj::Instance(_), TreeDef::Node(_, c)) => {
            // A node shardlab flattens itself (an nnx `State`, a module):
            // the prefix must be a node of that kind with as many children.
            let children = match known_level(prefix)? {
                Some(Level {
                    shape: Shape::Node(_),
                    children,
                }) if children.len() == c.len() => children,
                _ => return Err(mismatch()),
            };
            for (i, ((_, p), t)) in children.iter().zip(c).enumerate() {
                broadcast_into(p, t, is_leaf, what, below(i), out)?;
            }
            Ok(())
        }
        _ => Err(mismatch()),
    }
}

/// JAX's `treedef.flatten_up_to(tree)`: the subtrees of `tree` where `def`
/// has its leaves, failing with JAX's messages where `tree` does not have
/// `def`'s structure down to them.
pub fn flatten_up_to(interp: &mut Interp, def: &TreeDef, tree: &Obj) -> Result<Vec<Obj>> {
    let mut out = vec![];
    up_to(interp, def, tree, &mut out)?;
    Ok(out)
}

fn up_to(interp: &mut Interp, def: &TreeDef, tree: &Obj, out: &mut Vec<Obj>) -> Result<()> {
    let children: Vec<Obj> = match (def, tree) {
        (TreeDef::Leaf, _) => {
            out.push(tree.clone());
            return Ok(());
        }
        (TreeDef::None, Obj::None) => vec![],
        (TreeDef::None, _) => bail!(
            ValueError,
            "Expected None, got {}.\n\nIn previous releases of JAX, flatten-up-to used to consider None to be a tree-prefix of non-None values. To obtain the previous behavior, you can usually write:\n  jax.tree.map(lambda x, y: None if x is None else f(x, y), a, b, is_leaf=lambda x: x is None)",
            interp.repr(tree)?
        ),
        (TreeDef::Tuple(c), Obj::Tuple(t)) => {
            if c.len() != t.len() {
                bail!(
                    ValueError,
                    "Tuple arity mismatch: {} != {}; tuple: {}.",
                    t.len(),
                    c.len(),
                    interp.repr(tree)?
                );
            }
            t.to_vec()
        }
        (TreeDef::List(c), Obj::List(l)) => {
            let l = l.borrow().clone();
            if c.len() != l.len() {
                bail!(
                    ValueError,
                    "List arity mismatch: {} != {}; list: {}.",
                    l.len(),
                    c.len(),
                    interp.repr(tree)?
                );
            }
            l
        }
        (TreeDef::Dict(c), Obj::Dict(d))
            if d.borrow().default_factory.is_none() && !d.borrow().ordered =>
        {
            let items = sorted_items(&d.borrow())?;
            let same = items.len() == c.len() && items.iter().zip(c).all(|(a, b)| py_eq(&a.0, &b.0));
            if !same {
                let expected = Obj::list(c.iter().map(|(k, _)| k.clone()).collect());
                let present = Obj::list(items.iter().map(|(k, _)| k.clone()).collect());
                bail!(
                    ValueError,
                    "Dict key mismatch; expected keys: {}; present keys: {}.",
                    repr_of(&expected),
                    repr_of(&present)
                );
            }
            items.into_iter().map(|(_, v)| v).collect()
        }
        (TreeDef::Tuple(_), _) => bail!(ValueError, "Expected tuple, got {}.", interp.repr(tree)?),
        (TreeDef::List(_), _) => bail!(ValueError, "Expected list, got {}.", interp.repr(tree)?),
        (TreeDef::Dict(_), _) => bail!(ValueError, "Expected dict, got {}.", interp.repr(tree)?),
        (TreeDef::Node(kind, c), _) => node_up_to(interp, kind, c.len(), tree)?,
    };
    for (t, x) in def.children().into_iter().zip(&children) {
        up_to(interp, t, x, out)?;
    }
    Ok(())
}

/// The children of `tree` where a node of `kind` with `n` children is
/// expected.
fn node_up_to(interp: &mut Interp, kind: &NodeKind, n: usize, tree: &Obj) -> Result<Vec<Obj>> {
    let level = flatten_one_level(interp, tree, None, false)?;
    let found = match &level {
        Some(Level {
            shape: Shape::Node(k),
            ..
        }) => Some(k),
        _ => None,
    };
    let same_type = match (kind, found) {
        (NodeKind::DefaultDict { .. }, Some(NodeKind::DefaultDict { .. })) => true,
        (NodeKind::OrderedDict { .. }, Some(NodeKind::OrderedDict { .. })) => true,
        (NodeKind::Attrs { class, .. }, Some(NodeKind::Attrs { class: c2, .. })) => {
            Rc::ptr_eq(class, c2)
        }
        (NodeKind::Custom { node, .. }, Some(NodeKind::Custom { node: n2, .. })) => {
            Rc::ptr_eq(node, n2)
        }
        _ => false,
    };
    let namedtuple = matches!(kind, NodeKind::Attrs { class, .. }
        if matches!(class.native().map(|n| n.type_name()).as_deref(), Some("namedtuple" | "NamedTuple")));
    if !same_type {
        let value = interp.repr(tree)?;
        if namedtuple && found.is_none() && matches!(tree, Obj::Tuple(_)) {
            bail!(ValueError, "Expected named tuple, got {value}.");
        }
        if namedtuple && matches!(found, Some(NodeKind::Attrs { .. })) {
            bail!(
                ValueError,
                "Named tuple type mismatch: expected type: {}, tuple: {value}.",
                kind.type_repr()
            );
        }
        bail!(
            ValueError,
            "Custom node type mismatch: expected type: {}, value: {value}.",
            kind.type_repr()
        );
    }
    if let (NodeKind::Custom { aux, .. }, Some(NodeKind::Custom { aux: a2, .. })) = (kind, found) {
        let eq = interp.compare(&rustpython_parser::ast::CmpOp::Eq, aux, a2)?;
        if !interp.truth(&eq, "==")? {
            bail!(
                ValueError,
                "Mismatch custom node data: {} != {}; value: {}.",
                interp.repr(aux)?,
                interp.repr(a2)?,
                interp.repr(tree)?
            );
        }
    }
    let children: Vec<Obj> = level
        .iter()
        .flat_map(|l| l.children.iter().map(|(_, c)| c.clone()))
        .collect();
    if children.len() != n {
        bail!(
            ValueError,
            "Custom node arity mismatch: {} != {n}; value: {}.",
            children.len(),
            interp.repr(tree)?
        );
    }
    Ok(children)
}
