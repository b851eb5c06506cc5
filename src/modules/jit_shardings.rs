//! Where a jitted function's inputs and outputs live, as JAX 0.10.2 decides.
//!
//! Inputs: a committed array (one placed by `device_put` or computed from
//! one) keeps its placement; `in_shardings` places uncommitted inputs and
//! must agree with committed ones. Every input the program uses must live on
//! the same devices, else the call fails as JAX's does.
//!
//! Outputs: the input placements run through the traced program equation by
//! equation with the eager sharding rules (`primitives::placement`); an
//! output that depends on no placed input is replicated over the devices of
//! the computation (`P()` on its mesh, or its one device); `out_shardings`
//! overrides both.
//!
//! JAX types shardings over explicit mesh axes into the avals of the traced
//! program, while an `in_shardings` annotation of an uncommitted input only
//! guides XLA's propagation. The rules spell the two differently (see
//! `primitives::placement`), so such an input is propagated over the same
//! mesh with `Auto` axes and its results get the real mesh back.

use std::sync::Arc;

use crate::error::Result;
use crate::ir::Jaxpr;
use crate::mesh::{AxisType, Mesh};
use crate::primitives::placement::respelled;
use crate::primitives::{JitParams, Prim};
use crate::sharding::{NamedSharding, Placement};
use crate::trace::Value;
use crate::{bail, err};

use crate::python::format::repr_of;
use crate::python::interp::Interp;
use crate::python::ops::iterate;
use crate::python::pytree::TreeDef;
use crate::python::value::Obj;

use super::sharding::context::context_mesh;
use super::sharding::placed::{aval_text, sharding_obj, SingleDeviceSharding};

/// The placements a jitted call's program sees for its inputs.
pub struct Inputs {
    /// One per dynamic leaf.
    pub placements: Vec<Option<Arc<Placement>>>,
    /// Meshes given `Auto` axes for propagation, with the real ones.
    restore: Vec<(Mesh, Mesh)>,
}

/// Whether `o` is a leaf of an `in_shardings`/`out_shardings` tree.
fn is_leaf(o: &Obj) -> bool {
    matches!(o, Obj::None)
        || o.downcast::<super::sharding::NamedSharding>().is_some()
        || o.downcast::<crate::sharding::PartitionSpec>().is_some()
        || o.downcast::<SingleDeviceSharding>().is_some()
}

/// The Python class of a pytree node, as JAX's messages name it.
fn node_class(def: &TreeDef) -> String {
    match def {
        TreeDef::Tuple(_) => "tuple".into(),
        TreeDef::List(_) => "list".into(),
        TreeDef::Dict(_) => "dict".into(),
        TreeDef::None => "NoneType".into(),
        TreeDef::Leaf => "jaxlib._jax.ArrayImpl".into(),
        TreeDef::Node(kind, _) => {
            let t = kind.type_repr();
            t.trim_start_matches("<class '")
                .trim_end_matches("'>")
                .to_string()
        }
    }
}

