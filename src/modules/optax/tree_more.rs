//! The rest of `optax.tree` / `optax.tree_utils`: casts, the tree's dtype
//! and size, extrema, `where`/`clip`/`batch_shape`, `allclose` and `set`.
//!
//! Optax writes these as `jax.tree.map` of one `jax.numpy` call per leaf,
//! so each leaf goes through the program's own `jnp` function: dtype
//! promotion, weak types and errors are then JAX's.

use std::cell::RefCell;
use std::rc::Rc;

use rustpython_parser::ast::Operator;

use crate::array::DType;
use crate::bail;
use crate::error::Result;
use crate::python::format::{repr_of, str_of};
use crate::python::interp::Interp;
use crate::python::ops::{binop, getattr};
use crate::python::pytree::{flatten, flatten_full, unflatten};
use crate::python::value::{Args, Obj};

use super::super::Builder;
use super::compose::{jnp, jnp_kw};
use super::tree::map_objs;

fn arg(a: &Args, i: usize, name: &str, func: &str) -> Result<Obj> {
    a.req(Some(i), name, func)
}

/// `leaf.astype(dtype)`.
fn astype(interp: &mut Interp, leaf: &Obj, dtype: &Obj) -> Result<Obj> {
    let f = getattr(interp, leaf, "astype")?;
    interp.call(&f, Args::new(vec![dtype.clone()]))
}

fn cast(interp: &mut Interp, a: Args) -> Result<Obj> {
    let t = arg(&a, 0, "tree", "tree_cast")?;
    match a.opt(Some(1), "dtype") {
        None => Ok(t),
        Some(d) => map_objs(interp, &[&t], |i, l| astype(i, &l[0], &d)),
    }
}

/// Each leaf cast to the dtype of the matching leaf of `other_tree` (left
/// alone where that leaf has no dtype).
fn cast_like(interp: &mut Interp, a: Args) -> Result<Obj> {
    let t = arg(&a, 0, "tree", "tree_cast_like")?;
    let other = arg(&a, 1, "other_tree", "tree_cast_like")?;
    map_objs(interp, &[&t, &other], |i, l| {
        match getattr(i, &l[1], "dtype") {
            Ok(d) => astype(i, &l[0], &d),
            Err(_) => Ok(l[0].clone()),
        }
    })
}

/// `jnp.asarray(x).dtype`.
fn dtype_of(interp: &mut Interp, x: &Obj) -> Result<DType> {
    let arr = jnp(interp, "asarray", vec![x.clone()])?;
    match getattr(interp, &arr, "dtype")? {
        Obj::DType(d) => Ok(d),
        other => bail!(TypeError, "expected a dtype, got {}", repr_of(&other)),
    }
}

fn promote(interp: &mut Interp, x: DType, y: DType) -> Result<DType> {
    match jnp(interp, "promote_types", vec![Obj::DType(x), Obj::DType(y)])? {
        Obj::DType(d) => Ok(d),
        other => bail!(TypeError, "expected a dtype, got {}", repr_of(&other)),
    }
}

/// The lower of two dtypes when one promotes to the other.
fn lower(interp: &mut Interp, x: DType, y: DType) -> Result<DType> {
    let p = promote(interp, x, y)?;
    if p == x {
        return Ok(y);
    }
    if p == y {
        return Ok(x);
    }
    let (dx, dy) = (repr_of(&Obj::DType(x)), repr_of(&Obj::DType(y)));
    let (sx, sy) = (str_of(&Obj::DType(x)), str_of(&Obj::DType(y)));
    bail!(
        ValueError,
        "Cannot compare dtype of dtype1={dx} and dtype2={dy}. Neither {sx} nor {sy} can be promoted to the other."
    )
}

fn higher(interp: &mut Interp, x: DType, y: DType) -> Result<DType> {
    Ok(if lower(interp, x, y)? == x { y } else { x })
}

