//! Arrays built shard by shard: `jax.make_array_from_callback`,
//! `jax.make_array_from_single_device_arrays` and
//! `jax.make_array_from_process_local_data`.
//!
//! shardlab keeps one global array per value (see `placed`), so the shards
//! a program hands over are assembled into it. Two devices holding the same
//! block must then hold the same numbers: JAX does not check that, and an
//! array whose replicas differ has no global value shardlab could keep, so
//! such an array is refused rather than silently made consistent.

use std::rc::Rc;
use std::sync::Arc;

use crate::array::{Array, DType};
use crate::error::Result;
use crate::python::array::to_value;
use crate::python::format::{repr_of, str_of};
use crate::python::interp::Interp;
use crate::python::ops::iterate;
use crate::python::value::{Args, Obj};
use crate::sharding::{self, PartitionSpec, Placement};
use crate::trace::Value;
use crate::{bail, err};

use super::placed::{shape_arg, uneven_tiling, SingleDeviceSharding};
use super::NamedSharding;

/// What a sharding argument says: the placement and, for a named one, the
/// sharding itself.
struct Target {
    placement: Placement,
    named: Option<sharding::NamedSharding>,
}

/// The placement a `sharding` argument stands for; JAX takes only sharding
/// objects here (a bare `PartitionSpec` is a `TypeError`).
fn target(sharding: &Obj, shape: &[usize]) -> Result<Target> {
    if let Some(ns) = sharding.downcast::<NamedSharding>() {
        let s = sharding::NamedSharding::new((*ns.mesh).clone(), ns.spec.clone())
            .in_memory(ns.memory_kind);
        indivisible(&s, shape, &repr_of(sharding))?;
        return Ok(Target {
            placement: Placement::Named(s.clone()),
            named: Some(s),
        });
    }
    if let Some(d) = sharding.downcast::<SingleDeviceSharding>() {
        return Ok(Target {
            placement: Placement::Device(d.0),
            named: None,
        });
    }
    let class = match sharding.downcast::<PartitionSpec>() {
        Some(_) => "jax.P".to_string(),
        None => sharding.type_name(),
    };
    bail!(
        TypeError,
        "sharding should be an instance of `jax.sharding`. Got {} of type <class '{class}'>",
        repr_of(sharding)
    )
}

/// JAX's error for a shape the sharding does not split evenly.
fn indivisible(s: &sharding::NamedSharding, shape: &[usize], repr: &str) -> Result<()> {
    s.spec.validate(&s.mesh, shape.len())?;
    uneven_tiling(&s.mesh, &s.spec, shape, repr)
}

/// [`indivisible`] for a sharding known only by its placement.
fn indivisible_named(s: &sharding::NamedSharding, shape: &[usize]) -> Result<()> {
    indivisible(s, shape, &placement_repr(&Placement::Named(s.clone())))
}

/// An index as JAX hands it to a callback: one slice per dimension,
/// `slice(None)` for a dimension held whole.
pub fn index_obj(ranges: &[std::ops::Range<usize>], global_shape: &[usize]) -> Obj {
    Obj::tuple(
        ranges
            .iter()
            .zip(global_shape)
            .map(|(r, &n)| {
                let (start, stop) = if r.end - r.start == n {
                    (Obj::None, Obj::None)
                } else {
                    (Obj::Int(r.start as i64), Obj::Int(r.end as i64))
                };
                Obj::Slice(Rc::new([start, stop, Obj::None]))
            })
            .collect(),
    )
}

/// `sharding.devices_indices_map(global_shape)`: each device's index, in
/// the order of the sharding's devices (one process addresses them all).
pub fn indices_map_method(p: Placement) -> Obj {
    Obj::native("devices_indices_map", move |_, a| {
        let shape = shape_arg(&a.req(Some(0), "global_shape", "devices_indices_map")?)?;
        let mut d = crate::python::dict::Dict::default();
        if let Placement::Named(s) = &p {
            indivisible_named(s, &shape)?;
            for (pos, &id) in s.mesh.device_ids().iter().enumerate() {
                let index = index_obj(&s.shard_slices(pos, &shape)?, &shape);
                d.set(Obj::lib(super::Device(id)), index);
            }
        }
        Ok(Obj::Dict(Rc::new(std::cell::RefCell::new(d))))
    })
}

/// A callback's result as the concrete, strongly typed array JAX makes of
/// it: Python scalars become 0-d arrays, lists are not array-like here.
fn shard_value(r: &Obj) -> Result<Array> {
    if matches!(r, Obj::List(_) | Obj::Tuple(_)) {
        bail!(
            TypeError,
            "Argument '{}' of type <class '{}'> is not a valid JAX type.",
            str_of(r),
            r.type_name()
        );
    }
    match to_value(r)? {
        Value::Concrete(a) => Ok(a.with_weak(false).with_placement(None)),
        // JAX raises its UnexpectedTracerError, a class shardlab lacks.
        Value::Traced(_) => bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.make_array_from_callback inside a traced function"
        ),
    }
}

