//! Arrays that know where they live: `jax.device_put`, `x.sharding`,
//! `x.addressable_shards`, `SingleDeviceSharding` and `jax.typeof`.
//! Inside `jit`, `device_put` stages a `device_put` equation instead
//! (`primitives::device_put`).
//!
//! An array's data is always the whole global array; its placement (see
//! [`Placement`]) says how JAX would lay it out over devices, and each shard
//! is the block of the global array that placement gives a device. An array
//! nobody placed lives on device 0, as an uncommitted JAX array does.

use std::rc::Rc;
use std::sync::Arc;

use crate::array::Array;
use crate::error::Result;
use crate::mesh::{AxisType, Mesh};
use crate::primitives::{DevicePutParams, Prim, PutTarget};
use crate::python::array::to_value;
use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::pytree::{flatten_known, unflatten_known};
use crate::python::value::{Args, Obj};
use crate::sharding::{self, PartitionSpec, Placement};
use crate::trace::Value;
use crate::{bail, err};

use super::{context::context_mesh, Device, NamedSharding};

/// Where `a` lives. Unplaced arrays are on device 0, except under a context
/// mesh, where JAX would have placed a new array on that mesh: shardlab
/// does not track that yet, so asking fails rather than answer wrongly.
pub fn placement(interp: &mut Interp, a: &Array) -> Result<Placement> {
    match a.placement() {
        Some(Placement::Unknown(what)) => bail!(
            NotImplementedError,
            "not supported by shardlab yet: the sharding of the result of {what} on sharded arrays"
        ),
        Some(p) => Ok(p.clone()),
        None if context_mesh(interp).is_some() => bail!(
            NotImplementedError,
            "not supported by shardlab yet: the sharding of an array made under jax.set_mesh without device_put"
        ),
        None => Ok(Placement::Device(0)),
    }
}

/// The Python sharding object for a placement.
pub fn sharding_obj(p: &Placement) -> Obj {
    match p {
        Placement::Named(s) => Obj::lib(NamedSharding {
            mesh: Rc::new(s.mesh.clone()),
            spec: s.spec.clone(),
            memory_kind: s.memory_kind,
        }),
        Placement::Device(d) => Obj::lib(SingleDeviceSharding(*d)),
        // `placement` refuses unknown placements before anyone asks.
        Placement::Unknown(_) => Obj::lib(SingleDeviceSharding(0)),
    }
}

/// `jax.sharding.SingleDeviceSharding(device)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SingleDeviceSharding(pub usize);

impl Object for SingleDeviceSharding {
    fn type_name(&self) -> String {
        "SingleDeviceSharding".into()
    }

    fn getattr(&self, interp: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        let p = Placement::Device(self.0);
        Ok(match name {
            "device_set" => Some(device_set(interp, &[self.0])?),
            "memory_kind" => Some(Obj::str("device")),
            "num_devices" => Some(Obj::Int(1)),
            "is_fully_replicated" => Some(Obj::Bool(true)),
            "shard_shape" => Some(shard_shape_method(p)),
            _ => None,
        })
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some(format!(
            "SingleDeviceSharding(device=CpuDevice(id={}), memory_kind=device)",
            self.0
        ))
    }

    fn eq(&self, _: &Obj, other: &Obj) -> Option<bool> {
        Some(other.downcast::<SingleDeviceSharding>() == Some(self))
    }
}

/// `sharding.shard_shape(global_shape)`.
pub fn shard_shape_method(p: Placement) -> Obj {
    Obj::native("shard_shape", move |_, a| {
        let shape = shape_arg(&a.req(Some(0), "global_shape", "shard_shape")?)?;
        let out = match &p {
            Placement::Named(s) => s.shard_shape(&shape)?,
            _ => shape,
        };
        Ok(int_tuple(&out))
    })
}

pub fn shape_arg(o: &Obj) -> Result<Vec<usize>> {
    crate::python::ops::iterate(o)?
        .iter()
        .map(|d| crate::python::builtins::to_int(d).map(|d| d as usize))
        .collect()
}

fn int_tuple(v: &[usize]) -> Obj {
    Obj::tuple(v.iter().map(|&d| Obj::Int(d as i64)).collect())
}

