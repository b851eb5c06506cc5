//! The text nnx prints for modules and variables (`repr`, `nnx.display`).
//!
//! A module prints as `Name( # Param: 15 (60 B), ...` followed by its
//! attributes in the order they were set, one per line; the comment counts
//! the elements and bytes of the variables under it by variable type (every
//! kind of rng variable counts as `RngState`), with a `Total` when there
//! is more than one type. A node reachable twice is counted where it is
//! first met and printed as `Name(...)` after its first appearance. Inside
//! a module, arrays of more than one element print as their shape and dtype
//! only.

use std::collections::{HashMap, HashSet};

use super::rngs::Counts;
use super::*;
use crate::modules::random::Keys;

/// Elements and bytes of each variable type, in the order first met.
type Stats = Vec<(String, usize, usize)>;

/// The state of one top-level repr: the stats of every node and the
/// modules already printed.
#[derive(Default)]
struct Ctx {
    stats: HashMap<usize, Stats>,
    seen: HashSet<usize>,
}

fn node_id(i: &Rc<Instance>) -> usize {
    Rc::as_ptr(i) as usize
}

/// Elements and bytes of one leaf; `None` for what has no shape and dtype.
fn leaf_size(o: &Obj) -> Option<(usize, usize)> {
    match o {
        Obj::Array(v) => {
            let n: usize = v.shape().iter().product();
            let item = if v.dtype() == DType::Bool { 1 } else { 4 };
            Some((n, n * item))
        }
        Obj::Lib(_) => {
            // An abstract value (eval_shape) counts as the array it stands for.
            if let Some(s) = o.downcast::<crate::modules::shape_dtype::ShapeDtypeStruct>() {
                let n: usize = s.shape.iter().product();
                let item = if s.dtype == DType::Bool { 1 } else { 4 };
                return Some((n, n * item));
            }
            if let Some(k) = o.downcast::<Keys>() {
                let n = k.keys.len();
                return Some(if k.typed { (n, n * 8) } else { (2 * n, 8 * n) });
            }
            o.downcast::<Counts>()
                .map(|c| (c.data.len(), c.data.len() * 4))
        }
        _ => None,
    }
}

/// Elements and bytes of a variable's value (of all its array leaves).
fn value_size(o: &Obj) -> (usize, usize) {
    match o {
        Obj::List(_) | Obj::Tuple(_) => iterate(o)
            .unwrap_or_default()
            .iter()
            .map(value_size)
            .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1)),
        // A dict value (the captures of `nnx.capture`) counts its values.
        Obj::Dict(d) => d
            .borrow()
            .items
            .iter()
            .map(|(_, v)| value_size(v))
            .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1)),
        other => leaf_size(other).unwrap_or((0, 0)),
    }
}

fn is_rng_variable(c: &Rc<Class>) -> bool {
    c.name == "RngState" || c.bases.iter().any(is_rng_variable)
}

fn add_stat(stats: &mut Stats, name: &str, size: usize, bytes: usize) {
    match stats.iter_mut().find(|s| s.0 == name) {
        Some(s) => {
            s.1 += size;
            s.2 += bytes;
        }
        None => stats.push((name.to_string(), size, bytes)),
    }
}

/// The children of a node that stats and reprs walk through.
fn node_children(o: &Obj) -> Vec<Obj> {
    match o {
        Obj::Instance(i) if is_variable(i) => vec![],
        Obj::Instance(i) => i.attrs.borrow().iter().map(|(_, v)| v.clone()).collect(),
        Obj::List(_) | Obj::Tuple(_) => iterate(o).unwrap_or_default(),
        Obj::Dict(d) => d.borrow().items.iter().map(|(_, v)| v.clone()).collect(),
        _ => vec![],
    }
}