/// Broadcasts the prefix tree `prefix` (named `what`, at key path `path`)
/// onto `full`: one sharding leaf per leaf of `full`, or JAX's mismatch
/// error.
fn broadcast(
    prefix: &Obj,
    full: &TreeDef,
    what: &str,
    path: &str,
    out: &mut Vec<Obj>,
) -> Result<()> {
    if is_leaf(prefix) {
        out.extend(std::iter::repeat_n(prefix.clone(), full.num_leaves()));
        return Ok(());
    }
    let mismatch = |detail: String| {
        err!(
            ValueError,
            "Mismatch details (1 found):\npytree structure error: {detail}"
        )
    };
    let kind = match prefix {
        Obj::Tuple(_) => "tuple",
        Obj::List(_) => "list",
        Obj::Dict(_) => "dict",
        other => bail!(
            TypeError,
            "{what} leaves must be shardings, PartitionSpecs or None, got {}",
            other.type_name()
        ),
    };
    if kind != node_class(full) {
        return Err(mismatch(format!(
            "different types at key path\n    {what}{path}\nAt that key path, the prefix pytree {what} has a subtree of type\n    <class '{kind}'>\nbut at the same key path the full pytree has a subtree of different type\n    <class '{}'>.",
            node_class(full)
        )));
    }
    match full {
        TreeDef::Tuple(c) | TreeDef::List(c) => {
            let items = iterate(prefix)?;
            if items.len() != c.len() {
                return Err(mismatch(format!(
                    "different lengths of {kind} at key path\n    {what}{path}\nAt that key path, the prefix pytree {what} has a subtree of type {kind} of length {}, but the full pytree has a subtree of the same type but of length {}.",
                    items.len(),
                    c.len()
                )));
            }
            for (i, (p, t)) in items.iter().zip(c).enumerate() {
                broadcast(p, t, what, &format!("{path}[{i}]"), out)?;
            }
        }
        TreeDef::Dict(c) => {
            let Obj::Dict(d) = prefix else {
                return Ok(());
            };
            let d = d.borrow();
            for (k, t) in c {
                let p = d.get(k).ok_or_else(|| {
                    mismatch(format!(
                        "different pytree keys at key path\n    {what}{path}"
                    ))
                })?;
                broadcast(&p, t, what, &format!("{path}[{}]", repr_of(k)), out)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// A sharding leaf as a placement (None for `None`); a bare
/// `PartitionSpec` needs the context mesh.
fn resolve(interp: &mut Interp, leaf: &Obj, which: &str) -> Result<Option<Placement>> {
    if let Some(ns) = leaf.downcast::<super::sharding::NamedSharding>() {
        return Ok(Some(ns.placement()));
    }
    if let Some(sd) = leaf.downcast::<SingleDeviceSharding>() {
        return Ok(Some(Placement::Device(sd.0)));
    }
    if let Some(spec) = leaf.downcast::<crate::sharding::PartitionSpec>() {
        let Some(mesh) = context_mesh(interp) else {
            bail!(
                RuntimeError,
                "jit requires a non-empty mesh in context if you are passing `PartitionSpec`s to {which}. You can define a context mesh via `jax.set_mesh(mesh)`. Alternatively, provide `Sharding`s to {which} and then the mesh context manager is not required."
            );
        };
        return Ok(Some(Placement::Named(NamedSharding::new(
            (*mesh).clone(),
            spec.clone(),
        ))));
    }
    Ok(None)
}

/// The repr of a placement's sharding object.
fn sharding_text(p: &Placement) -> String {
    repr_of(&sharding_obj(p))
}

/// Checks a sharding annotation against a value's shape, as JAX does for
/// `in_shardings` (`kind` "arguments") and `out_shardings` ("outputs").
fn check_annotation(p: &Placement, shape: &[usize], kind: &str, name: &str) -> Result<()> {
    let Placement::Named(s) = p else {
        return Ok(());
    };
    let n = s.spec.entries().len();
    if n > shape.len() {
        let text = sharding_text(p);
        bail!(
            ValueError,
            "One of pjit {kind} with pytree key path {name} is incompatible with its sharding annotation {text}: Sharding {text} is only valid for values of rank at least {n}, but was applied to a value of rank {}.",
            shape.len()
        );
    }
    s.shard_shape(shape)?;
    Ok(())
}

/// Whether two placements lay an array out the same way (specs compare
/// without their trailing `None`s).
fn same_layout(a: &Placement, b: &Placement) -> bool {
    let trimmed = |s: &NamedSharding| {
        let mut e = s.spec.entries().to_vec();
        while e.last() == Some(&None) {
            e.pop();
        }
        e
    };
    match (a, b) {
        (Placement::Named(x), Placement::Named(y)) => x.mesh == y.mesh && trimmed(x) == trimmed(y),
        _ => a == b,
    }
}

/// The mesh with every axis `Auto`.
fn auto_mesh(m: &Mesh) -> Result<Mesh> {
    m.clone()
        .with_axis_types(vec![AxisType::Auto; m.shape().len()])
}

/// One `in_shardings` leaf per dynamic leaf (none without `in_shardings`):
/// a prefix of the positional arguments `pos_defs`, as JAX requires.
fn in_annotations(
    in_shardings: Option<&Obj>,
    pos_defs: &[TreeDef],
    has_kwargs: bool,
) -> Result<Vec<Obj>> {
    let mut annotations = vec![];
    if let Some(prefix) = in_shardings {
        if has_kwargs {
            bail!(
                ValueError,
                "pjit does not support kwargs when in_shardings is specified."
            );
        }
        if matches!(prefix, Obj::Tuple(_) | Obj::List(_)) {
            let items = iterate(prefix)?;
            if items.len() != pos_defs.len() {
                bail!(
                    ValueError,
                    "pjit in_shardings specification must be a tree prefix of the positional arguments tuple. In particular, pjit in_shardings must either be a Sharding, a PartitionSpec, or a tuple of length equal to the number of positional arguments. But pjit in_shardings is the wrong length: got a tuple or list of length {} for an args tuple of length {}.",
                    items.len(),
                    pos_defs.len()
                );
            }
            for (i, (p, d)) in items.iter().zip(pos_defs).enumerate() {
                broadcast(
                    p,
                    d,
                    "pjit in_shardings",
                    &format!("[{i}]"),
                    &mut annotations,
                )?;
            }
        } else {
            for d in pos_defs {
                broadcast(prefix, d, "pjit in_shardings", "", &mut annotations)?;
            }
        }
    }
    Ok(annotations)
}

/// The placements of a call's dynamic leaves `vals` (named `names`), from
/// their own and from `in_shardings` (a prefix of the positional
/// arguments `pos`, which are `pos_defs`).
pub fn in_placements(
    interp: &mut Interp,
    in_shardings: Option<&Obj>,
    pos_defs: &[TreeDef],
    has_kwargs: bool,
    vals: &[Value],
    names: &[String],
) -> Result<Inputs> {
    let annotations = in_annotations(in_shardings, pos_defs, has_kwargs)?;
    let mut inputs = Inputs {
        placements: vec![],
        restore: vec![],
    };
    for (i, v) in vals.iter().enumerate() {
        let own = match v {
            Value::Concrete(a) => a.placement_rc(),
            Value::Traced(_) => None,
        };
        let annotation = match annotations.get(i) {
            Some(leaf) => resolve(interp, leaf, "in_shardings")?,
            None => None,
        };
        let placed = match (own, annotation) {
            (own, None) => own,
            (Some(own), Some(a)) => {
                check_annotation(&a, &v.shape(), "arguments", &names[i])?;
                if !same_layout(&own, &a) {
                    bail!(
                        ValueError,
                        "Sharding passed to jit does not match the sharding on the respective arg. Got jit sharding: {},\narg sharding: {} for arg type: {}",
                        sharding_text(&a),
                        sharding_text(&own),
                        aval_text(&v.shape(), v.dtype(), Some(&own))
                    );
                }
                Some(own)
            }
            (None, Some(a)) => {
                check_annotation(&a, &v.shape(), "arguments", &names[i])?;
                match typed_replicated(interp, v) {
                    Some(p) => Some(Arc::new(p)),
                    None => Some(Arc::new(inputs.untyped(a)?)),
                }
            }
        };
        let placed = placed.or_else(|| typed_replicated(interp, v).map(Arc::new));
        inputs.placements.push(placed);
    }
    Ok(inputs)
}

/// Under a context mesh with explicit axes JAX types an uncommitted array
/// input as replicated over that mesh (`P(None, ...)`), whatever
/// `in_shardings` says.
fn typed_replicated(interp: &mut Interp, v: &Value) -> Option<Placement> {
    if !matches!(v, Value::Concrete(a) if a.placement().is_none()) {
        return None;
    }
    let mesh = context_mesh(interp)?;
    if !mesh.axis_types().contains(&AxisType::Explicit) {
        return None;
    }
    let spec = crate::sharding::PartitionSpec::new(vec![None; v.ndim()]);
    Some(Placement::Named(NamedSharding::new((*mesh).clone(), spec)))
}

impl Inputs {
    /// An annotation of an uncommitted input: over explicit axes, JAX
    /// treats it as XLA's propagation would, so it is propagated over
    /// `Auto` axes.
    fn untyped(&mut self, p: Placement) -> Result<Placement> {
        let Placement::Named(s) = p else {
            return Ok(p);
        };
        if !s.mesh.axis_types().contains(&AxisType::Explicit) {
            return Ok(Placement::Named(s));
        }
        let auto = auto_mesh(&s.mesh)?;
        if !self.restore.iter().any(|(a, _)| *a == auto) {
            self.restore.push((auto.clone(), s.mesh.clone()));
        }
        Ok(Placement::Named(NamedSharding::new(auto, s.spec)))
    }

    /// A propagated placement with its real mesh.
    fn restored(&self, p: Arc<Placement>) -> Arc<Placement> {
        if let Placement::Named(s) = &*p {
            if let Some((_, real)) = self.restore.iter().find(|(a, _)| *a == s.mesh) {
                return Arc::new(Placement::Named(NamedSharding::new(
                    real.clone(),
                    s.spec.clone(),
                )));
            }
        }
        p
    }
}

/// The devices a placement occupies, in its order.
fn device_ids(p: &Placement) -> Option<Vec<usize>> {
    match p {
        Placement::Named(s) => Some(s.mesh.device_ids().to_vec()),
        Placement::Device(d) => Some(vec![*d]),
        Placement::Unknown(_) => None,
    }
}

/// For each input of `jaxpr`, whether the program needs it: JAX drops the
/// others before choosing devices (unless `keep_unused`).
pub fn used_inputs(jaxpr: &Jaxpr) -> Vec<bool> {
    let l = jaxpr.liveness(|eqn, used| used || has_effect(&eqn.prim));
    jaxpr.invars.iter().map(|v| l.live.contains(v)).collect()
}

/// Whether an equation must run though nothing reads its outputs.
fn has_effect(prim: &Prim) -> bool {
    match prim {
        Prim::DebugPrint(_) => true,
        Prim::HostCallback(h) => h.has_effect(),
        Prim::Jit(j) => j.body.eqns.iter().any(|e| has_effect(&e.prim)),
        _ => false,
    }
}

/// JAX's error when the inputs a program uses, and the targets of the
/// `device_put`s inside it, live on different devices.
pub fn check_devices(
    fun: &str,
    names: &[String],
    vals: &[Value],
    inputs: &Inputs,
    used: &[bool],
    body: &Jaxpr,
) -> Result<()> {
    let placed: Vec<&Placement> = (inputs.placements.iter())
        .zip(used.iter().chain(std::iter::repeat(&true)))
        .filter(|(_, u)| **u)
        .filter_map(|(p, _)| p.as_deref())
        .collect();
    crate::primitives::placement::same_abstract_mesh(&placed)?;
    // Each: the devices, what holds them, and where (for a device_put).
    let mut all: Vec<(Vec<usize>, String, String)> = vec![];
    for (i, p) in inputs.placements.iter().enumerate() {
        if !used.get(i).copied().unwrap_or(true) {
            continue;
        }
        let Some(ids) = p.as_deref().and_then(device_ids) else {
            continue;
        };
        let real = inputs.placements[i].clone().map(|p| inputs.restored(p));
        let what = format!(
            "argument {} of {fun} with shape {} and",
            names[i],
            aval_text(&vals[i].shape(), vals[i].dtype(), real.as_deref()),
        );
        all.push((ids, what, String::new()));
    }
    put_devices(body, &mut all);
    let Some((first_ids, first, first_at)) = all.first() else {
        return Ok(());
    };
    if let Some((ids, what, at)) = all.iter().find(|(ids, ..)| ids != first_ids) {
        bail!(
            ValueError,
            "Received incompatible devices for jitted computation. Got {first} with device ids {first_ids:?} on platform CPU{first_at} and {what} with device ids {ids:?} on platform CPU{at}"
        );
    }
    Ok(())
}

/// The devices of every `device_put` target inside `jaxpr`, in program
/// order, each described as JAX's message describes it.
fn put_devices(jaxpr: &Jaxpr, out: &mut Vec<(Vec<usize>, String, String)>) {
    for eqn in &jaxpr.eqns {
        if let Prim::DevicePut(d) = &eqn.prim {
            let at = eqn
                .source
                .as_ref()
                .map(|s| format!(" at {}", s.summarize()))
                .unwrap_or_default();
            for ids in d.targets.iter().filter_map(|t| t.device_ids()) {
                out.push((ids, "device_put inside jit".into(), at.clone()));
            }
        }
        for sub in eqn.prim.sub_jaxprs() {
            put_devices(sub, out);
        }
    }
}

/// The placements of a program's outputs (see the module docs); `used`
/// says which inputs decide the devices of the computation.
pub fn out_placements(
    program: &JitParams,
    inputs: &Inputs,
    used: &[bool],
) -> Result<Vec<Option<Arc<Placement>>>> {
    let mut all = inputs.placements.clone();
    all.resize(program.body.invars.len(), None);
    let outs = crate::primitives::placement::propagate_jaxpr(&program.body, &all)?;
    let home = inputs
        .placements
        .iter()
        .zip(used)
        .filter(|(_, &u)| u)
        .find_map(|(p, _)| match p.as_deref() {
            Some(Placement::Named(s)) => Some(Placement::Named(NamedSharding::new(
                s.mesh.clone(),
                crate::sharding::PartitionSpec::replicated(),
            ))),
            Some(Placement::Device(d)) => Some(Placement::Device(*d)),
            _ => None,
        })
        .map(|p| inputs.restored(Arc::new(p)));
    let used_inputs = used_inputs_of(program, inputs, used);
    Ok(outs
        .into_iter()
        .zip(program.body.out_avals())
        .map(|(p, aval)| match p {
            Some(p) => Some(inputs.restored(respelled(p, aval.shape.len(), &used_inputs))),
            None => home.clone(),
        })
        .collect())
}

/// The shapes and placements of the inputs that decide the computation.
fn used_inputs_of(
    program: &JitParams,
    inputs: &Inputs,
    used: &[bool],
) -> Vec<(Vec<usize>, Option<Arc<Placement>>)> {
    inputs
        .placements
        .iter()
        .zip(program.body.in_avals())
        .zip(used)
        .filter(|(_, &u)| u)
        .map(|((p, aval), _)| (aval.shape, p.clone()))
        .collect()
}

/// An output the sharding rules left open, placed `p` by the partitioner,
/// spelled as JAX spells every output: after the first input when laid
/// out alike (see [`respelled`]).
pub fn respell_open(
    p: Arc<Placement>,
    ndim: usize,
    program: &JitParams,
    inputs: &Inputs,
    used: &[bool],
) -> Arc<Placement> {
    inputs.restored(respelled(p, ndim, &used_inputs_of(program, inputs, used)))
}

/// The placements `out_shardings` gives a call's output leaves (None where
/// it leaves the propagated one), for outputs `out_def` of `shapes`.
pub fn out_annotations(
    interp: &mut Interp,
    out_shardings: &Obj,
    out_def: &TreeDef,
    shapes: &[Vec<usize>],
) -> Result<Vec<Option<Arc<Placement>>>> {
    let mut leaves = vec![];
    broadcast(
        out_shardings,
        out_def,
        "pjit out_shardings",
        "",
        &mut leaves,
    )?;
    let names = key_paths(out_def, "result");
    leaves
        .iter()
        .zip(shapes)
        .zip(&names)
        .map(|((leaf, shape), name)| {
            let p = resolve(interp, leaf, "out_shardings")?;
            if let Some(p) = &p {
                check_annotation(p, shape, "outputs", name)?;
            }
            Ok(p.map(Arc::new))
        })
        .collect()
}

/// The key path of every leaf of `def`, each starting with `base`, as JAX
/// names arguments in its messages: `p['u']`, `q[0]`.
pub fn key_paths(def: &TreeDef, base: &str) -> Vec<String> {
    def.leaf_paths(base)
}