/// A set of devices, as `sharding.device_set` and `x.devices()` return.
pub fn device_set(interp: &mut Interp, ids: &[usize]) -> Result<Obj> {
    let mut set = crate::python::set::Set::default();
    for &d in ids {
        set.add(Obj::lib(Device(d)))?;
    }
    let _ = interp;
    Ok(Obj::set(set))
}

/// The device ids holding any part of an array placed by `p`.
fn holder_ids(p: &Placement) -> Vec<usize> {
    match p {
        Placement::Named(s) => s.mesh.device_ids().to_vec(),
        Placement::Device(d) => vec![*d],
        Placement::Unknown(_) => vec![],
    }
}

/// One entry of `x.addressable_shards`.
pub struct Shard {
    device: usize,
    index: Vec<std::ops::Range<usize>>,
    replica_id: usize,
    data: Array,
    global_shape: Vec<usize>,
}

impl Object for Shard {
    fn type_name(&self) -> String {
        "Shard".into()
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        Ok(match name {
            "device" => Some(Obj::lib(Device(self.device))),
            "index" => Some(self.index_obj()),
            "replica_id" => Some(Obj::Int(self.replica_id as i64)),
            "data" => Some(Obj::Array(Value::Concrete(self.data.clone()))),
            _ => None,
        })
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some(format!(
            "Shard(device=CpuDevice(id={}), index={}, replica_id={}, data={})",
            self.device,
            crate::python::format::repr_of(&self.index_obj()),
            self.replica_id,
            crate::array::format::format_numpy(&self.data)
        ))
    }
}

impl Shard {
    /// The shard's index as JAX gives it: `slice(None)` for a dimension
    /// held whole, `slice(start, stop)` for a split one.
    fn index_obj(&self) -> Obj {
        super::make_array::index_obj(&self.index, &self.global_shape)
    }
}

/// Every device's shard of `a` under placement `p`, in mesh order.
pub fn shards(a: &Array, p: &Placement) -> Result<Vec<Shard>> {
    let s = match p {
        Placement::Named(s) => s,
        _ => {
            let full: Vec<_> = a.shape().iter().map(|&n| 0..n).collect();
            return Ok(vec![Shard {
                device: holder_ids(p).first().copied().unwrap_or(0),
                index: full,
                replica_id: 0,
                data: a.clone().with_placement(None),
                global_shape: a.shape().to_vec(),
            }]);
        }
    };
    let holders = s.holders(a.shape())?;
    let parts = match (s.spec.unreduced.is_empty(), a.partials()) {
        (true, _) => s.split(&a.clone().with_placement(None))?,
        (false, Some(parts)) => parts.to_vec(),
        (false, None) => bail!(
            NotImplementedError,
            "not supported by shardlab yet: the shards of an array unreduced over {} made this way",
            crate::sharding::py_frozenset(&s.spec.unreduced)
        ),
    };
    let mut out = vec![];
    for (pos, data) in parts.into_iter().enumerate() {
        let replica_id = holders
            .iter()
            .find_map(|h| h.iter().position(|&q| q == pos))
            .unwrap_or(0);
        out.push(Shard {
            device: s.mesh.device_ids()[pos],
            index: s.shard_slices(pos, a.shape())?,
            replica_id,
            data,
            global_shape: a.shape().to_vec(),
        });
    }
    Ok(out)
}

/// The attributes of a concrete array that say where it lives.
pub fn array_attr(interp: &mut Interp, a: &Array, name: &str) -> Result<Option<Obj>> {
    Ok(Some(match name {
        "sharding" => sharding_obj(&placement(interp, a)?),
        "addressable_shards" | "global_shards" => {
            let p = placement(interp, a)?;
            Obj::list(shards(a, &p)?.into_iter().map(Obj::lib).collect())
        }
        "is_fully_replicated" => Obj::Bool(placement(interp, a)?.is_fully_replicated(a.shape())?),
        "committed" => Obj::Bool(a.placement().is_some()),
        "devices" => {
            let ids = holder_ids(&placement(interp, a)?);
            Obj::native("devices", move |i, _| device_set(i, &ids))
        }
        _ => return Ok(None),
    }))
}