/// The stats of `o` (computed once per node) into `out`.
fn collect_stats(o: &Obj, ctx: &mut Ctx, out: &mut Stats) {
    match o {
        Obj::Instance(i) if is_variable(i) => {
            let (n, b) = value_size(&iattr(i, "value").unwrap_or(Obj::None));
            if n > 0 {
                let name = if is_rng_variable(&i.class) {
                    "RngState".to_string()
                } else {
                    i.class.name.clone()
                };
                add_stat(out, &name, n, b);
            }
        }
        Obj::Instance(i) if is_nnx_module(i) => {
            if ctx.stats.contains_key(&node_id(i)) {
                return;
            }
            ctx.stats.insert(node_id(i), vec![]);
            // nnx walks a node's attributes sorted by name.
            let mut attrs = i.attrs.borrow().clone();
            attrs.sort_by(|a, b| key_order(&a.0, &b.0));
            let mut mine = vec![];
            for (_, c) in attrs {
                collect_stats(&c, ctx, &mut mine);
            }
            for (name, n, b) in &mine {
                add_stat(out, name, *n, *b);
            }
            ctx.stats.insert(node_id(i), mine);
        }
        Obj::List(_) | Obj::Tuple(_) | Obj::Dict(_) => {
            for c in node_children(o) {
                collect_stats(&c, ctx, out);
            }
        }
        _ => {}
    }
}

/// `1,234 (4.9 KB)` as Flax prints a count of elements and bytes.
fn size_text(n: usize, bytes: usize) -> String {
    let b = bytes as f64;
    let unit = if b > 1e9 {
        format!("{:.1} GB", b / 1e9)
    } else if b > 1e6 {
        format!("{:.1} MB", b / 1e6)
    } else if b > 1e3 {
        format!("{:.1} KB", b / 1e3)
    } else {
        format!("{} B", fmt_count(bytes))
    };
    format!("{} ({unit})", fmt_count(n))
}

fn stats_comment(stats: &Stats) -> String {
    if stats.is_empty() {
        return String::new();
    }
    let mut parts: Vec<String> = stats
        .iter()
        .map(|(name, n, b)| format!("{name}: {}", size_text(*n, *b)))
        .collect();
    if stats.len() > 1 {
        let (n, b) = stats.iter().fold((0, 0), |a, s| (a.0 + s.1, a.1 + s.2));
        parts.push(format!("Total: {}", size_text(n, b)));
    }
    format!(" # {}", parts.join(", "))
}

/// `Type(` comment, the elements one per line, `)`; `Type()` when empty.
fn object_text(name: &str, comment: &str, elems: Vec<(String, String)>) -> String {
    if elems.is_empty() {
        return format!("{name}()");
    }
    let body: Vec<String> = elems
        .iter()
        .map(|(k, v)| format!("  {k}={}", indent(v, 2)))
        .collect();
    format!("{name}({comment}\n{}\n)", body.join(",\n"))
}

/// A value as nnx prints it inside a module (`abstract`) or alone.
fn value_text(o: &Obj, ctx: &mut Ctx, abstract_arrays: bool) -> String {
    match o {
        Obj::Instance(i) if is_variable(i) => variable_text(i, ctx, abstract_arrays),
        Obj::Instance(i) if is_nnx_module(i) => module_text(i, ctx),
        Obj::List(_) if super::pytree::is_nnx_list(o) => nnx_list_text(o, ctx),
        Obj::List(_) | Obj::Tuple(_) => {
            let items: Vec<String> = iterate(o)
                .unwrap_or_default()
                .iter()
                .map(|x| value_text(x, ctx, abstract_arrays))
                .collect();
            match o {
                Obj::Tuple(_) if items.len() == 1 => format!("({},)", items[0]),
                Obj::Tuple(_) => format!("({})", items.join(", ")),
                _ => format!("[{}]", items.join(", ")),
            }
        }
        Obj::Dict(d) => {
            let items: Vec<String> = d
                .borrow()
                .items
                .clone()
                .iter()
                .map(|(k, v)| format!("{}: {}", repr_of(k), value_text(v, ctx, abstract_arrays)))
                .collect();
            format!("{{{}}}", items.join(", "))
        }
        Obj::Class(c) => c.name.clone(),
        // A library class (`jnp.float32`) by its bare name too.
        Obj::Lib(_) if o.class_name().is_some() => {
            let name = o.class_name().unwrap_or_default();
            name.rsplit('.').next().unwrap_or_default().to_string()
        }
        Obj::DType(d) => d.name().to_string(),
        Obj::Array(v) if abstract_arrays && v.shape().iter().product::<usize>() > 1 => format!(
            "Array(shape={}, dtype=dtype('{}'))",
            repr_of(&Obj::tuple(
                v.shape().iter().map(|&d| Obj::Int(d as i64)).collect()
            )),
            v.dtype().name()
        ),
        Obj::Instance(i) if super::linen::is_linen_module(i) => super::linen::linen_text(i),
        other if abstract_arrays => host_array_text(other).unwrap_or_else(|| repr_of(other)),
        other => repr_of(other),
    }
}

