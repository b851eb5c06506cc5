//! Running `pure_callback` and `io_callback` equations, and how they behave
//! under `vmap`.
//!
//! JAX batches a callback with a rule chosen by its `vmap_method`;
//! shardlab runs a vmap's body once per index, so a callback inside one
//! sees its operands lane by lane, and the vmap's comm ([`Nested`]) turns
//! them into the calls JAX would make: one call per index (`sequential`,
//! and an unordered io_callback), or one call with the indices stacked
//! along a new leading axis (`expand_dims`, `broadcast_all`,
//! `legacy_vectorized`), whose results are split back into the lanes.
//!
//! Which operands the vmap batches is read from the lanes: an operand the
//! vmap does not batch is the same array in every lane of a group (the
//! evaluator computes equations on such operands once and shares the
//! result, see `eval_eqn`), as JAX keeps it unbatched. A callback none of
//! whose operands is batched runs once and its results are shared, as in
//! JAX.
//!
//! [`Nested`]: super::comm::Nested

use crate::array::Array;
use crate::bail;
use crate::error::Result;
use crate::primitives::callback::{CallbackKind, HostCallbackParams};

use super::comm::Comm;

/// One callback equation for every lane of `comm`: `ins[i][l]` in,
/// `[output][lane]` out.
pub fn eval_host_callback(
    params: &HostCallbackParams,
    ins: Vec<Vec<Array>>,
    comm: &dyn Comm,
) -> Result<Vec<Vec<Array>>> {
    if comm.host_vmaps().is_none() {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.{} inside a shard_map or pmap body",
            params.name()
        );
    }
    comm.host_call(params, ins)
}

/// Whether operand `x` (one array per lane) differs between the `size`
/// indices of some group of lanes.
fn batched(x: &[Array], size: usize) -> bool {
    x.chunks(size)
        .any(|group| group.iter().any(|a| !a.is_same(&group[0])))
}

/// The lanes of index `i` of every group of `size`.
fn column(x: &[Array], size: usize, i: usize) -> Vec<Array> {
    x.iter().skip(i).step_by(size).cloned().collect()
}

/// A callback inside a vmap of `size` over `outer`'s lanes.
pub fn nested_call(
    outer: &dyn Comm,
    size: usize,
    params: &HostCallbackParams,
    ins: Vec<Vec<Array>>,
) -> Result<Vec<Vec<Array>>> {
    let is_batched: Vec<bool> = ins.iter().map(|x| batched(x, size)).collect();
    let n_out = params.result_avals.len();
    if !is_batched.iter().any(|&b| b) {
        // Unbatched: one call per outer lane, shared by its indices.
        let first: Vec<Vec<Array>> = ins.iter().map(|x| column(x, size, 0)).collect();
        let outs = outer.host_call(params, first)?;
        return Ok(outs
            .into_iter()
            .map(|o| o.iter().flat_map(|a| vec![a.clone(); size]).collect())
            .collect());
    }
    let method = match params.kind {
        CallbackKind::Io { ordered: true } => {
            bail!(ValueError, "Cannot `vmap` ordered IO callback.")
        }
        CallbackKind::Io { ordered: false } => "sequential",
        CallbackKind::Pure => match params.vmap_method.as_deref() {
            Some(m) => m,
            None => bail!(
                NotImplementedError,
                "vmap is only supported for the pure_callback primitive when vmap_method is one of 'sequential', 'sequential_unrolled', 'expand_dims', 'broadcast_all', or 'legacy_vectorized'. Got vmap_method=None."
            ),
        },
    };
    match method {
        "sequential" | "sequential_unrolled" => sequential(outer, size, params, &ins, n_out),
        _ => vectorized(outer, size, params, &ins, &is_batched, method),
    }
}