/// The placement a `device_put` target gives an array of `ndim` dimensions:
/// a `NamedSharding`, a `PartitionSpec` over the context mesh, a device, or
/// a `SingleDeviceSharding`.
fn target_placement(interp: &mut Interp, target: &Obj, shape: &[usize]) -> Result<Placement> {
    let named = |mesh: &Mesh, spec: &PartitionSpec, repr: String| -> Result<Placement> {
        spec.validate(mesh, shape.len()).map_err(|e| {
            if spec.entries.len() > shape.len() {
                err!(
                    ValueError,
                    "One of device_put args is incompatible with its sharding annotation {repr}: {}",
                    e.message
                )
            } else {
                e
            }
        })?;
        indivisible(mesh, spec, shape, &repr)?;
        Ok(Placement::Named(sharding::NamedSharding::new(
            mesh.clone(),
            spec.clone(),
        )))
    };
    if let Some(ns) = target.downcast::<NamedSharding>() {
        let p = named(&ns.mesh, &ns.spec, crate::python::format::repr_of(target))?;
        return Ok(match p {
            Placement::Named(s) => Placement::Named(s.in_memory(ns.memory_kind)),
            other => other,
        });
    }
    if let Some(spec) = target.downcast::<PartitionSpec>() {
        let Some(mesh) = context_mesh(interp) else {
            bail!(
                ValueError,
                "Please set a mesh via `jax.set_mesh` if a PartitionSpec is passed to device_put"
            );
        };
        let repr = format!(
            "NamedSharding(mesh={}, spec={spec}, memory_kind=device)",
            mesh.text()
        );
        return named(&mesh, spec, repr);
    }
    if let Some(d) = target.downcast::<Device>() {
        return Ok(Placement::Device(d.0));
    }
    if let Some(d) = target.downcast::<SingleDeviceSharding>() {
        return Ok(Placement::Device(d.0));
    }
    bail!(
        NotImplementedError,
        "not supported by shardlab yet: device_put to a {}",
        target.type_name()
    )
}

/// JAX's error for a dimension its axes do not split evenly: JAX 0.10.2
/// has no uneven shardings. Explicit axes, part of the array's type, are
/// checked first, with their own message.
fn indivisible(mesh: &Mesh, spec: &PartitionSpec, shape: &[usize], repr: &str) -> Result<()> {
    indivisible_explicit(mesh, spec, shape)?;
    uneven_tiling(mesh, spec, shape, repr)
}

/// JAX's error naming the sharding `repr`, its per-dimension tiling and the
/// first dimension it does not divide.
pub(super) fn uneven_tiling(
    mesh: &Mesh,
    spec: &PartitionSpec,
    shape: &[usize],
    repr: &str,
) -> Result<()> {
    let tiling: Vec<usize> = (0..shape.len())
        .map(|d| mesh.axes_size(spec.axes_of(d)))
        .collect::<Result<_>>()?;
    for (d, (&n, &t)) in shape.iter().zip(&tiling).enumerate() {
        if n % t != 0 {
            bail!(
                ValueError,
                "Sharding {repr} implies that array axis {d} is partitioned {t} times, but the dimension size is {n} (full shape: {}, per-dimension tiling factors: {:?} should evenly divide the shape)",
                crate::array::fmt_shape(shape),
                tiling
            );
        }
    }
    Ok(())
}

/// The explicit-axes half of [`indivisible`]: the spec as the array's type
/// would carry it (explicit axes only, one entry per dimension).
fn indivisible_explicit(mesh: &Mesh, spec: &PartitionSpec, shape: &[usize]) -> Result<()> {
    let explicit: Vec<Vec<String>> = (0..shape.len())
        .map(|d| {
            spec.axes_of(d)
                .iter()
                .filter(|a| mesh.axis_type(a).ok() == Some(AxisType::Explicit))
                .cloned()
                .collect()
        })
        .collect();
    for (d, (&n, axes)) in shape.iter().zip(&explicit).enumerate() {
        let t = mesh.axes_size(axes)?;
        if n % t == 0 {
            continue;
        }
        let names: Vec<String> = axes.iter().map(|a| format!("'{a}'")).collect();
        let tuple = match names.as_slice() {
            [one] => format!("({one},)"),
            many => format!("({})", many.join(", ")),
        };
        let typed = PartitionSpec::new(
            explicit
                .iter()
                .map(|a| (!a.is_empty()).then(|| a.clone()))
                .collect(),
        );
        bail!(
            ValueError,
            "Sharding spec {tuple} implies that array axis {d} is partitioned {t} times, but does not evenly divide the dimension size {n}. Got shape: {} and sharding NamedSharding(mesh={}, spec={typed})",
            crate::array::fmt_shape(shape),
            mesh.abstract_text()
        );
    }
    Ok(())
}

