//! `jax.lax.with_sharding_constraint` and `jax.sharding.reshard` (also
//! `jax.reshard`): say where a value lives from here on.
//!
//! Both bind the `sharding_constraint` (or `reshard`) primitive: on arrays
//! it is the identity whose result the placement rules place as asked;
//! under `jit` it is an equation that the propagation of the jitted
//! function's shardings reads. `with_sharding_constraint` is for `Auto`
//! mesh axes and `reshard` for `Explicit` ones, as in JAX 0.10.2.

use std::sync::Arc;

use crate::bail;
use crate::error::Result;
use crate::mesh::AxisType;
use crate::primitives::{ConstraintParams, Prim};
use crate::python::array::to_value;
use crate::python::interp::Interp;
use crate::python::pytree::{broadcast_prefix, flatten, unflatten};
use crate::python::value::{Args, Obj};
use crate::sharding::{NamedSharding, PartitionSpec};

use super::context::context_mesh;

/// A sharding argument: a `NamedSharding`, or a `PartitionSpec` over the
/// context mesh (then `from_spec`). `missing` is the error for a spec
/// without a context mesh.
fn target(
    interp: &mut Interp,
    o: &Obj,
    missing: &dyn Fn(&PartitionSpec) -> crate::error::Error,
) -> Result<(NamedSharding, bool)> {
    if let Some(ns) = o.downcast::<super::NamedSharding>() {
        return Ok((
            NamedSharding::new((*ns.mesh).clone(), ns.spec.clone()),
            false,
        ));
    }
    if let Some(spec) = o.downcast::<PartitionSpec>() {
        let Some(mesh) = context_mesh(interp) else {
            return Err(missing(spec));
        };
        return Ok((NamedSharding::new((*mesh).clone(), spec.clone()), true));
    }
    bail!(
        TypeError,
        "expected a NamedSharding or a PartitionSpec, got {}",
        o.type_name()
    )
}

fn is_target(o: &Obj) -> bool {
    o.downcast::<super::NamedSharding>().is_some() || o.downcast::<PartitionSpec>().is_some()
}

/// Binds the constraint on every leaf of `x`, by the matching leaf of the
/// prefix tree `shardings`.
fn constrain_tree(
    interp: &mut Interp,
    x: &Obj,
    shardings: &Obj,
    what: &str,
    make: &dyn Fn(&mut Interp, &Obj) -> Result<ConstraintParams>,
) -> Result<Obj> {
    let (leaves, def) = flatten(interp, x)?;
    let targets = broadcast_prefix(shardings, &def, &is_target, what)?;
    let mut out = vec![];
    for (leaf, t) in leaves.iter().zip(&targets) {
        let mut params = make(interp, t)?;
        let v = to_value(leaf)?;
        if params.reshard {
            drop_unused_entries(&mut params.sharding.spec, v.ndim());
        }
        let y = crate::trace::bind1(Prim::ShardingConstraint(Arc::new(params)), &[v])?;
        out.push(Obj::Array(y));
    }
    unflatten(interp, &def, &out)
}

/// `reshard` drops the entries of a spec past the rank of the value they
/// are applied to when they shard nothing (JAX accepts `P(None, None)` for
/// every leaf of a tree that also holds vectors).
fn drop_unused_entries(spec: &mut PartitionSpec, ndim: usize) {
    if spec.entries.len() > ndim && spec.entries[ndim..].iter().all(|e| e.is_none()) {
        spec.entries.truncate(ndim);
    }
}

/// `jax.lax.with_sharding_constraint(x, shardings)`.
pub fn with_sharding_constraint(interp: &mut Interp, a: Args) -> Result<Obj> {
    let x = a.req(Some(0), "x", "with_sharding_constraint")?;
    let shardings = a.req(Some(1), "shardings", "with_sharding_constraint")?;
    let all_explicit = context_mesh(interp).is_some_and(|m| {
        !m.axis_names().is_empty() && m.axis_types().iter().all(|t| *t == AxisType::Explicit)
    });
    if all_explicit {
        return assert_shardings(interp, &x, &shardings);
    }
    constrain_tree(
        interp,
        &x,
        &shardings,
        "with_sharding_constraint shardings",
        &|i, t| {
            let missing = |_: &PartitionSpec| {
                crate::err!(
                RuntimeError,
                "with_sharding_constraint requires a non-empty mesh in context if you are passing `PartitionSpec`s to shardings. You can define a context mesh via `jax.set_mesh(mesh)`. Alternatively, provide `Sharding`s to shardings and then the mesh context manager is not required."
            )
            };
            let (sharding, from_spec) = target(i, t, &missing)?;
            let explicit = sharding
                .spec
                .used_axes()
                .iter()
                .any(|ax| sharding.mesh.axis_type(ax).ok() == Some(AxisType::Explicit));
            if explicit {
                bail!(
                ValueError,
                "The spec of NamedSharding passed to with_sharding_constraint can only refer to Auto axes of the mesh. Got spec={} and mesh={}. You probably meant to use `reshard` API?",
                sharding.spec,
                &sharding.mesh.abstract_text()
            );
            }
            Ok(ConstraintParams {
                sharding,
                reshard: false,
                context_mesh: context_mesh(i).map(|m| (*m).clone()),
                from_spec,
            })
        },
    )
}