/// Every leaf's dtype is `want`, or a ValueError naming each leaf that is
/// not, by its key path.
fn check_all_equal(interp: &mut Interp, t: &Obj, want: DType) -> Result<()> {
    let (leaves, paths, _) = flatten_full(interp, t, None, true)?;
    let keys = crate::modules::tree_util::keys::KeyClasses::new();
    let mut msgs = vec![];
    for (leaf, path) in leaves.iter().zip(paths.unwrap_or_default()) {
        let got = dtype_of(interp, leaf)?;
        if got != want {
            msgs.push(format!(
                "Expected dtype={} for {} but got {}.",
                repr_of(&Obj::DType(want)),
                repr_of(&keys.path(&path)),
                str_of(&Obj::DType(got))
            ));
        }
    }
    if msgs.is_empty() {
        return Ok(());
    }
    bail!(ValueError, "{}", msgs.join("\n"))
}

/// `tree_dtype(tree, mixed_dtype_handler=None)`.
fn dtype(interp: &mut Interp, a: Args) -> Result<Obj> {
    let t = arg(&a, 0, "tree", "tree_dtype")?;
    let handler = a.opt(Some(1), "mixed_dtype_handler");
    let (leaves, _) = flatten(interp, &t)?;
    let mut dtypes = Vec::with_capacity(leaves.len());
    for l in &leaves {
        dtypes.push(dtype_of(interp, l)?);
    }
    let Some(&first) = dtypes.first() else {
        // An empty tree has the dtype of `jnp.asarray([])`.
        return Ok(Obj::DType(dtype_of(interp, &Obj::list(vec![]))?));
    };
    let pick: fn(&mut Interp, DType, DType) -> Result<DType> = match &handler {
        None => {
            check_all_equal(interp, &t, first)?;
            return Ok(Obj::DType(first));
        }
        Some(Obj::Str(s)) if &**s == "promote" => promote,
        Some(Obj::Str(s)) if &**s == "highest" => higher,
        Some(Obj::Str(s)) if &**s == "lowest" => lower,
        Some(other) => bail!(
            ValueError,
            "Invalid value for mixed_dtype_handler={}, possible values are: None, \"promote\", \"highest\", \"lowest\".",
            repr_of(other)
        ),
    };
    let mut out = first;
    for &d in &dtypes[1..] {
        out = pick(interp, out, d)?;
    }
    Ok(Obj::DType(out))
}

/// The number of elements of all leaves, a Python int.
fn size(interp: &mut Interp, a: Args) -> Result<Obj> {
    let t = arg(&a, 0, "tree", "tree_size")?;
    let (leaves, _) = flatten(interp, &t)?;
    let mut total = Obj::Int(0);
    for l in &leaves {
        let n = jnp(interp, "size", vec![l.clone()])?;
        total = binop(interp, &Operator::Add, &total, &n, false)?;
    }
    Ok(total)
}

/// `tree_max` / `tree_min`: each non-empty leaf reduced by `jnp.{reduce}`,
/// then folded with `jnp.{fold}` from an infinite start.
fn extremum(interp: &mut Interp, a: Args, reduce: &str, fold: &str, start: f64) -> Result<Obj> {
    let t = arg(&a, 0, "tree", reduce)?;
    let (leaves, _) = flatten(interp, &t)?;
    let mut out = Obj::Float(start);
    for l in &leaves {
        let n = jnp(interp, "size", vec![l.clone()])?;
        if matches!(n, Obj::Int(0)) {
            continue;
        }
        let m = jnp(interp, reduce, vec![l.clone()])?;
        out = jnp(interp, fold, vec![out, m])?;
    }
    Ok(out)
}

/// `jax.tree.map(jnp.{name}, tree)`.
fn leafwise(interp: &mut Interp, a: Args, name: &str) -> Result<Obj> {
    let t = arg(&a, 0, "tree", name)?;
    map_objs(interp, &[&t], |i, l| jnp(i, name, vec![l[0].clone()]))
}

