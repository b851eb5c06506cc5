//! `jax.checkpoint` (alias `jax.remat`), `jax.ad_checkpoint` and
//! `jax.checkpoint_policies`.
//!
//! Rematerialization decides which intermediate values the backward pass
//! stores and which it recomputes; it never changes a number. shardlab's
//! reverse mode keeps every intermediate of the traced program, so a
//! checkpointed function is the function itself and a policy is accepted
//! and not consulted. `checkpoint_name` is the identity on its value.

use crate::bail;
use crate::error::Result;

use super::jax::func_name;
use super::Builder;
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};

/// `jax.checkpoint(fun, *, prevent_cse=True, policy=None, static_argnums=())`,
/// also usable as `functools.partial(jax.checkpoint, policy=...)`.
pub fn checkpoint(_: &mut Interp, a: Args) -> Result<Obj> {
    let Some(f) = a.get(Some(0), "fun") else {
        let kw = a.kw.clone();
        return Ok(Obj::native("checkpoint", move |i, b| {
            checkpoint(
                i,
                Args {
                    pos: b.pos,
                    kw: kw.clone(),
                },
            )
        }));
    };
    if let Some(p) = a.get(None, "policy") {
        if !matches!(p, Obj::None | Obj::Native(_) | Obj::Func(_)) {
            bail!(
                TypeError,
                "checkpoint policy must be a callable, got {}",
                p.type_name()
            );
        }
    }
    Ok(Obj::native(
        format!("checkpoint({})", func_name(&f)),
        move |i, call| i.call(&f, call),
    ))
}

/// `checkpoint_name(x, name)`: `x`, labelled for a policy.
fn checkpoint_name(_: &mut Interp, a: Args) -> Result<Obj> {
    let x = a.req(Some(0), "x", "checkpoint_name")?;
    a.req(Some(1), "name", "checkpoint_name")?;
    Ok(x)
}

/// A policy: a function of an equation that says whether to save its
/// output. Every policy here answers True (shardlab saves everything).
fn policy(name: &str) -> Obj {
    Obj::native(name.to_string(), |_, _| Ok(Obj::Bool(true)))
}

/// `jax.checkpoint_policies`: the policies, and the functions that make
/// policies from names or from other policies.
pub fn policies_module() -> Obj {
    let mut b = Builder::new("jax.checkpoint_policies");
    for name in [
        "everything_saveable",
        "nothing_saveable",
        "dots_saveable",
        "checkpoint_dots",
        "dots_with_no_batch_dims_saveable",
        "checkpoint_dots_with_no_batch_dims",
    ] {
        b.attr(name, policy(name));
    }
    for name in [
        "save_only_these_names",
        "save_any_names_but_these",
        "save_anything_except_these_names",
        "save_from_both_policies",
        "offload_dot_with_no_batch_dims",
        "save_and_offload_only_these_names",
    ] {
        b.func(name, move |_, _| Ok(policy(name)));
    }
    b.build()
}

/// `jax.ad_checkpoint`.
pub fn ad_checkpoint_module() -> Obj {
    let mut b = Builder::new("jax.ad_checkpoint");
    b.func("checkpoint", checkpoint);
    b.func("remat", checkpoint);
    b.func("checkpoint_name", checkpoint_name);
    b.attr("checkpoint_policies", policies_module());
    b.func("print_saved_residuals", |_, _| {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.ad_checkpoint.print_saved_residuals"
        )
    });
    b.build()
}

/// Adds `checkpoint`, `remat` and `checkpoint_policies` to the `jax` module.
pub fn register(b: &mut Builder) {
    b.func("checkpoint", checkpoint);
    b.func("remat", checkpoint);
    b.attr("checkpoint_policies", policies_module());
}