/// `with_sharding_constraint` under a context mesh whose axes are all
/// explicit: the sharding is part of each value's type already, so JAX only
/// checks that every leaf of `x` is laid out as asked (an AssertionError
/// otherwise) and returns `x` unchanged.
fn assert_shardings(interp: &mut Interp, x: &Obj, shardings: &Obj) -> Result<Obj> {
    let (leaves, def) = flatten(interp, x)?;
    let targets = broadcast_prefix(
        shardings,
        &def,
        &is_target,
        "with_sharding_constraint shardings",
    )?;
    for (leaf, t) in leaves.iter().zip(&targets) {
        let missing = |_: &PartitionSpec| crate::err!(RuntimeError, "no context mesh");
        let (want, _) = target(interp, t, &missing)?;
        let v = to_value(leaf)?;
        let ndim = v.ndim();
        let placed = crate::modules::scan_sharding::placements(std::slice::from_ref(&v))?.pop();
        let have = match placed.flatten().as_deref() {
            Some(crate::sharding::Placement::Named(s)) => super::placed::type_spec(&s.spec, &s.mesh),
            Some(crate::sharding::Placement::Unknown(what)) => bail!(
                NotImplementedError,
                "not supported by shardlab yet: with_sharding_constraint of the result of {what} on sharded arrays"
            ),
            _ if !layout_known(&v) => bail!(
                NotImplementedError,
                "not supported by shardlab yet: with_sharding_constraint over explicit mesh axes inside a map or on a value the function closed over"
            ),
            _ => PartitionSpec::replicated(),
        };
        let full = |spec: &PartitionSpec| {
            let mut e = spec.entries().to_vec();
            e.resize(ndim.max(e.len()), None);
            PartitionSpec::new(e)
        };
        let (have, want) = (full(&have), full(&want.spec));
        if have.entries() != want.entries() {
            bail!(
                AssertionError,
                "`with_sharding_constraint` acts as an assert when all axes of mesh are of type `Explicit`. The array sharding: {have} did not match the sharding provided: {want}. Please use `jax.sharding.reshard` to shard your input to the sharding you want."
            );
        }
    }
    Ok(x.clone())
}

/// Whether shardlab knows where `v` lives: a concrete array, a traced one
/// with its value, or a tracer of a jitted function's own trace (inside a
/// map body the type is per element or per device, which is not modelled).
fn layout_known(v: &crate::trace::Value) -> bool {
    match v {
        crate::trace::Value::Concrete(_) => true,
        crate::trace::Value::Traced(t) => {
            t.known.is_some() || !crate::trace::in_map_body(t) && crate::trace::placement_known(t)
        }
    }
}

/// `jax.sharding.reshard(x, out_shardings)`.
pub fn reshard(interp: &mut Interp, a: Args) -> Result<Obj> {
    let x = a.req(Some(0), "xs", "reshard")?;
    let shardings = a.req(Some(1), "out_shardings", "reshard")?;
    constrain_tree(interp, &x, &shardings, "reshard out_shardings", &|i, t| {
        let missing = |spec: &PartitionSpec| {
            crate::err!(
                ValueError,
                "Using PartitionSpec when you are not under a mesh context is not allowed. Please pass a NamedSharding instance or enter into a mesh context via `jax.set_mesh`. Got {spec}"
            )
        };
        let (sharding, from_spec) = target(i, t, &missing)?;
        for ax in sharding.spec.used_axes() {
            let ty = sharding.mesh.axis_type(ax)?;
            if ty != AxisType::Explicit {
                bail!(
                    ValueError,
                    "PartitionSpec passed to reshard cannot contain axis names that are of type Auto or Manual. Got PartitionSpec: {} with axis name: {ax} of type: AxisType.{}.",
                    sharding.spec,
                    ty.name()
                );
            }
        }
        Ok(ConstraintParams {
            sharding,
            reshard: true,
            context_mesh: context_mesh(i).map(|m| (*m).clone()),
            from_spec,
        })
    })
}