fn where_(interp: &mut Interp, a: Args) -> Result<Obj> {
    let c = arg(&a, 0, "condition", "tree_where")?;
    let x = arg(&a, 1, "tree_x", "tree_where")?;
    let y = arg(&a, 2, "tree_y", "tree_where")?;
    map_objs(interp, &[&x, &y], |i, l| {
        jnp(i, "where", vec![c.clone(), l[0].clone(), l[1].clone()])
    })
}

fn clip(interp: &mut Interp, a: Args) -> Result<Obj> {
    let t = arg(&a, 0, "tree", "tree_clip")?;
    let lo = a.get(Some(1), "min_value").unwrap_or(Obj::None);
    let hi = a.get(Some(2), "max_value").unwrap_or(Obj::None);
    map_objs(interp, &[&t], |i, l| {
        jnp(i, "clip", vec![l[0].clone(), lo.clone(), hi.clone()])
    })
}

/// Every leaf broadcast to `(*shape, *leaf.shape)`.
fn batch_shape(interp: &mut Interp, a: Args) -> Result<Obj> {
    let t = arg(&a, 0, "tree", "tree_batch_shape")?;
    let shape = a.get(Some(1), "shape").unwrap_or(Obj::tuple(vec![]));
    let lead = crate::python::ops::iterate(&shape)?;
    map_objs(interp, &[&t], |i, l| {
        let own = jnp(i, "shape", vec![l[0].clone()])?;
        let mut dims = lead.clone();
        dims.extend(crate::python::ops::iterate(&own)?);
        jnp(i, "broadcast_to", vec![l[0].clone(), Obj::tuple(dims)])
    })
}

/// `jnp.allclose` leaf by leaf, the answers joined with `&` from `True`.
fn allclose(interp: &mut Interp, a: Args) -> Result<Obj> {
    let x = arg(&a, 0, "a", "tree_allclose")?;
    let y = arg(&a, 1, "b", "tree_allclose")?;
    let kw: Vec<(&str, Obj)> = [("rtol", 2), ("atol", 3), ("equal_nan", 4)]
        .into_iter()
        .filter_map(|(n, i)| a.get(Some(i), n).map(|v| (n, v)))
        .collect();
    let each = map_objs(interp, &[&x, &y], |i, l| {
        jnp_kw(i, "allclose", vec![l[0].clone(), l[1].clone()], kw.clone())
    })?;
    let (leaves, _) = flatten(interp, &each)?;
    let mut out = Obj::Bool(true);
    for l in &leaves {
        out = binop(interp, &Operator::BitAnd, &out, l, false)?;
    }
    Ok(out)
}

/// The fields of a NamedTuple (an optax state or a program's own).
fn named_fields(o: &Obj) -> Option<Vec<String>> {
    let Obj::Instance(i) = o else { return None };
    match i.class.lookup("_fields") {
        Some(Obj::Tuple(t)) => Some(t.iter().map(str_of).collect()),
        _ => None,
    }
}

fn class_name(o: &Obj) -> Option<String> {
    match o {
        Obj::Instance(i) => Some(i.class.name.clone()),
        _ => None,
    }
}

/// Whether `node` is a NamedTuple with one of `keys` as a field or as its
/// class name, or a dict with one of them as a key.
fn has_any_key(node: &Obj, keys: &[String]) -> bool {
    if let Some(fields) = named_fields(node) {
        let name = class_name(node).unwrap_or_default();
        return keys.iter().any(|k| fields.contains(k) || *k == name);
    }
    match node {
        Obj::Dict(d) => d
            .borrow()
            .items
            .iter()
            .any(|(k, _)| matches!(k, Obj::Str(s) if keys.iter().any(|w| **w == **s))),
        _ => false,
    }
}