/// One call per index, the indices in order.
fn sequential(
    outer: &dyn Comm,
    size: usize,
    params: &HostCallbackParams,
    ins: &[Vec<Array>],
    n_out: usize,
) -> Result<Vec<Vec<Array>>> {
    let lanes = ins.first().map_or(0, |x| x.len());
    let mut outs: Vec<Vec<Option<Array>>> = vec![vec![None; lanes]; n_out];
    for i in 0..size {
        let col: Vec<Vec<Array>> = ins.iter().map(|x| column(x, size, i)).collect();
        let res = outer.host_call(params, col)?;
        for (o, r) in outs.iter_mut().zip(res) {
            for (g, a) in r.into_iter().enumerate() {
                o[g * size + i] = Some(a);
            }
        }
    }
    outs.into_iter()
        .map(|o| {
            o.into_iter()
                .map(|a| {
                    a.ok_or_else(|| crate::err!(RuntimeError, "callback: a lane lost its result"))
                })
                .collect()
        })
        .collect()
}

/// One call per outer lane with the indices stacked along a new leading
/// axis: a batched operand is stacked, an unbatched one gets an axis of 1
/// (`expand_dims`), is broadcast (`broadcast_all`) or left as it is
/// (`legacy_vectorized`). The results carry the axis and are split.
fn vectorized(
    outer: &dyn Comm,
    size: usize,
    params: &HostCallbackParams,
    ins: &[Vec<Array>],
    is_batched: &[bool],
    method: &str,
) -> Result<Vec<Vec<Array>>> {
    let mut stacked = Vec::with_capacity(ins.len());
    for (x, &b) in ins.iter().zip(is_batched) {
        let mut per_outer = Vec::with_capacity(x.len() / size.max(1));
        for group in x.chunks(size) {
            per_outer.push(match (b, method) {
                (true, _) => Array::stack(group, 0)?,
                (false, "expand_dims") => group[0].expand_dims(0)?,
                (false, "broadcast_all") => {
                    let mut shape = vec![size];
                    shape.extend_from_slice(group[0].shape());
                    group[0].broadcast_to(&shape)?
                }
                (false, _) => group[0].clone(),
            });
        }
        stacked.push(per_outer);
    }
    let mut batched_params = params.clone();
    for a in &mut batched_params.result_avals {
        a.shape.insert(0, size);
    }
    let outs = outer.host_call(&batched_params, stacked)?;
    outs.into_iter()
        .map(|o| {
            let mut lanes = Vec::with_capacity(o.len() * size);
            for a in &o {
                for i in 0..size {
                    lanes.push(a.index(i as i64, 0)?);
                }
            }
            Ok(lanes)
        })
        .collect()
}

/// The callback at the top of the lanes: one call, in the Python program's
/// thread.
pub fn top_call(params: &HostCallbackParams, ins: Vec<Vec<Array>>) -> Result<Vec<Vec<Array>>> {
    let args: Vec<Array> = ins
        .into_iter()
        .map(|mut l| match l.len() {
            1 => Ok(l.remove(0)),
            n => bail!(RuntimeError, "callback: {n} lanes at the top level"),
        })
        .collect::<Result<_>>()?;
    let outs = crate::primitives::callback::call_host(params, &args)?;
    Ok(outs.into_iter().map(|a| vec![a]).collect())
}

/// For each equation of `jaxpr`, whether it is a pure callback whose
/// results nothing reads: JAX compiles such a call away, so it never runs.
pub fn dead_pure_callbacks(jaxpr: &crate::ir::Jaxpr) -> Vec<bool> {
    let pure = |e: &crate::ir::Eqn| matches!(&e.prim, crate::primitives::Prim::HostCallback(h) if h.kind == CallbackKind::Pure);
    if !jaxpr.eqns.iter().any(pure) {
        return vec![false; jaxpr.eqns.len()];
    }
    let mut read = std::collections::HashSet::new();
    let mut dead = vec![false; jaxpr.eqns.len()];
    for a in &jaxpr.outvars {
        if let crate::ir::Atom::Var(v) = a {
            read.insert(*v);
        }
    }
    for (i, e) in jaxpr.eqns.iter().enumerate().rev() {
        if pure(e) && !e.outputs.iter().any(|v| read.contains(v)) {
            dead[i] = true;
            continue;
        }
        for a in &e.inputs {
            if let crate::ir::Atom::Var(v) = a {
                read.insert(*v);
            }
        }
    }
    dead
}
