//! The SPMD partitioner: a global program on sharded arrays becomes one
//! per-device program with explicit collectives, run on the fabric.
//!
//! This is how computation follows sharding. When a jitted function (or a
//! single operation) is applied at top level to arrays placed on a mesh,
//! shardlab does what XLA's partitioner does for JAX:
//!
//! 1. the global program's inputs keep the layouts they have (an unplaced
//!    array counts as replicated);
//! 2. equation by equation, each family's rule (`lower`) emits the
//!    per-device equations for its blocks, moving operands between layouts
//!    with real collectives (`layout`) where the result's layout needs it:
//!    a sum over a split dimension becomes a local sum and a `psum`, a
//!    contraction over a split dimension a local product and a `psum` (or a
//!    `psum_scatter`), a change of split an `all_to_all` or an `all_gather`;
//! 3. the per-device program is a shard_map body (shard_map is the manual
//!    mode of the same machinery), so it runs on every device with the
//!    existing evaluator, in lockstep or in parallel, and its collectives and
//!    blocks are recorded in the run report under the kind `jit`.
//!
//! Each result is placed where the partitioner left it. Where the families'
//! sharding rules fix a result's sharding (all of them, over explicit
//! axes), that is the rule's; where they leave it to the compiler (auto
//! axes: a contraction over a split dimension, a family without a rule),
//! it is shardlab's choice, which moves the least data: a contraction keeps
//! its operands' free splits, and the other families gather their operands
//! whole and return a replicated result.
//!
//! The values are what the global program computes, up to the order in
//! which partial sums are added, which is the order JAX's CPU backend
//! uses too: each device's block first, then across devices.
//!
//! Programs the partitioner does not take run on whole arrays as before:
//! ones that contain their own shard_map, pmap, `jax.debug.print` or
//! `jax.device_put`, and arrays over more than one mesh.

mod layout;
mod lower;
pub mod partials;
mod shape;

use std::sync::Arc;

use crate::array::Array;
use crate::error::Result;
use crate::ir::{Atom, Aval, Eqn, Jaxpr, Var};
use crate::mesh::Mesh;
use crate::primitives::{MapKind, Prim, ShardMapParams};
use crate::sharding::{NamedSharding, PartitionSpec, Placement};
use crate::trace::Value;

use layout::{fit, whole, Layout};
use lower::{Local, Wanted};

/// Runs a jitted program's `body` on `args` partitioned over their mesh, or
/// None when the partitioner does not take it (see the module docs).
pub fn run_jit(body: &Jaxpr, args: &[Array]) -> Result<Option<Vec<Array>>> {
    match per_device(body, args)? {
        Some(params) => run(&params, args, Some("jit")).map(Some),
        None => Ok(None),
    }
}

/// The per-device program of a jitted program's `body` on `args` (placed
/// arrays), without running it: what `compile().as_text()` shows. None
/// when the partitioner does not take it.
pub fn per_device(body: &Jaxpr, args: &[Array]) -> Result<Option<ShardMapParams>> {
    let placements: Vec<Option<&Placement>> = args.iter().map(Array::placement).collect();
    let Some(mesh) = common_mesh(&placements) else {
        return Ok(None);
    };
    if !partitionable(body) {
        return Ok(None);
    }
    partition(&mesh, body, &placements).map(Some)
}