/// A node holding one of the keys, rebuilt with the new values: a matching
/// child is replaced (and not searched further), a dict/list/tuple child
/// is searched in turn, any other child is kept.
fn replace(interp: &mut Interp, node: &Obj, new: &[(String, Obj)]) -> Result<Obj> {
    let keys: Vec<String> = new.iter().map(|(k, _)| k.clone()).collect();
    if !has_any_key(node, &keys) {
        return Ok(node.clone());
    }
    let value_of = |k: &str| new.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    if let Some(fields) = named_fields(node) {
        if let Some(v) = class_name(node).and_then(|n| value_of(&n)) {
            return Ok(v);
        }
        let mut kw = vec![];
        for f in fields {
            let child = getattr(interp, node, &f)?;
            kw.push((f.clone(), set_child(interp, &f, &child, new)?));
        }
        let r = getattr(interp, node, "_replace")?;
        return interp.call(&r, Args::with(vec![], kw));
    }
    let Obj::Dict(d) = node else {
        return Ok(node.clone());
    };
    let items = d.borrow().items.clone();
    let mut out = crate::python::value::Dict::default();
    for (k, child) in items {
        let v = set_child(interp, &str_of(&k), &child, new)?;
        out.set(k, v);
    }
    Ok(Obj::Dict(Rc::new(RefCell::new(out))))
}

fn set_child(interp: &mut Interp, key: &str, child: &Obj, new: &[(String, Obj)]) -> Result<Obj> {
    if let Some((_, v)) = new.iter().find(|(n, _)| n == key) {
        return Ok(v.clone());
    }
    match child {
        Obj::Dict(_) | Obj::List(_) | Obj::Tuple(_) | Obj::Instance(_) => {
            replace(interp, child, new)
        }
        _ => Ok(child.clone()),
    }
}

/// `tree_set(tree, filtering=None, /, **kwargs)`: every dict entry or
/// NamedTuple field named by a keyword gets the keyword's value.
fn set(interp: &mut Interp, a: Args) -> Result<Obj> {
    let t = arg(&a, 0, "tree", "tree_set")?;
    if a.pos.get(1).is_some_and(|f| !matches!(f, Obj::None)) {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: optax.tree_utils.tree_set with filtering"
        );
    }
    a.read_all();
    let new = a.kw.clone();
    for (k, _) in &new {
        let mut found = vec![];
        super::tree::find_all(&t, k, &mut found)?;
        if found.is_empty() {
            let msg = format!("Found no values matching '{k}' in {}", repr_of(&t));
            bail!(KeyError, "{}", repr_of(&Obj::str(&msg)));
        }
    }
    let keys: Vec<String> = new.iter().map(|(k, _)| k.clone()).collect();
    let pred_keys = keys.clone();
    let is_leaf = Obj::native("has_any_key", move |_, a| {
        Ok(Obj::Bool(
            a.pos.first().is_some_and(|n| has_any_key(n, &pred_keys)),
        ))
    });
    let (leaves, _, def) = flatten_full(interp, &t, Some(&is_leaf), false)?;
    let mut out = Vec::with_capacity(leaves.len());
    for l in &leaves {
        out.push(replace(interp, l, &new)?);
    }
    unflatten(interp, &def, &out)
}

/// Registers the functions under their `optax.tree` names.
pub(super) fn register(b: &mut Builder, prefix: &str) {
    let n = |s: &str| format!("{prefix}{s}");
    b.func(&n("cast"), cast);
    b.func(&n("cast_like"), cast_like);
    b.func(&n("dtype"), dtype);
    b.func(&n("size"), size);
    b.func(&n("max"), |i, a| {
        extremum(i, a, "max", "maximum", f64::NEG_INFINITY)
    });
    b.func(&n("min"), |i, a| {
        extremum(i, a, "min", "minimum", f64::INFINITY)
    });
    b.func(&n("conj"), |i, a| leafwise(i, a, "conj"));
    b.func(&n("real"), |i, a| leafwise(i, a, "real"));
    b.func(&n("where"), where_);
    b.func(&n("clip"), clip);
    b.func(&n("batch_shape"), batch_shape);
    b.func(&n("allclose"), allclose);
    b.func(&n("set"), set);
}
