//! linen's `nn.remat` / `nn.checkpoint`: the module or function runs as it
//! is. Rematerialization changes what a gradient recomputes, not what is
//! computed: JAX evaluates a checkpointed function outside `jit` equation by
//! equation, as it would the function itself, and Flax lifts the module's
//! variables and streams into it unchanged, tracing it once, so the keys
//! drawn and the values made are those of a direct call. `static_argnums`,
//! `policy`, `prevent_cse` and `concrete` only steer the recomputation.

use super::linen_lift::{lift_target, Body};
use super::*;

/// `nn.checkpoint(target, variables=True, rngs=True, concrete=False,
/// prevent_cse=True, static_argnums=(), policy=None, methods=None)`.
pub(super) fn checkpoint(interp: &mut Interp, a: Args) -> Result<Obj> {
    for (name, ok) in [
        (
            "variables",
            matches!(a.opt(None, "variables"), None | Some(Obj::Bool(true))),
        ),
        (
            "rngs",
            matches!(a.opt(None, "rngs"), None | Some(Obj::Bool(true))),
        ),
    ] {
        if !ok {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: flax.linen.checkpoint with {name} other than True"
            );
        }
    }
    let body: Body = Rc::new(|interp, args, callee| interp.call(callee, args));
    lift_target(interp, "checkpoint", &a, body)
}
