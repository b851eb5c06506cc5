//! `jax.debug.inspect_array_sharding(value, *, callback)`: hands the
//! sharding of every array in `value` to `callback`.
//!
//! On concrete arrays the callback runs at once with the array's sharding.
//! Inside `jit` JAX calls it while compiling the program, with the sharding
//! the compiler chose: so here the call waits until the outermost jitted
//! function has been traced (a cached program is not compiled again and
//! calls nothing), and the value is staged as an `inspect_sharding`
//! equation, which `make_jaxpr` shows. A compiled sharding names its mesh
//! with every axis `Auto`, whatever the mesh's axis types were.

use std::rc::Rc;
use std::sync::Arc;

use crate::bail;
use crate::error::Result;
use crate::mesh::AxisType;
use crate::primitives::debug::DebugPrintParams;
use crate::primitives::Prim;
use crate::python::array::to_value;
use crate::python::interp::Interp;
use crate::python::pytree::flatten_known;
use crate::python::value::{Args, Obj};
use crate::sharding::Placement;
use crate::trace::{Tracer, Value};

use super::placed::{placement, sharding_obj};
use super::NamedSharding;

/// The callbacks that wait for the program being traced to be compiled,
/// with the sharding each is called with (run state).
#[derive(Default)]
struct Pending(Vec<(Obj, Result<Obj>)>);

/// Takes the callbacks staged since the last take, each with its sharding
/// or the reason shardlab cannot tell it (raised only if the program is
/// compiled: `make_jaxpr` calls nothing).
pub fn take_pending(interp: &mut Interp) -> Vec<(Obj, Result<Obj>)> {
    std::mem::take(&mut interp.state::<Pending>().0)
}

/// Calls the callbacks the program just traced staged: it is being
/// compiled.
pub fn run_pending(interp: &mut Interp) -> Result<()> {
    for (callback, sharding) in take_pending(interp) {
        interp.call(&callback, Args::new(vec![sharding?]))?;
    }
    Ok(())
}

/// `jax.debug.inspect_array_sharding`.
pub fn inspect_array_sharding(interp: &mut Interp, a: Args) -> Result<Obj> {
    let value = a.req(Some(0), "value", "inspect_array_sharding")?;
    let Some(callback) = a.opt(None, "callback") else {
        bail!(
            TypeError,
            "inspect_array_sharding() missing 1 required keyword-only argument: 'callback'"
        );
    };
    let (leaves, _) = flatten_known(&value)?;
    for leaf in &leaves {
        match to_value(leaf)? {
            Value::Traced(t) if crate::trace::staging() => stage(interp, &t, &callback)?,
            Value::Traced(t) if crate::trace::in_map_body(&t) => bail!(
                NotImplementedError,
                "not supported by shardlab yet: jax.debug.inspect_array_sharding inside vmap, pmap or shard_map"
            ),
            v => {
                let x = v.concrete("inspect_array_sharding")?.clone();
                let s = sharding_obj(&placement(interp, &x)?);
                interp.call(&callback, Args::new(vec![s]))?;
            }
        }
    }
    Ok(Obj::None)
}

/// Stages the inspection of a traced value and keeps its callback for
/// when the program is compiled.
fn stage(interp: &mut Interp, t: &Tracer, callback: &Obj) -> Result<()> {
    if crate::trace::in_map_body(t) {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.debug.inspect_array_sharding inside vmap, pmap or shard_map"
        );
    }
    let sharding = compiled_sharding(t);
    let mut params = DebugPrintParams::new("");
    params.inspect = Some(function_text(callback));
    let v = Value::Traced(t.clone());
    crate::trace::bind(Prim::DebugPrint(Arc::new(params)), &[v])?;
    interp
        .state::<Pending>()
        .0
        .push((callback.clone(), sharding));
    Ok(())
}

/// The sharding the compiler gives a traced value, as far as shardlab's
/// sharding rules tell it.
fn compiled_sharding(t: &Tracer) -> Result<Obj> {
    Ok(match crate::trace::tracer_placement(t)?.as_deref() {
        Some(Placement::Named(s)) => {
            let auto = vec![AxisType::Auto; s.mesh.axis_names().len()];
            Obj::lib(NamedSharding {
                mesh: Rc::new(s.mesh.clone().with_axis_types(auto)?),
                spec: s.spec.clone(),
                memory_kind: s.memory_kind,
            })
        }
        Some(Placement::Unknown(what)) => bail!(
            NotImplementedError,
            "not supported by shardlab yet: the sharding of the result of {what} on sharded arrays"
        ),
        // The compiler reports a GSPMDSharding here, which shardlab has not.
        Some(Placement::Device(_)) | None => bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.debug.inspect_array_sharding inside jit of a value that is not on a mesh"
        ),
    })
}

/// The callback as a jaxpr shows it: JAX's printer hides the address.
fn function_text(f: &Obj) -> String {
    match f {
        Obj::Func(func) => format!("<function {} at 0xXXXXXXXXXXXX>", func.qualname),
        other => crate::python::format::repr_of(other),
    }
}
