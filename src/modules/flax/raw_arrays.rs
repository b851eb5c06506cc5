//! Arrays a module holds outside variables (`self.x = jnp.array(1.0)`).
//!
//! nnx's graph functions treat them as leaves of the module's state, like
//! variables' values: `split` and `state` put each under its path (a
//! module met twice through shared references gives its arrays once, under
//! the first path in nnx's order), and `merge` and `update` set them back
//! at that path.

use super::filters::{first_passing, Pred};
use super::*;

/// The arrays under `o` held by modules outside variables, with their
/// paths, in nnx's order (attributes sorted, list positions, dict keys
/// sorted); `in_module`: `o` is part of a module's data.
fn walk(
    o: &Obj,
    in_module: bool,
    path: &mut Vec<String>,
    seen: &mut Vec<usize>,
    out: &mut Vec<(Vec<String>, Obj)>,
) {
    match o {
        Obj::Array(_) if in_module => out.push((path.clone(), o.clone())),
        Obj::Instance(i) if is_nnx_module(i) => {
            let id = Rc::as_ptr(i) as usize;
            if seen.contains(&id) {
                return;
            }
            seen.push(id);
            for n in pytree_children(i).unwrap_or_default() {
                if let Some(v) = iattr(i, &n) {
                    path.push(n);
                    walk(&v, true, path, seen, out);
                    path.pop();
                }
            }
        }
        Obj::List(_) | Obj::Tuple(_) => {
            for (k, v) in iterate(o).unwrap_or_default().iter().enumerate() {
                path.push(k.to_string());
                walk(v, in_module, path, seen, out);
                path.pop();
            }
        }
        Obj::Dict(d) => {
            let mut items = d.borrow().items.clone();
            items.sort_by(|a, b| key_order(&str_of(&a.0), &str_of(&b.0)));
            for (k, v) in items {
                path.push(str_of(&k));
                walk(&v, in_module, path, seen, out);
                path.pop();
            }
        }
        _ => {}
    }
}

/// The arrays the modules under `node` hold outside variables.
pub(super) fn raw_arrays(node: &Obj) -> Vec<(Vec<String>, Obj)> {
    let mut out = vec![];
    walk(node, false, &mut vec![], &mut vec![], &mut out);
    out
}

/// Puts each of `node`'s raw arrays in the group of the first filter it
/// passes (`exhaustive`: one that passes none is an error, as in `split`).
pub(super) fn group_raw(
    interp: &mut Interp,
    node: &Obj,
    preds: &[Pred],
    exhaustive: bool,
    groups: &mut [Vec<(Vec<String>, Obj)>],
) -> Result<()> {
    for (path, value) in raw_arrays(node) {
        if let Some(k) = first_passing(interp, preds, &path, &value, exhaustive)? {
            groups[k].push((path, value));
        }
    }
    Ok(())
}

/// Sets the array at `path` of `node` to `value`, where the node holds an
/// array outside a variable; false when it holds none there.
pub(super) fn set_raw(node: &Obj, path: &[String], value: Obj) -> Result<bool> {
    let Some((last, parents)) = path.split_last() else {
        return Ok(false);
    };
    let mut cur = node.clone();
    for k in parents {
        let Some(next) = child(&cur, k) else {
            return Ok(false);
        };
        cur = next;
    }
    if !matches!(child(&cur, last), Some(Obj::Array(_))) {
        return Ok(false);
    }
    if matches!(&cur, Obj::Instance(i) if !is_nnx_module(i)) {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: updating an array held in a {} of a module",
            cur.type_name()
        );
    }
    let what = "updating an array held in a container of a module:";
    super::ema::set_child(&cur, last, value, what)?;
    Ok(true)
}

/// The child of a module, list, tuple or dict at `key`.
fn child(o: &Obj, key: &str) -> Option<Obj> {
    match o {
        Obj::Instance(i) if is_nnx_module(i) => iattr(i, key),
        Obj::List(_) | Obj::Tuple(_) => {
            let k: usize = key.parse().ok()?;
            iterate(o).ok()?.get(k).cloned()
        }
        Obj::Dict(d) => d
            .borrow()
            .items
            .iter()
            .find(|(k, _)| str_of(k) == key)
            .map(|(_, v)| v.clone()),
        _ => None,
    }
}
