//! Slicing and stacking module states along their leading axis on the
//! host, for the nnx transforms whose inputs hold rng streams.
//!
//! shardlab's PRNG keys and stream counters are concrete host values, not
//! traceable arrays, so `nnx.vmap` and `nnx.scan` over states that hold
//! them run the function once per slice and stack what comes out. JAX's
//! keys are elementwise (threefry), so a batched key gives each slice what
//! the slice's own key gives: the numbers are the ones JAX computes.

use super::super::random::{key_obj, Keys};
use super::rngs::Counts;
use super::*;
use crate::random::Key;

/// Whether `tree` holds keys or stream counters.
pub(super) fn has_host_leaves(tree: &Obj) -> Result<bool> {
    let (leaves, _) = flatten_known(tree)?;
    Ok(leaves.iter().any(is_host_leaf))
}

/// Whether `leaf` is a key or a stream counter.
pub(super) fn is_host_leaf(leaf: &Obj) -> bool {
    leaf.downcast::<Keys>().is_some() || leaf.downcast::<Counts>().is_some()
}

/// The size of the leading axis of the leaves of `tree`, if it has leaves.
pub(super) fn leading_size(tree: &Obj) -> Result<Option<usize>> {
    let (leaves, _) = flatten_known(tree)?;
    let Some(l) = leaves.first() else {
        return Ok(None);
    };
    let shape = if let Some(k) = l.downcast::<Keys>() {
        k.batch.clone()
    } else if let Some(data) = typed_traced_key(l) {
        let s = data.shape();
        s[..s.len().saturating_sub(1)].to_vec()
    } else if let Some(c) = l.downcast::<Counts>() {
        c.shape.clone()
    } else {
        to_value(l)?.shape().to_vec()
    };
    match shape.first() {
        Some(&d) => Ok(Some(d)),
        None => bail!(
            ValueError,
            "a value mapped over its leading axis has no axes (shape ())"
        ),
    }
}

/// Entry `i` of every leaf of `tree` along axis 0.
pub(super) fn slice_tree(tree: &Obj, i: usize) -> Result<Obj> {
    let (leaves, def) = flatten_known(tree)?;
    let out = leaves
        .iter()
        .map(|l| slice_leaf(l, i))
        .collect::<Result<Vec<_>>>()?;
    unflatten_known(&def, &out)
}

fn rows(n: usize, shape: &[usize]) -> Result<usize> {
    match shape.first() {
        Some(&d) if d > 0 => Ok(n / d),
        _ => bail!(ValueError, "cannot slice a value with no leading axis"),
    }
}

/// The key data of a typed key made inside a trace, or None.
fn typed_traced_key(l: &Obj) -> Option<Value> {
    match crate::modules::random::traced_key(l) {
        Some((data, true)) => Some(data),
        _ => None,
    }
}

fn slice_leaf(l: &Obj, i: usize) -> Result<Obj> {
    if let Some(data) = typed_traced_key(l) {
        let row = crate::python::array::array_getitem(&data, &Obj::Int(i as i64))?;
        return super::super::random::typed_key_of(row);
    }
    if let Some(k) = l.downcast::<Keys>() {
        let r = rows(k.keys.len(), &k.batch)?;
        return key_obj(Keys {
            keys: k.keys[i * r..(i + 1) * r].to_vec(),
            batch: k.batch[1..].to_vec(),
            typed: k.typed,
        });
    }
    if let Some(c) = l.downcast::<Counts>() {
        let r = rows(c.data.len(), &c.shape)?;
        return Ok(Obj::lib(Counts {
            data: c.data[i * r..(i + 1) * r].to_vec(),
            shape: c.shape[1..].to_vec(),
        }));
    }
    let v = to_value(l)?;
    Ok(Obj::Array(crate::python::array::array_getitem(
        &v,
        &Obj::Int(i as i64),
    )?))
}

/// The trees of `parts` (all of one structure) stacked leaf by leaf along a
/// new axis 0.
pub(super) fn stack_trees(parts: &[Obj]) -> Result<Obj> {
    let Some(first) = parts.first() else {
        bail!(ValueError, "nothing to stack: the mapped axis has size 0");
    };
    let (_, def) = flatten_known(first)?;
    let mut columns: Vec<Vec<Obj>> = vec![];
    for p in parts {
        let (leaves, _) = flatten_known(p)?;
        if leaves.len() != def.num_leaves() {
            bail!(
                ValueError,
                "the function returned values of different structures for different slices"
            );
        }
        columns.resize(leaves.len(), vec![]);
        for (c, l) in columns.iter_mut().zip(leaves) {
            c.push(l);
        }
    }
    let out = columns
        .iter()
        .map(|c| stack_leaf(c))
        .collect::<Result<Vec<_>>>()?;
    unflatten_known(&def, &out)
}

fn stack_leaf(items: &[Obj]) -> Result<Obj> {
    let n = items.len();
    if let Some(k0) = items[0].downcast::<Keys>() {
        let mut keys: Vec<Key> = vec![];
        for it in items {
            let k = it
                .downcast::<Keys>()
                .ok_or_else(|| err!(TypeError, "cannot stack a key with an array"))?;
            keys.extend(k.keys.iter().copied());
        }
        let mut batch = vec![n];
        batch.extend(k0.batch.iter().copied());
        return key_obj(Keys {
            keys,
            batch,
            typed: k0.typed,
        });
    }
    if let Some(c0) = items[0].downcast::<Counts>() {
        let mut data = vec![];
        for it in items {
            let c = it
                .downcast::<Counts>()
                .ok_or_else(|| err!(TypeError, "cannot stack a counter with an array"))?;
            data.extend(c.data.iter().copied());
        }
        let mut shape = vec![n];
        shape.extend(c0.shape.iter().copied());
        return Ok(Obj::lib(Counts { data, shape }));
    }
    if typed_traced_key(&items[0]).is_some() {
        let rows = items
            .iter()
            .map(|it| {
                typed_traced_key(it)
                    .ok_or_else(|| err!(TypeError, "cannot stack a key with an array"))
            })
            .collect::<Result<Vec<_>>>()?;
        return super::super::random::typed_key_of(jops::stack(&rows, 0)?);
    }
    let vals = items.iter().map(to_value).collect::<Result<Vec<_>>>()?;
    Ok(Obj::Array(jops::stack(&vals, 0)?))
}