/// The dtype of the result: the first shard's, which `dtype=` must match.
fn checked_dtype(shards: &[Array], dtype: Option<Obj>, fname: &str) -> Result<DType> {
    let first = shards.first().map(Array::dtype);
    let asked = match dtype {
        None | Some(Obj::None) => None,
        Some(d) => Some(crate::modules::numpy::dtypes::dtype_of(&d)?),
    };
    match (asked, first) {
        (Some(d), Some(f)) if d != f => bail!(
            ValueError,
            "If `dtype` is provided to `jax.{fname}`, it must match the dtype of the addressable shards. Got dtype={} and shard dtype={}`.",
            d.name(),
            f.name()
        ),
        (_, Some(f)) => Ok(f),
        (Some(d), None) => Ok(d),
        (None, None) => bail!(
            ValueError,
            "If the Array has no addressable shards, `dtype` must be provided via the `dtype` argument to `jax.{fname}`."
        ),
    }
}

/// Every shard has the result's dtype and the sharding's shard shape.
fn check_shards(shards: &[Array], dtype: DType, shape: &[usize], t: &Target) -> Result<()> {
    let expected = match &t.named {
        Some(s) => s.shard_shape(shape)?,
        None => shape.to_vec(),
    };
    for a in shards {
        if a.dtype() != dtype {
            bail!(
                ValueError,
                "Input buffers to `Array` must have matching dtypes. Got {}, expected {} for buffer: {}",
                a.dtype().name(),
                dtype.name(),
                crate::array::format::format_numpy(a)
            );
        }
        if a.shape() != expected.as_slice() {
            bail!(
                ValueError,
                "Expected shard shape {} doesn't match the single device array shape {}. Shape of Array is {} with sharding {}",
                crate::array::fmt_shape(&expected),
                crate::array::fmt_shape(a.shape()),
                sharding::aval_text(shape, dtype, Some(&t.placement)),
                placement_repr(&t.placement)
            );
        }
    }
    Ok(())
}

fn placement_repr(p: &Placement) -> String {
    repr_of(&super::placed::sharding_obj(p))
}

/// The global array from one shard per mesh position, refusing shards
/// whose replicas disagree.
fn assemble(shards: &[Array], shape: &[usize], t: &Target) -> Result<Array> {
    let global = match &t.named {
        Some(s) => s.assemble(shards, shape)?,
        None => shards
            .first()
            .cloned()
            .ok_or_else(|| err!(ValueError, "no shard for a single-device array"))?,
    };
    if let Some(s) = &t.named {
        for (got, want) in shards.iter().zip(s.split(&global)?) {
            if !got.bitwise_eq(&want) {
                bail!(
                    NotImplementedError,
                    "not supported by shardlab yet: an array whose replicas of one shard hold different values"
                );
            }
        }
    }
    Ok(global.with_placement(Some(Arc::new(t.placement.clone()))))
}

/// `jax.make_array_from_callback(shape, sharding, data_callback, dtype=None)`:
/// the callback is asked for each device's block, in the order of the
/// sharding's devices, or once for the whole array when every device holds
/// all of it.
pub fn make_array_from_callback(interp: &mut Interp, a: Args) -> Result<Obj> {
    const NAME: &str = "make_array_from_callback";
    let shape_obj = a.req(Some(0), "shape", NAME)?;
    if matches!(shape_obj, Obj::List(_)) {
        bail!(TypeError, "unhashable type: 'list'");
    }
    let shape = shape_arg(&shape_obj)?;
    let sharding = a.req(Some(1), "sharding", NAME)?;
    let callback = a.req(Some(2), "data_callback", NAME)?;
    let t = target(&sharding, &shape)?;
    let replicated = match &t.named {
        Some(_) => t.placement.is_fully_replicated(&shape)?,
        None => true,
    };
    let mut shards = vec![];
    if replicated {
        let whole: Vec<_> = shape.iter().map(|&n| 0..n).collect();
        let index = index_obj(&whole, &shape);
        let v = shard_value(&interp.call(&callback, Args::new(vec![index]))?)?;
        let copies = t.named.as_ref().map_or(1, |s| s.mesh.size());
        shards = vec![v; copies];
    } else if let Some(s) = &t.named {
        for pos in 0..s.mesh.size() {
            let index = index_obj(&s.shard_slices(pos, &shape)?, &shape);
            shards.push(shard_value(
                &interp.call(&callback, Args::new(vec![index]))?,
            )?);
        }
    }
    let dtype = checked_dtype(&shards, a.opt(Some(3), "dtype"), NAME)?;
    check_shards(&shards, dtype, &shape, &t)?;
    Ok(Obj::Array(Value::Concrete(assemble(&shards, &shape, &t)?)))
}

