//! Buffer donation (`jax.jit(f, donate_argnums=...)`, `donate_argnames`).
//!
//! A donated argument lends its buffer to one of the call's outputs, and
//! then the argument is deleted: every later read of it raises JAX's
//! RuntimeError (see `crate::trace::deleted`). Which argument an output
//! takes follows JAX's lowering on CPU: first each output, in order, takes
//! the first donated argument of its very shape and dtype; then each donated
//! argument left, in order, takes the first output left with as many
//! elements. An argument the compiled program does not read (dropped unless
//! `keep_unused`) is not donated; one no output can take stays alive, and
//! compiling the program says so in a UserWarning. Donation inside another
//! transformation (a jit within a jit) does nothing, as in JAX.

use crate::error::Result;
use crate::trace::{deleted, Value};
use crate::{bail, err};

use crate::modules::std::warnings::{warn, Place};
use crate::python::interp::Interp;
use crate::python::value::Obj;

/// Where JAX's lowering issues its warning about unusable donations.
const WARNED_AT: Place = Place::Library("jax._src.interpreters.mlir", 1365);

/// A call's dynamic leaves as the program takes them.
pub(super) struct Leaves<'a> {
    /// The leaves as the program was given them.
    pub objs: &'a [Obj],
    /// Whether each leaf's argument is donated.
    pub donated: &'a [bool],
    /// Whether the compiled program takes each leaf.
    pub used: &'a [bool],
}

/// The array a leaf holds, when it is a JAX array that donation can delete
/// (a NumPy array or a Python number is copied in, and stays as it was).
fn jax_array(o: &Obj) -> Option<&crate::array::Array> {
    match o {
        Obj::Array(Value::Concrete(a)) => Some(a),
        _ => None,
    }
}

/// What a call's leaves allow before the program runs: a program that is
/// already compiled refuses a deleted argument with the runtime's
/// ValueError; an array passed twice may not be donated (XLA's errors); a
/// donation across devices is not modelled.
pub(super) fn check_call(leaves: &Leaves, compiled: bool) -> Result<()> {
    let taken: Vec<usize> = (0..leaves.objs.len())
        .filter(|&i| leaves.used.get(i).copied().unwrap_or(true))
        .collect();
    for (k, &i) in taken.iter().enumerate() {
        let Some(a) = jax_array(&leaves.objs[i]) else {
            continue;
        };
        if compiled && deleted::is_deleted(a) {
            bail!(
                ValueError,
                "INVALID_ARGUMENT: Invalid buffer passed to Execute() as argument {k} to replica 0: \
                 INVALID_ARGUMENT: Buffer has been deleted or donated."
            );
        }
        let first = taken[..k]
            .iter()
            .position(|&j| jax_array(&leaves.objs[j]).is_some_and(|b| b.is_same(a)));
        if let Some(first) = first {
            twice(leaves.donated[taken[first]], leaves.donated[i], k, first)?;
        }
    }
    if leaves.donated.iter().any(|&d| d) {
        let spread = leaves.objs.iter().filter_map(jax_array).any(|a| {
            matches!(a.placement(), Some(crate::sharding::Placement::Named(s)) if s.mesh.size() > 1)
        });
        if spread {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: donate_argnums with arrays split over several devices"
            );
        }
    }
    Ok(())
}

/// XLA's error for one array passed as two arguments of which one is
/// donated (`earlier` and `later` say which).
fn twice(earlier: bool, later: bool, k: usize, first: usize) -> Result<()> {
    let (what, example) = match (earlier, later) {
        (false, false) => return Ok(()),
        (true, false) => (
            "Attempt to use a buffer that was previously donated in the same call to Execute()",
            "f(donate(a), a)",
        ),
        (true, true) => (
            "Attempt to donate the same buffer twice in Execute()",
            "f(donate(a), donate(a))",
        ),
        (false, true) => (
            "Attempt to donate a buffer which is also used by the same call to Execute()",
            "f(a, donate(a))",
        ),
    };
    Err(err!(
        JaxRuntimeError,
        "INVALID_ARGUMENT: {what} (flattened argument {k}, replica 0, partition 0, first use: \
         {first}). Toy example for this bug: `{example}`."
    ))
}

/// After a top-level call: deletes the donated arguments whose buffers an
/// output took, and, when the program was compiled for this call, warns
/// about the ones no output could take. Outputs that share a deleted
/// argument's elements get their own copy.
pub(super) fn donate(
    interp: &mut Interp,
    leaves: &Leaves,
    outs: &mut [Value],
    compiled: bool,
) -> Result<()> {
    let donors: Vec<usize> = (0..leaves.objs.len())
        .filter(|&i| leaves.donated.get(i).copied().unwrap_or(false))
        .filter(|&i| leaves.used.get(i).copied().unwrap_or(true))
        .collect();
    if donors.is_empty() {
        return Ok(());
    }
    let avals: Vec<(Vec<usize>, crate::array::DType)> = donors
        .iter()
        .map(|&i| match &leaves.objs[i] {
            Obj::Array(v) => Ok((v.shape(), v.dtype())),
            o => crate::python::array::to_value(o).map(|v| (v.shape(), v.dtype())),
        })
        .collect::<Result<_>>()?;
    let outs_avals: Vec<(Vec<usize>, crate::array::DType)> =
        outs.iter().map(|v| (v.shape(), v.dtype())).collect();
    let taken = match_outputs(&avals, &outs_avals);
    let mut unusable = vec![];
    for ((&i, aval), took) in donors.iter().zip(&avals).zip(&taken) {
        if !took {
            unusable.push(crate::sharding::aval_text(&aval.0, aval.1, None));
            continue;
        }
        if let Some(a) = jax_array(&leaves.objs[i]) {
            deleted::delete(a);
            for v in outs.iter_mut() {
                if let Value::Concrete(o) = v {
                    if o.shares_buffer(a) {
                        *o = o.with_own_buffer();
                    }
                }
            }
        }
    }
    if compiled && !unusable.is_empty() {
        let text = format!(
            "Some donated buffers were not usable: {}.\nSee an explanation at \
             https://docs.jax.dev/en/latest/faq.html#buffer-donation.",
            unusable.join(", ")
        );
        warn(interp, "UserWarning", &text, WARNED_AT)?;
    }
    Ok(())
}

/// Which donated arguments (by their shapes and dtypes) an output takes:
/// exact matches first, output by output, then matches by element count,
/// argument by argument.
fn match_outputs(
    donors: &[(Vec<usize>, crate::array::DType)],
    outs: &[(Vec<usize>, crate::array::DType)],
) -> Vec<bool> {
    let mut taken = vec![false; donors.len()];
    let mut out_free = vec![true; outs.len()];
    for (o, out) in outs.iter().enumerate() {
        if let Some(d) = (0..donors.len()).find(|&d| !taken[d] && donors[d] == *out) {
            taken[d] = true;
            out_free[o] = false;
        }
    }
    let count = |s: &[usize]| s.iter().product::<usize>();
    for d in 0..donors.len() {
        if taken[d] {
            continue;
        }
        let n = count(&donors[d].0);
        if let Some(o) = (0..outs.len()).find(|&o| out_free[o] && count(&outs[o].0) == n) {
            out_free[o] = false;
            taken[d] = true;
        }
    }
    taken
}
