//! `nnx.jit`: `jax.jit` over a function of NNX objects whose Variables it
//! may update.
//!
//! The function is traced once per signature, as `jax.jit` traces it
//! (NNX objects are pytrees, so their Variables' values are the program's
//! inputs): its Python side effects happen at trace time, and Python
//! control flow on a traced value raises JAX's errors. What Flax adds is
//! the write-back: the traced function returns, beside its result, every
//! argument that holds Variables, as the trace left them, and after the
//! call those Variables are written into the caller's, paired in pytree
//! order. Arguments without Variables are not returned (they may be
//! static or not JAX types at all).

use std::rc::Rc;

use super::opt_state::variable_leaves;
use super::{is_variable, set_iattr};
use crate::bail;
use crate::error::Result;
use crate::python::interp::Interp;
use crate::python::value::{Args, Instance, Obj};

/// `nnx.jit`'s keywords that only `jax.jit` reads, or that change nothing.
const NO_EFFECT: [&str; 3] = [
    "inline", "device",
    // Tree mode (graph=False) passes the same Variables in and out.
    "graph",
];

/// Whether the arguments flatten as pytrees into exactly the Variables
/// Flax's graph traversal would see (see the module docs).
fn pytree_safe(interp: &mut Interp, pos: &[Obj], kw: &[(String, Obj)]) -> Result<bool> {
    let all = Obj::tuple(
        pos.iter()
            .chain(kw.iter().map(|(_, v)| v))
            .cloned()
            .collect(),
    );
    if super::graph::has_duplicates(&all) {
        return Ok(false);
    }
    let (leaves, _) = variable_leaves(interp, &all)?;
    let mut seen: Vec<&Rc<Instance>> = vec![];
    for l in &leaves {
        let Obj::Instance(i) = l else { continue };
        if !is_variable(i) {
            // A graph node JAX sees as a leaf (`pytree=False`).
            return Ok(false);
        }
        if seen.iter().any(|s| Rc::ptr_eq(s, i)) {
            return Ok(false);
        }
        seen.push(i);
    }
    Ok(true)
}

/// `nnx.jit(fun, **options)` and its decorator form.
pub(super) fn nnx_jit(interp: &mut Interp, a: Args) -> Result<Obj> {
    let Some(fun) = a.get(Some(0), "fun") else {
        return Ok(crate::modules::real_api::decorator(
            "flax.nnx.jit",
            &a,
            nnx_jit,
        ));
    };
    for k in NO_EFFECT {
        a.get(None, k);
    }
    // Flax reads these against its graph state, which differs from the
    // arguments' pytrees that `jax.jit` would read them against.
    for k in ["in_shardings", "out_shardings"] {
        if a.kw.iter().any(|(n, _)| n == k) {
            crate::bail!(
                NotImplementedError,
                "not supported by shardlab yet: nnx.jit({k}=...)"
            );
        }
    }
    let name = match &fun {
        Obj::Func(f) => f.name.clone(),
        _ => "function".into(),
    };
    let f = fun.clone();
    let runner = Obj::native(format!("nnx.jit.{name}"), move |interp, args| {
        traced_body(interp, &f, args)
    });
    let inner = crate::modules::jit::jit_as(interp, &fun, runner, &a)?;
    Ok(Obj::native(
        format!("nnx.jit.{name}"),
        move |interp, args| {
            if pytree_safe(interp, &args.pos, &args.kw)? {
                call(interp, &inner, args)
            } else {
                interp.call(&fun, args)
            }
        },
    ))
}

/// The Variables in `o`, in pytree order.
fn variables(interp: &mut Interp, o: &Obj) -> Result<Vec<Rc<Instance>>> {
    let (leaves, _) = variable_leaves(interp, o)?;
    Ok(leaves
        .into_iter()
        .filter_map(|l| match l {
            Obj::Instance(i) if is_variable(&i) => Some(i),
            _ => None,
        })
        .collect())
}

/// The arguments that hold Variables (None for the others), positional
/// ones and keyword ones together in one tuple.
fn stateful(interp: &mut Interp, pos: &[Obj], kw: &[(String, Obj)]) -> Result<Obj> {
    let mut kept = vec![];
    for o in pos.iter().chain(kw.iter().map(|(_, v)| v)) {
        let holds = !variables(interp, o)?.is_empty();
        kept.push(if holds { o.clone() } else { Obj::None });
    }
    Ok(Obj::tuple(kept))
}

/// What runs under the trace: the function, then its Variable-holding
/// arguments as it left them.
fn traced_body(interp: &mut Interp, fun: &Obj, args: Args) -> Result<Obj> {
    let (pos, kw) = (args.pos.clone(), args.kw.clone());
    let out = interp.call(fun, args)?;
    let state = stateful(interp, &pos, &kw)?;
    // An argument returned as it is: its index, so the caller gets its own.
    // The index is written in the output's structure (k + 1 empty tuples),
    // which the jit's cache keeps with each traced program.
    let all: Vec<&Obj> = pos.iter().chain(kw.iter().map(|(_, v)| v)).collect();
    let same = all.iter().position(|a| same_object(a, &out));
    let marker = Obj::tuple(vec![Obj::tuple(vec![]); same.map_or(0, |k| k + 1)]);
    let out = if same.is_some() { Obj::None } else { out };
    Ok(Obj::tuple(vec![out, state, marker]))
}

/// Runs the jitted body and writes the Variables it updated back into the
/// caller's objects, pairing them in pytree order (value and metadata).
fn call(interp: &mut Interp, inner: &Obj, args: Args) -> Result<Obj> {
    let (pos, kw) = (args.pos.clone(), args.kw.clone());
    let got = interp.call(inner, args)?;
    let (out, new_state, marker) = match &got {
        Obj::Tuple(parts) => match parts.as_slice() {
            [out, state, Obj::Tuple(marker)] => (out, state, marker.len()),
            _ => bail!(
                RuntimeError,
                "nnx.jit's program returned an unexpected structure"
            ),
        },
        _ => bail!(
            RuntimeError,
            "nnx.jit's program returned an unexpected structure"
        ),
    };
    let old_state = stateful(interp, &pos, &kw)?;
    let old = variables(interp, &old_state)?;
    let new = variables(interp, new_state)?;
    if old.len() != new.len() {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: nnx.jit of a function that adds or removes Variables \
             of its arguments ({} before, {} after)",
            old.len(),
            new.len()
        );
    }
    for (dst, src) in old.iter().zip(&new) {
        if Rc::ptr_eq(dst, src) {
            continue;
        }
        for (k, v) in src.attrs.borrow().iter() {
            set_iattr(dst, k, v.clone());
        }
    }
    let all: Vec<&Obj> = pos.iter().chain(kw.iter().map(|(_, v)| v)).collect();
    match marker.checked_sub(1).and_then(|k| all.get(k)) {
        Some(a) => Ok((*a).clone()),
        None => Ok(out.clone()),
    }
}

/// Whether `a` and `b` are one NNX object.
fn same_object(a: &Obj, b: &Obj) -> bool {
    matches!((a, b), (Obj::Instance(x), Obj::Instance(y)) if Rc::ptr_eq(x, y))
}