/// Applies one primitive at top level to `args` partitioned over their
/// mesh, or None when the partitioner does not take it.
pub fn eager(prim: &Prim, args: &[Array]) -> Result<Option<Vec<Array>>> {
    if let Prim::Jit(j) = prim {
        return run_jit(&j.body, args);
    }
    let placements: Vec<Option<&Placement>> = args.iter().map(Array::placement).collect();
    let Some(mesh) = common_mesh(&placements) else {
        return Ok(None);
    };
    // A top-level `reshard` moves data between the devices of its own mesh
    // because the program asked for it, so it runs there and is recorded;
    // a sharding constraint outside jit only labels its result.
    let reshard =
        matches!(prim, Prim::ShardingConstraint(c) if c.reshard && c.sharding.mesh == mesh);
    let other_constraint = matches!(prim, Prim::ShardingConstraint(_)) && !reshard;
    if prim.needs_evaluator() || other_constraint || matches!(prim, Prim::DevicePut(_)) {
        return Ok(None);
    }
    let in_avals: Vec<Aval> = args.iter().map(Aval::of).collect();
    let out_avals = prim.abstract_eval(&in_avals, &Default::default())?;
    let n = in_avals.len();
    let invars: Vec<Var> = (0..n).map(|i| Var(i as u32)).collect();
    let outvars: Vec<Var> = (n..n + out_avals.len()).map(|i| Var(i as u32)).collect();
    let jaxpr = Jaxpr {
        avals: in_avals.into_iter().chain(out_avals).collect(),
        invars: invars.clone(),
        eqns: vec![Eqn {
            prim: prim.clone(),
            inputs: invars.into_iter().map(Atom::Var).collect(),
            outputs: outvars.clone(),
            source: crate::trace::current_source(),
            called_as: None,
        }],
        outvars: outvars.into_iter().map(Atom::Var).collect(),
    };
    let params = partition(&mesh, &jaxpr, &placements)?;
    run(&params, args, reshard.then_some("reshard")).map(Some)
}

