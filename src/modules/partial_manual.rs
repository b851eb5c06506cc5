//! `jax.shard_map(..., axis_names={...})` manual over only some mesh axes.
//!
//! The body is manual over the named axes alone: its arguments are split
//! along them as in_specs say, its collectives may name only them, and
//! along every other axis it sees the whole extent. So such a map is run as
//! an ordinary map over the sub-mesh of the manual axes, each of whose
//! devices stands for the group of real devices that share its manual
//! coordinates, and its results are then placed on the whole mesh by
//! out_specs (replicated over the other axes).
//!
//! Inside a trace the map is one equation over the sub-mesh that records
//! the whole mesh (`ShardMapParams::whole_mesh`): its jaxpr names the whole
//! mesh, and its results live there, as JAX's do.
//!
//! What shardlab cannot make exact is refused by name: arguments already
//! split over the non-manual axes (JAX then runs the body as a program
//! partitioned over those axes).

use std::collections::BTreeSet;
use std::sync::Arc;

use crate::error::Result;
use crate::mesh::{AxisType, Mesh};
use crate::python::interp::Interp;
use crate::python::pytree::{flatten_known, unflatten_known};
use crate::python::value::{Args, Obj};
use crate::sharding::{NamedSharding, PartitionSpec, Placement};
use crate::trace::Value;
use crate::{bail, err};

/// The `axis_names` argument: JAX takes a set or frozenset of names.
pub fn axis_names_arg(o: &Obj) -> Result<BTreeSet<String>> {
    if !matches!(o, Obj::Set(_)) {
        bail!(
            TypeError,
            "`axis_names` argument of shard_map should be of type `frozenset` or `set`. Got type: <class '{}'>",
            o.type_name()
        );
    }
    let names = Obj::tuple(crate::python::ops::iterate(o)?);
    Ok(super::lax::axis_names(&names)?.into_iter().collect())
}

/// JAX's error for specs that name an axis the map is not manual over.
fn check_specs(specs: &Obj, manual: &BTreeSet<String>, what: &str) -> Result<()> {
    let (leaves, _) = flatten_known(specs)?;
    for leaf in &leaves {
        let Some(spec) = leaf.downcast::<PartitionSpec>() else {
            continue;
        };
        if let Some(a) = spec.used_axes().into_iter().find(|a| !manual.contains(*a)) {
            let names: Vec<String> = manual.iter().map(|n| format!("'{n}'")).collect();
            bail!(
                ValueError,
                "shard_map {what} argument must refer to an axis marked as manual (frozenset({{{}}})), but:\n\n  {what} refers to '{a}'\n\nCheck the {what} values passed to shard_map.",
                names.join(", ")
            );
        }
    }
    Ok(())
}

/// The sub-mesh of the manual axes, each of them Auto: position k stands for the devices whose
/// manual coordinates are k's; it is named by the first of them.
fn sub_mesh(mesh: &Mesh, manual: &BTreeSet<String>) -> Result<Mesh> {
    let keep: Vec<usize> = (0..mesh.axis_names().len())
        .filter(|&i| manual.contains(&mesh.axis_names()[i]))
        .collect();
    let names: Vec<String> = keep.iter().map(|&i| mesh.axis_names()[i].clone()).collect();
    let shape: Vec<usize> = keep.iter().map(|&i| mesh.shape()[i]).collect();
    let n: usize = shape.iter().product();
    let mut ids = Vec::with_capacity(n);
    for k in 0..n {
        // The manual coordinates of sub-position k, the others at 0.
        let mut coords = vec![0; mesh.shape().len()];
        let mut rest = k;
        for (j, &i) in keep.iter().enumerate().rev() {
            coords[i] = rest % shape[j];
            rest /= shape[j];
        }
        ids.push(mesh.device_ids()[mesh.position(&coords)]);
    }
    // Auto axes: JAX splits an argument by in_specs here whatever its
    // sharding over explicit axes says (which `local_arg` checks).
    Mesh::with_device_ids(&names, &shape, ids)
}

/// An argument as the sub-mesh map takes it: unplaced, as long as nothing
/// splits it over the non-manual axes.
fn local_arg(o: &Obj, manual: &BTreeSet<String>) -> Result<Obj> {
    let placement = match o {
        Obj::Array(Value::Concrete(a)) => a.placement().cloned(),
        Obj::Array(Value::Traced(t)) => crate::trace::tracer_placement(t)?.map(|p| (*p).clone()),
        _ => None,
    };
    if let Some(Placement::Named(s)) = &placement {
        if s.spec.used_axes().iter().any(|x| !manual.contains(*x)) {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: a shard_map manual over some mesh axes of an argument split over the others"
            )
        }
    }
    Ok(match o {
        Obj::Array(Value::Concrete(a)) => {
            Obj::Array(Value::Concrete(a.clone().with_placement(None)))
        }
        o => o.clone(),
    })
}