/// The device an array given to `make_array_from_single_device_arrays`
/// lives on (an uncommitted array is on device 0).
fn single_device(a: &Array) -> Result<usize> {
    match a.placement() {
        None => Ok(0),
        Some(Placement::Device(d)) => Ok(*d),
        Some(Placement::Named(s)) if s.mesh.size() == 1 => Ok(s.mesh.device_ids()[0]),
        Some(_) => bail!(
            NotImplementedError,
            "not supported by shardlab yet: make_array_from_single_device_arrays of an array on several devices"
        ),
    }
}

/// `jax.make_array_from_single_device_arrays(shape, sharding, arrays, *,
/// dtype=None)`: one array per device of the sharding, matched to the
/// devices by where each array lives.
pub fn make_array_from_single_device_arrays(_: &mut Interp, a: Args) -> Result<Obj> {
    const NAME: &str = "make_array_from_single_device_arrays";
    let shape = shape_arg(&a.req(Some(0), "shape", NAME)?)?;
    let sharding = a.req(Some(1), "sharding", NAME)?;
    let arrays_obj = a.req(Some(2), "arrays", NAME)?;
    if !matches!(arrays_obj, Obj::List(_) | Obj::Tuple(_)) {
        bail!(
            TypeError,
            "jax.make_array_from_single_device_arrays `arrays` argument must be a list or tuple, but got <class '{}'>.",
            arrays_obj.type_name()
        );
    }
    let mut arrays = vec![];
    for o in iterate(&arrays_obj)? {
        match to_value(&o)? {
            Value::Concrete(x) => arrays.push(x),
            Value::Traced(_) => bail!(
                ValueError,
                "jax.make_array_from_single_device_arrays requires a list of concrete arrays as input"
            ),
        }
    }
    let dtype = checked_dtype(&arrays, a.opt(None, "dtype"), NAME)?;
    let t = target(&sharding, &shape)?;
    let ids: Vec<usize> = match &t.placement {
        Placement::Named(s) => s.mesh.device_ids().to_vec(),
        Placement::Device(d) => vec![*d],
        Placement::Unknown(_) => vec![],
    };
    if arrays.len() != ids.len() {
        bail!(
            ValueError,
            "Expected {} per-device arrays (this is how many devices are addressable by the sharding), but got {}",
            ids.len(),
            arrays.len()
        );
    }
    let on: Vec<usize> = arrays.iter().map(single_device).collect::<Result<_>>()?;
    let mut seen = on.clone();
    seen.sort_unstable();
    seen.dedup();
    if seen.len() != on.len() {
        bail!(
            ValueError,
            "When making an array from single-device arrays, the input arrays must be from distinct devices, but got device IDs {on:?}"
        );
    }
    let mut shards = vec![];
    for id in &ids {
        let Some(k) = on.iter().position(|d| d == id) else {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: make_array_from_single_device_arrays with an array on a device outside the sharding"
            );
        };
        shards.push(arrays[k].clone().with_placement(None));
    }
    check_shards(&shards, dtype, &shape, &t)?;
    Ok(Obj::Array(Value::Concrete(assemble(&shards, &shape, &t)?)))
}

/// `jax.make_array_from_process_local_data(sharding, local_data,
/// global_shape=None)`: with one process the local data is the whole
/// array, so this is `device_put` once `global_shape` agrees.
pub fn make_array_from_process_local_data(interp: &mut Interp, a: Args) -> Result<Obj> {
    const NAME: &str = "make_array_from_process_local_data";
    let sharding = a.req(Some(0), "sharding", NAME)?;
    let local = a.req(Some(1), "local_data", NAME)?;
    match a.opt(Some(2), "global_shape").unwrap_or(Obj::None) {
        Obj::None => {}
        g @ Obj::Tuple(_) => {
            let want = shape_arg(&g)?;
            let (leaves, _) = crate::python::pytree::flatten_known(&local)?;
            for leaf in &leaves {
                let have = to_value(leaf)?.shape();
                if have != want {
                    bail!(
                        ValueError,
                        "When calling `make_array_from_process_local_data` on a single process, global_shape should be None or equal to local_data.shape.Got global_shape={} and local_data.shape={}.",
                        crate::array::fmt_shape(&want),
                        crate::array::fmt_shape(&have)
                    );
                }
            }
        }
        other => bail!(
            NotImplementedError,
            "not supported by shardlab yet: make_array_from_process_local_data with a global_shape of type {}",
            other.type_name()
        ),
    }
    super::placed::device_put(interp, Args::new(vec![local, sharding]))
}
