//! `lax.map(f, xs, batch_size=b)`: `vmap(f)` scanned over batches of `b`
//! rows, and the rows left over (fewer than `b`) through `vmap(f)` once,
//! the results joined along the first axis, as JAX computes it.

use crate::error::Result;
use crate::ops as jops;
use crate::python::array::to_value;
use crate::python::interp::Interp;
use crate::python::ops::getattr;
use crate::python::pytree::{flatten, unflatten};
use crate::python::value::{Args, Obj};
use crate::trace::Value;

/// `map(f, xs, batch_size=batch)` with `batch` > 0.
pub fn map_batched(interp: &mut Interp, f: &Obj, xs: &Obj, batch: usize) -> Result<Obj> {
    let (leaves, def) = flatten(interp, xs)?;
    let vals = leaves.iter().map(to_value).collect::<Result<Vec<_>>>()?;
    let Some(n) = vals.first().and_then(|v| v.shape().first().copied()) else {
        crate::bail!(
            ValueError,
            "scan got no values to scan over and `length` not provided."
        );
    };
    let jax = super::import(interp, "jax")?;
    let vmap = getattr(interp, &jax, "vmap")?;
    let g = interp.call(&vmap, Args::new(vec![f.clone()]))?;
    let (full, rest) = (n / batch, n % batch);
    let rows = |v: &Value, start: usize, limit: usize| -> Result<Value> {
        let s = v.shape();
        let mut starts = vec![0; s.len()];
        let mut limits = s.clone();
        starts[0] = start;
        limits[0] = limit;
        jops::slice(v, &starts, &limits, &vec![1; s.len()])
    };
    let mut parts: Vec<Vec<Value>> = vec![];
    let mut out_def = None;
    if full > 0 {
        let mut batched = vec![];
        for v in &vals {
            let mut s = v.shape();
            s[0] = batch;
            s.insert(0, full);
            batched.push(Obj::Array(jops::reshape(&rows(v, 0, full * batch)?, &s)?));
        }
        let tree = unflatten(interp, &def, &batched)?;
        let lax = super::import(interp, "jax.lax")?;
        let map = getattr(interp, &lax, "map")?;
        let out = interp.call(&map, Args::new(vec![g.clone(), tree]))?;
        let (outs, d) = flatten(interp, &out)?;
        out_def = Some(d);
        let mut merged = vec![];
        for o in &outs {
            let o = to_value(o)?;
            let mut s = o.shape();
            let lead = s.remove(0) * s.remove(0);
            s.insert(0, lead);
            merged.push(jops::reshape(&o, &s)?);
        }
        parts.push(merged);
    }
    if rest > 0 {
        let tail = vals
            .iter()
            .map(|v| rows(v, full * batch, n).map(Obj::Array))
            .collect::<Result<Vec<_>>>()?;
        let tree = unflatten(interp, &def, &tail)?;
        let out = interp.call(&g, Args::new(vec![tree]))?;
        let (outs, d) = flatten(interp, &out)?;
        out_def = Some(d);
        parts.push(outs.iter().map(to_value).collect::<Result<_>>()?);
    }
    let Some(def) = out_def else {
        crate::bail!(ValueError, "lax.map: nothing to map over");
    };
    join(interp, &def, parts)
}

/// The parts' leaves joined along the first axis, in the output tree.
fn join(
    interp: &mut Interp,
    def: &crate::python::pytree::TreeDef,
    parts: Vec<Vec<Value>>,
) -> Result<Obj> {
    let count = parts.first().map_or(0, Vec::len);
    let mut leaves = vec![];
    for k in 0..count {
        let pieces: Vec<Value> = parts.iter().map(|p| p[k].clone()).collect();
        leaves.push(Obj::Array(if pieces.len() == 1 {
            pieces[0].clone()
        } else {
            jops::concatenate(&pieces, 0)?
        }));
    }
    unflatten(interp, def, &leaves)
}