/// Places one leaf.
fn put_leaf(interp: &mut Interp, x: &Obj, target: &Obj) -> Result<Obj> {
    let v = to_value(x)?;
    let a = v.concrete("device_put")?;
    // Without a target the array keeps its placement, and an uncommitted
    // array stays uncommitted, as in JAX.
    let p = match target {
        Obj::None => return Ok(Obj::Array(Value::Concrete(a.clone()))),
        t => target_placement(interp, t, a.shape())?,
    };
    if let Placement::Named(s) = &p {
        if !s.spec.unreduced.is_empty() && a.placement().is_none() {
            bail!(
                NotImplementedError,
                "device_indices_map doesn't work with unreduced. Please file a bug at https://github.com/jax-ml/jax/issues"
            );
        }
    }
    let partials = match &p {
        Placement::Named(s) if !s.spec.unreduced.is_empty() => {
            crate::partition::partials::resharded(a, s)?
        }
        _ => None,
    };
    Ok(Obj::Array(Value::Concrete(
        a.clone()
            .with_placement(Some(Arc::new(p)))
            .with_partials(partials),
    )))
}

/// `jax.device_put(x, device=None)`: every leaf of `x` placed by `device`,
/// or by the matching leaf of a pytree of targets.
pub fn device_put(interp: &mut Interp, a: Args) -> Result<Obj> {
    let x = a.req(Some(0), "x", "device_put")?;
    let target = a.opt(Some(1), "device").unwrap_or(Obj::None);
    let (leaves, def) = flatten_known(&x)?;
    let targets: Vec<Obj> = if is_target(&target) {
        vec![target; leaves.len()]
    } else {
        let (t, _) = flatten_known(&target)?;
        if t.len() != leaves.len() {
            bail!(
                ValueError,
                "device_put: the tree of targets has {} leaves but x has {}",
                t.len(),
                leaves.len()
            );
        }
        t
    };
    let values: Vec<Value> = leaves.iter().map(to_value).collect::<Result<_>>()?;
    if values.iter().any(|v| matches!(v, Value::Traced(_))) {
        let out = put_traced(interp, &values, &targets)?;
        return unflatten_known(&def, &out);
    }
    let mut out = vec![];
    for (leaf, t) in leaves.iter().zip(&targets) {
        out.push(put_leaf(interp, leaf, t)?);
    }
    unflatten_known(&def, &out)
}

/// `device_put` of leaves some of which are traced: one `device_put`
/// equation, staged inside `jit` (or `make_jaxpr`) as JAX stages it.
fn put_traced(interp: &mut Interp, values: &[Value], targets: &[Obj]) -> Result<Vec<Obj>> {
    for v in values {
        if let Value::Traced(t) = v {
            if crate::trace::in_map_body(t) {
                bail!(
                    NotImplementedError,
                    "not supported by shardlab yet: jax.device_put inside vmap, pmap or shard_map"
                );
            }
        }
    }
    // Outside jit, a traced value belongs to grad or jvp run eagerly,
    // whose results shardlab would not place.
    if !crate::trace::staging() {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.device_put of a traced value outside jit"
        );
    }
    let put_targets: Vec<PutTarget> = values
        .iter()
        .zip(targets)
        .map(|(v, t)| put_target(interp, t, &v.shape()))
        .collect::<Result<_>>()?;
    let prim = Prim::DevicePut(Arc::new(DevicePutParams {
        targets: put_targets,
    }));
    Ok(crate::trace::bind(prim, values)?
        .into_iter()
        .map(Obj::Array)
        .collect())
}