/// A result of the sub-mesh map placed on the whole mesh. Over a mesh with
/// explicit axes JAX's sharding comes from the result's type, which names
/// every dimension.
fn placed_out(o: &Obj, mesh: &Mesh) -> Result<Obj> {
    let Obj::Array(Value::Concrete(a)) = o else {
        return Ok(o.clone());
    };
    let Some(Placement::Named(s)) = a.placement() else {
        return Ok(o.clone());
    };
    let mut entries = s.spec.entries().to_vec();
    if mesh.axis_types().contains(&AxisType::Explicit) {
        entries.resize(a.ndim(), None);
    }
    let spec = PartitionSpec::new(entries);
    let p = Placement::Named(NamedSharding::new(mesh.clone(), spec).in_memory(s.memory_kind));
    Ok(Obj::Array(Value::Concrete(
        a.clone().with_placement(Some(Arc::new(p))),
    )))
}

/// Runs a map manual over `manual` only (a strict, non-empty subset of
/// the mesh's axes): `run` is the ordinary map, called on the sub-mesh.
pub fn call(
    interp: &mut Interp,
    mesh: &Mesh,
    manual: &BTreeSet<String>,
    specs: (&Obj, &Obj),
    check_vma: bool,
    call: Args,
    run: impl FnOnce(&mut Interp, &Mesh, Args) -> Result<Obj>,
) -> Result<Obj> {
    if let Some(a) = manual.iter().find(|a| mesh.axis(a).is_err()) {
        return Err(err!(
            ValueError,
            "shard_map axis_names contains {a}, which is not an axis of the mesh {}",
            mesh.text()
        ));
    }
    if !check_vma {
        // JAX 0.10.2 then refuses the out_specs with an error naming a
        // non-manual axis they do not mention, a rule not modelled here.
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: a shard_map manual over some mesh axes with check_vma=False"
        );
    }
    check_specs(specs.0, manual, "in_specs")?;
    check_specs(specs.1, manual, "out_specs")?;
    let sub = sub_mesh(mesh, manual)?;
    let pos = call
        .pos
        .iter()
        .map(|o| {
            let (leaves, def) = flatten_known(o)?;
            let local: Vec<Obj> = leaves
                .iter()
                .map(|l| local_arg(l, manual))
                .collect::<Result<_>>()?;
            unflatten_known(&def, &local)
        })
        .collect::<Result<Vec<Obj>>>()?;
    let out = run(interp, &sub, Args::with(pos, call.kw))
        .map_err(|e| whole_mesh(unbound(e, mesh), &sub, mesh))?;
    let (leaves, def) = flatten_known(&out)?;
    let placed: Vec<Obj> = leaves
        .iter()
        .map(|l| placed_out(l, mesh))
        .collect::<Result<_>>()?;
    unflatten_known(&def, &placed)
}

/// JAX's words for a collective over a mesh axis the map is not manual
/// over: the body cannot name it.
fn unbound(e: crate::error::Error, mesh: &Mesh) -> crate::error::Error {
    if e.kind != crate::error::ErrorKind::NameError {
        return e;
    }
    let named = e
        .message
        .strip_prefix("unbound axis name: ")
        .and_then(|m| m.split('.').next())
        .filter(|a| mesh.axis(a).is_ok())
        .map(str::to_string);
    match named {
        Some(a) => err!(
            NameError,
            "Found an unbound axis name: {a}. To fix this, please call pvary under `jax.shard_map`."
        ),
        None => e,
    }
}

/// An error that describes the sub-mesh describes, as JAX's does, the mesh
/// the map was given.
fn whole_mesh(mut e: crate::error::Error, sub: &Mesh, mesh: &Mesh) -> crate::error::Error {
    let text = |m: &Mesh| {
        format!(
            "The mesh given has shape {} with corresponding axis names {}.",
            crate::array::fmt_shape(m.shape()),
            crate::mesh::fmt_names(m.axis_names())
        )
    };
    e.message = e.message.replace(&text(sub), &text(mesh));
    e
}