/// JAX's refusal to run one computation on arguments committed to
/// different devices (a `device_put` to one mesh or device, and another):
/// the devices of every committed argument, in order, must be the same.
/// `names` are the arguments' names, where known.
pub fn check_devices(fun: &str, names: &[&str], args: &[Array]) -> Result<()> {
    let devices = |p: &Placement| -> Option<Vec<usize>> {
        match p {
            Placement::Named(s) => Some(s.mesh.device_ids().to_vec()),
            Placement::Device(d) => Some(vec![*d]),
            Placement::Unknown(_) => None,
        }
    };
    let placed: Vec<&Placement> = args.iter().filter_map(Array::placement).collect();
    crate::primitives::placement::same_abstract_mesh(&placed)?;
    let mut first: Option<(usize, Vec<usize>)> = None;
    for (i, a) in args.iter().enumerate() {
        let Some(ids) = a.placement().and_then(devices) else {
            continue;
        };
        match &first {
            None => first = Some((i, ids)),
            Some((j, seen)) if *seen != ids => {
                let describe = |k: usize, ids: &[usize]| {
                    format!(
                        "argument {} of {fun} with shape {} and with device ids {ids:?} on platform CPU",
                        names.get(k).copied().unwrap_or(""),
                        short_type(&args[k])
                    )
                };
                crate::bail!(
                    ValueError,
                    "Received incompatible devices for jitted computation. Got {} and {}",
                    describe(*j, seen),
                    describe(i, &ids)
                );
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// An array's type as JAX's `aval.str_short()` spells it: `float32[8@x]`.
fn short_type(a: &Array) -> String {
    crate::sharding::aval_text(a.shape(), a.dtype(), a.placement())
}

/// A result `a` placed where the sharding rules say (`p`), or, where they
/// leave it open, where the partitioner left it (see the module docs).
pub fn placed(a: Array, p: Option<Arc<Placement>>) -> Array {
    let open = matches!(p.as_deref(), Some(Placement::Unknown(_)));
    if open && matches!(a.placement(), Some(Placement::Named(_))) {
        return a;
    }
    a.with_placement(p)
}

/// The mesh all placed arguments live on, when at least one is split over
/// a mesh of more than one device and none lives elsewhere.
fn common_mesh(placements: &[Option<&Placement>]) -> Option<Mesh> {
    let mut mesh: Option<&Mesh> = None;
    let mut split = false;
    for p in placements.iter().flatten() {
        match p {
            Placement::Named(s) => {
                if mesh.is_some_and(|m| *m != s.mesh) {
                    return None;
                }
                mesh = Some(&s.mesh);
                split |= !s.spec.used_axes().is_empty();
            }
            Placement::Device(_) | Placement::Unknown(_) => return None,
        }
    }
    mesh.filter(|m| split && m.size() > 1).cloned()
}

/// Whether every equation of `jaxpr` (and of the programs inside it) can be
/// partitioned: no manual map, pmap, collective, debug print or device_put
/// of its own.
fn partitionable(jaxpr: &Jaxpr) -> bool {
    jaxpr.eqns.iter().all(|e| {
        let own = match &e.prim {
            // A device_put may leave the mesh of the arguments.
            Prim::ShardMap(_)
            | Prim::Collective(_)
            | Prim::DebugPrint(_)
            | Prim::DevicePut(_)
            | Prim::HostCallback(_) => false,
            Prim::Map(m) => m.kind == MapKind::Vmap,
            _ => true,
        };
        own && e.prim.sub_jaxprs().into_iter().all(partitionable)
    })
}

/// The per-device program of `jaxpr` over `mesh`, as a shard_map whose
/// in_specs are the arguments' layouts.
fn partition(
    mesh: &Mesh,
    jaxpr: &Jaxpr,
    placements: &[Option<&Placement>],
) -> Result<ShardMapParams> {
    // What nothing uses would only add collectives (see `ir::dead`).
    let jaxpr = &jaxpr.without_dead_code();
    let in_avals = jaxpr.in_avals();
    let layouts: Vec<Layout> = in_avals
        .iter()
        .zip(placements)
        .map(|(aval, p)| match p {
            Some(Placement::Named(s)) => fit(mesh, s.spec.entries().to_vec(), &aval.shape),
            _ => whole(aval.shape.len()),
        })
        .collect();
    let in_specs: Vec<PartitionSpec> = layouts.iter().cloned().map(PartitionSpec::new).collect();
    let local_avals: Vec<Aval> = in_avals
        .iter()
        .zip(&in_specs)
        .map(|(a, s)| {
            Ok(Aval {
                shape: s.shard_shape(mesh, &a.shape)?,
                dtype: a.dtype,
                vma: Default::default(),
                weak: a.weak,
            })
        })
        .collect::<Result<_>>()?;
    let frame = crate::trace::FrameAxes {
        axes: mesh
            .axis_names()
            .iter()
            .cloned()
            .zip(mesh.shape().iter().copied())
            .collect(),
        tracked: Default::default(),
        vmapped: false,
    };
    let out_specs = std::cell::RefCell::new(vec![]);
    let traced = crate::trace::trace(&local_avals, frame, |blocks| {
        let ins: Vec<Local> = blocks
            .iter()
            .zip(layouts)
            .zip(&in_avals)
            .map(|((b, layout), aval)| Local {
                value: b.clone(),
                layout,
                global: aval.shape.clone(),
            })
            .collect();
        let outs = lower_jaxpr(mesh, jaxpr, ins)?;
        *out_specs.borrow_mut() = outs
            .iter()
            .map(|l| PartitionSpec::new(l.layout.clone()))
            .collect();
        Ok(outs.into_iter().map(|l| l.value).collect())
    })?;
    Ok(ShardMapParams {
        mesh: mesh.clone(),
        in_specs,
        out_specs: out_specs.into_inner(),
        body: traced.jaxpr,
        check_vma: false,
        abstract_mesh: false,
        whole_mesh: None,
    })
}

/// Lowers every equation of `jaxpr` on the per-device values `ins`.
fn lower_jaxpr(mesh: &Mesh, jaxpr: &Jaxpr, ins: Vec<Local>) -> Result<Vec<Local>> {
    let mut env: Vec<Option<Local>> = vec![None; jaxpr.avals.len()];
    for (v, l) in jaxpr.invars.iter().zip(ins) {
        env[v.0 as usize] = Some(l);
    }
    let read =
        |env: &[Option<Local>], a: &Atom| -> Result<Local> {
            match a {
                Atom::Var(v) => env.get(v.0 as usize).cloned().flatten().ok_or_else(|| {
                    crate::err!(RuntimeError, "partitioner: unbound variable {v:?}")
                }),
                Atom::Lit(x) => Ok(Local {
                    value: Value::Concrete(x.clone().with_placement(None)),
                    layout: whole(x.ndim()),
                    global: x.shape().to_vec(),
                }),
            }
        };
    for eqn in &jaxpr.eqns {
        let ins: Vec<Local> = eqn
            .inputs
            .iter()
            .map(|a| read(&env, a))
            .collect::<Result<_>>()?;
        let outs: Vec<Vec<usize>> = eqn
            .outputs
            .iter()
            .map(|v| jaxpr.aval(*v).shape.clone())
            .collect();
        let wanted = wanted_layouts(mesh, &eqn.prim, &ins, &outs)?;
        let results =
            crate::trace::at_source(eqn, || lower::lower_eqn(mesh, eqn, &ins, &outs, &wanted))?;
        for (v, l) in eqn.outputs.iter().zip(results) {
            env[v.0 as usize] = Some(l);
        }
    }
    jaxpr.outvars.iter().map(|a| read(&env, a)).collect()
}

/// The layouts the family's sharding rule gives the results (None where
/// the rule leaves them open); the rule's errors (JAX's, for explicit
/// axes) are raised here.
fn wanted_layouts(
    mesh: &Mesh,
    prim: &Prim,
    ins: &[Local],
    outs: &[Vec<usize>],
) -> Result<Vec<Wanted>> {
    let placements: Vec<Placement> = ins
        .iter()
        .map(|l| {
            Placement::Named(NamedSharding::new(
                mesh.clone(),
                PartitionSpec::new(l.layout.clone()),
            ))
        })
        .collect();
    let operands: Vec<crate::primitives::placement::Operand> = ins
        .iter()
        .zip(&placements)
        .map(|(l, p)| crate::primitives::placement::Operand {
            shape: &l.global,
            dtype: l.value.dtype(),
            placement: Some(p),
        })
        .collect();
    let shapes: Vec<&[usize]> = outs.iter().map(Vec::as_slice).collect();
    let rule = crate::primitives::placement::rule(prim, &operands, &shapes)?;
    Ok(rule
        .into_iter()
        .map(|p| match p.as_deref() {
            Some(Placement::Named(s)) if s.mesh == *mesh => Some(s.spec.entries().to_vec()),
            _ => None,
        })
        .collect())
}

/// Runs the partitioned program on `args` (split by its in_specs on the
/// fabric) and assembles the global results. Only jitted programs and
/// top-level reshards appear in the run report (`record`, under that kind):
/// a single operation runs on the devices too, but listing every one would
/// bury the maps a person wrote.
fn run(
    params: &ShardMapParams,
    args: &[Array],
    record: Option<&'static str>,
) -> Result<Vec<Array>> {
    let args: Vec<Array> = args
        .iter()
        .map(|a| a.clone().with_placement(None))
        .collect();
    let kind = record.unwrap_or("jit");
    let outs = crate::exec::run_shard_map_as(params, &args, kind, record.is_some())?;
    Ok(outs
        .into_iter()
        .zip(&params.out_specs)
        .map(|(a, spec)| {
            let placed = NamedSharding::new(params.mesh.clone(), spelled(&params.mesh, spec));
            a.with_placement(Some(Arc::new(Placement::Named(placed))))
        })
        .collect())
}

/// A result's layout as JAX spells its sharding: in full over a mesh with
/// explicit axes (the sharding is part of the type), else as XLA reports
/// it, without trailing `None`s.
fn spelled(mesh: &Mesh, spec: &PartitionSpec) -> PartitionSpec {
    let mut entries = spec.entries().to_vec();
    if !mesh.axis_types().contains(&crate::mesh::AxisType::Explicit) {
        while entries.last() == Some(&None) {
            entries.pop();
        }
    }
    PartitionSpec::new(entries)
}