/// An `nnx.List` inside a module: `List([`, each element as it prints
/// alone (a variable with its whole value), one per line, `])`.
fn nnx_list_text(o: &Obj, ctx: &mut Ctx) -> String {
    let items: Vec<String> = iterate(o)
        .unwrap_or_default()
        .iter()
        .map(|x| format!("  {}", indent(&value_text(x, ctx, false), 2)))
        .collect();
    if items.is_empty() {
        return "List([])".into();
    }
    format!("List([\n{}\n])", items.join(",\n"))
}

/// Typed keys and stream counters of more than one element, as nnx shows
/// arrays inside a module: by shape and dtype.
fn host_array_text(o: &Obj) -> Option<String> {
    let dims = |shape: &[usize]| {
        repr_of(&Obj::tuple(
            shape.iter().map(|&d| Obj::Int(d as i64)).collect(),
        ))
    };
    if let Some(k) = o.downcast::<super::super::random::Keys>() {
        if k.typed && k.keys.len() > 1 {
            return Some(format!("Array(shape={}, dtype=key<fry>)", dims(&k.batch)));
        }
    }
    if let Some(c) = o.downcast::<super::rngs::Counts>() {
        if c.data.len() > 1 {
            return Some(format!(
                "Array(shape={}, dtype=dtype('uint32'))",
                dims(&c.shape)
            ));
        }
    }
    None
}

fn variable_text(i: &Rc<Instance>, ctx: &mut Ctx, abstract_arrays: bool) -> String {
    let value = iattr(i, "value").unwrap_or(Obj::None);
    let (n, b) = value_size(&value);
    let comment = if n > 0 {
        format!(" # {}", size_text(n, b))
    } else {
        String::new()
    };
    let mut elems = vec![(
        "value".to_string(),
        value_text(&value, ctx, abstract_arrays),
    )];
    for (k, v) in i.attrs.borrow().iter() {
        if k != "value" {
            elems.push((k.clone(), value_text(v, ctx, abstract_arrays)));
        }
    }
    object_text(&i.class.name, &comment, elems)
}

fn module_text(i: &Rc<Instance>, ctx: &mut Ctx) -> String {
    let id = node_id(i);
    if ctx.seen.contains(&id) {
        return format!("{}(...)", i.class.name);
    }
    if !ctx.stats.contains_key(&id) {
        collect_stats(&Obj::Instance(i.clone()), ctx, &mut vec![]);
    }
    let comment = stats_comment(ctx.stats.get(&id).unwrap_or(&vec![]));
    ctx.seen.insert(id);
    let attrs = i.attrs.borrow().clone();
    let elems = attrs
        .iter()
        .filter(|(k, _)| !k.starts_with('_'))
        .map(|(k, v)| (k.clone(), value_text(v, ctx, true)))
        .collect();
    object_text(&i.class.name, &comment, elems)
}

/// `repr` of an nnx module.
pub(super) fn module_repr(i: &Rc<Instance>) -> String {
    module_text(i, &mut Ctx::default())
}

/// `repr` of a variable standing alone: its value in full.
pub(super) fn variable_repr(i: &Rc<Instance>) -> String {
    variable_text(i, &mut Ctx::default(), false)
}

/// A function a Flax layer keeps as an attribute (`dot_general`,
/// `promote_dtype`), printed as CPython prints a function: with its name
/// and an address (this object's).
pub(super) struct FunctionRef(pub &'static str);

impl Object for FunctionRef {
    fn type_name(&self) -> String {
        "function".into()
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some(format!(
            "<function {} at {:#x}>",
            self.0, self as *const FunctionRef as usize
        ))
    }
}