/// Where a traced `device_put` sends a value of `shape`.
fn put_target(interp: &mut Interp, target: &Obj, shape: &[usize]) -> Result<PutTarget> {
    if matches!(target, Obj::None) {
        return Ok(PutTarget::Stay);
    }
    if let Some(d) = target.downcast::<Device>() {
        return Ok(PutTarget::Device(d.0));
    }
    if let Some(d) = target.downcast::<SingleDeviceSharding>() {
        return Ok(PutTarget::Single(d.0));
    }
    match target_placement(interp, target, shape)? {
        Placement::Named(s) if s.spec.unreduced.is_empty() && s.spec.reduced.is_empty() => {
            Ok(PutTarget::Named(s))
        }
        Placement::Named(_) => bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.device_put of a traced value to an unreduced or reduced sharding"
        ),
        _ => bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.device_put of a traced value to a {}",
            target.type_name()
        ),
    }
}

fn is_target(o: &Obj) -> bool {
    matches!(o, Obj::None)
        || o.downcast::<NamedSharding>().is_some()
        || o.downcast::<PartitionSpec>().is_some()
        || o.downcast::<Device>().is_some()
        || o.downcast::<SingleDeviceSharding>().is_some()
}

/// `jax.typeof(x)`: the shape, dtype and (over explicit mesh axes) the
/// sharding of a value, printed as JAX prints it: `float32[8@x,4]`.
pub struct ShapedArray {
    text: String,
    weak: bool,
    shape: Vec<usize>,
    dtype: crate::array::DType,
    placement: Option<Placement>,
    /// Inside a map body: the axes the value varies over (its VMA).
    varying: Option<Vec<String>>,
}

impl ShapedArray {
    /// The sharding the type carries, if any.
    pub fn placement(&self) -> Option<&Placement> {
        self.placement.as_ref()
    }

    /// The number of dimensions.
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    /// The type of a value of `aval` (in a map body, with the axes it
    /// varies over), as a jaxpr's variables carry it.
    pub fn of_aval(aval: &crate::ir::Aval) -> ShapedArray {
        ShapedArray::in_body(aval)
    }

    /// The type of a value inside a map body: per-device shape and the
    /// axes it varies over (`float32[3]{V:i}`), as JAX prints it.
    fn in_body(aval: &crate::ir::Aval) -> ShapedArray {
        let plain = aval_text(&aval.shape, aval.dtype, None);
        let vma: Vec<String> = aval.vma.iter().cloned().collect();
        let suffix = match vma.as_slice() {
            [] => String::new(),
            [one] => format!("{{V:{one}}}"),
            many => format!("{{V:({})}}", many.join(",")),
        };
        ShapedArray {
            text: format!("{plain}{suffix}"),
            weak: aval.weak,
            shape: aval.shape.clone(),
            dtype: aval.dtype,
            placement: None,
            varying: Some(vma),
        }
    }
}

/// `jax.typeof(x).manual_axis_type` inside a map body.
struct ManualAxisType(Vec<String>);

impl Object for ManualAxisType {
    fn type_name(&self) -> String {
        "ManualAxisType".into()
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        Ok(match name {
            "varying" => {
                let mut set = crate::python::set::Set::empty(true);
                for a in &self.0 {
                    set.add(Obj::str(a))?;
                }
                Some(Obj::set(set))
            }
            _ => None,
        })
    }
}

/// The spec a type carries for a sharding `spec` over `mesh`: only the
/// axes that are Explicit in `mesh` (JAX's `modify_spec_for_auto_manual`);
/// a dimension left with no axis is `None`.
pub fn type_spec(spec: &PartitionSpec, mesh: &Mesh) -> PartitionSpec {
    let explicit = |a: &String| mesh.axis_type(a).ok() == Some(AxisType::Explicit);
    let entries = spec
        .entries()
        .iter()
        .map(|e| {
            let kept: Option<Vec<String>> = e
                .as_ref()
                .map(|axes| axes.iter().filter(|a| explicit(a)).cloned().collect());
            kept.filter(|axes| !axes.is_empty())
        })
        .collect();
    PartitionSpec {
        entries,
        unreduced: spec
            .unreduced
            .iter()
            .filter(|a| explicit(a))
            .cloned()
            .collect(),
        reduced: spec
            .reduced
            .iter()
            .filter(|a| explicit(a))
            .cloned()
            .collect(),
    }
}

/// `jax.typeof(x).sharding`: the sharding over the abstract mesh.
pub struct AbstractSharding(pub sharding::NamedSharding);

impl Object for AbstractSharding {
    fn type_name(&self) -> String {
        "NamedSharding".into()
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        Ok(match name {
            "spec" => Some(Obj::lib(self.0.spec.clone())),
            "mesh" => Some(Obj::lib(super::context::AbstractMesh::of(Some(Rc::new(
                self.0.mesh.clone(),
            ))))),
            _ => None,
        })
    }

    fn repr(&self, this: &Obj) -> Option<String> {
        let mesh = super::context::AbstractMesh::of(Some(Rc::new(self.0.mesh.clone())));
        Some(format!(
            "NamedSharding(mesh={}, spec={})",
            mesh.repr(this)?,
            self.0.spec
        ))
    }
}

impl Object for ShapedArray {
    fn type_name(&self) -> String {
        "ShapedArray".into()
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        Ok(match name {
            "shape" => Some(int_tuple(&self.shape)),
            "ndim" => Some(Obj::Int(self.shape.len() as i64)),
            "dtype" => Some(Obj::DType(self.dtype)),
            "weak_type" => Some(Obj::Bool(self.weak)),
            "size" => Some(Obj::Int(self.shape.iter().product::<usize>() as i64)),
            "manual_axis_type" => match &self.varying {
                Some(v) => Some(Obj::lib(ManualAxisType(v.clone()))),
                None => bail!(
                    NotImplementedError,
                    "not supported by shardlab yet: manual_axis_type of a type outside a shard_map"
                ),
            },
            "sharding" => match &self.placement {
                Some(Placement::Named(s)) => Some(Obj::lib(AbstractSharding(
                    sharding::NamedSharding::new(s.mesh.clone(), type_spec(&s.spec, &s.mesh)),
                ))),
                _ => bail!(
                    NotImplementedError,
                    "not supported by shardlab yet: the sharding of the type of an array not placed on a mesh"
                ),
            },
            _ => None,
        })
    }

    /// `ShapedArray(float32[3])`, `ShapedArray(float32[], weak_type=True)`.
    fn repr(&self, _: &Obj) -> Option<String> {
        let weak = if self.weak { ", weak_type=True" } else { "" };
        Some(format!("ShapedArray({}{weak})", self.text))
    }

    /// `float32[3]`, `~float32[]` for a weak type.
    fn str(&self, _: &Obj) -> Option<String> {
        Some(if self.weak {
            format!("~{}", self.text)
        } else {
            self.text.clone()
        })
    }
}

pub use crate::sharding::aval_text;

/// `jax.typeof(x)`.
pub fn type_of(interp: &mut Interp, a: Args) -> Result<Obj> {
    let x = a.req(Some(0), "x", "typeof")?;
    let v = to_value(&x)?;
    let (shape, dtype) = (v.shape(), v.dtype());
    if let Value::Traced(t) = &v {
        if crate::trace::in_map_body(t) {
            return Ok(Obj::lib(ShapedArray::in_body(&t.aval)));
        }
    }
    let p = match &v {
        Value::Concrete(c) => match c.placement() {
            Some(Placement::Unknown(_)) => Some(placement(interp, c)?),
            other => other.cloned(),
        },
        Value::Traced(t) => match crate::trace::tracer_placement(t)?.as_deref() {
            Some(Placement::Unknown(what)) => bail!(
                NotImplementedError,
                "not supported by shardlab yet: the sharding of the result of {what} on sharded arrays"
            ),
            other => other.cloned(),
        },
    };
    if p.is_none() {
        if let Some(m) = context_mesh(interp) {
            if m.axis_types().contains(&AxisType::Explicit) && matches!(v, Value::Traced(_)) {
                bail!(
                    NotImplementedError,
                    "not supported by shardlab yet: jax.typeof of a traced value under a mesh with explicit axes"
                );
            }
        }
    }
    Ok(Obj::lib(ShapedArray {
        text: aval_text(&shape, dtype, p.as_ref()),
        weak: v.aval().weak,
        shape,
        dtype,
        placement: p,
        varying: None,
    }))
}
