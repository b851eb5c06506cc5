//! `jax.sharding`: Mesh, PartitionSpec and NamedSharding, plus the attributes
//! of devices and device arrays.

use std::rc::Rc;

use crate::error::Result;
use crate::mesh::Mesh;
use crate::sharding::PartitionSpec;
use crate::{bail, err};

use super::super::builtins::to_int;
use super::super::interp::Interp;
use super::super::ops::iterate;
use super::super::value::{Args, DeviceArray, Dict, NamedSharding, Obj};
use super::lax::axis_names;
use super::Builder;

/// A spec entry as a Python object: None, a name or a tuple of names.
pub fn spec_entry_obj(e: &Option<Vec<String>>) -> Obj {
    match e {
        None => Obj::None,
        Some(v) if v.len() == 1 => Obj::str(&v[0]),
        Some(v) => Obj::tuple(v.iter().map(Obj::str).collect()),
    }
}

/// `PartitionSpec(*entries)`.
pub fn make_spec(entries: &[Obj]) -> Result<PartitionSpec> {
    let mut out = vec![];
    for e in entries {
        out.push(match e {
            Obj::None => None,
            Obj::Str(_) | Obj::Tuple(_) | Obj::List(_) => {
                let names = axis_names(e)?;
                if names.is_empty() {
                    None
                } else {
                    Some(names)
                }
            }
            other => bail!(
                TypeError,
                "PartitionSpec entries must be axis names, tuples of axis names or None, got {}",
                other.type_name()
            ),
        });
    }
    Ok(PartitionSpec::new(out))
}

/// Device ids and shape of a devices argument (a device array or a list).
fn devices_of(o: &Obj) -> Result<(Vec<usize>, Vec<usize>)> {
    match o {
        Obj::Devices(d) => Ok((d.shape.clone(), d.ids.clone())),
        Obj::List(_) | Obj::Tuple(_) => {
            let items = iterate(o)?;
            let mut ids = vec![];
            for it in &items {
                match it {
                    Obj::Device(i) => ids.push(*i),
                    other => bail!(
                        TypeError,
                        "Mesh devices must be devices, got {}",
                        other.type_name()
                    ),
                }
            }
            Ok((vec![ids.len()], ids))
        }
        Obj::Device(i) => Ok((vec![], vec![*i])),
        other => bail!(
            TypeError,
            "Mesh devices must be an array of devices, got {}",
            other.type_name()
        ),
    }
}

fn mesh_new(_: &mut Interp, a: Args) -> Result<Obj> {
    let (shape, ids) = devices_of(&a.req(Some(0), "devices", "Mesh")?)?;
    let names = axis_names(&a.req(Some(1), "axis_names", "Mesh")?)?;
    if names.len() != shape.len() {
        bail!(
            ValueError,
            "Mesh requires the ndim of its first argument (`devices`) to equal the length of its second argument (`axis_names`), but got devices.ndim == {} and len(axis_names) == {}.",
            shape.len(),
            names.len()
        );
    }
    Ok(Obj::Mesh(Rc::new(Mesh::with_device_ids(
        &names, &shape, ids,
    )?)))
}

/// `jax.make_mesh(axis_shapes, axis_names)`.
pub fn make_mesh(_: &mut Interp, a: Args) -> Result<Obj> {
    let shape: Vec<usize> = iterate(&a.req(Some(0), "axis_shapes", "make_mesh")?)?
        .iter()
        .map(|o| to_int(o).map(|i| i as usize))
        .collect::<Result<_>>()?;
    let names = axis_names(&a.req(Some(1), "axis_names", "make_mesh")?)?;
    let n: usize = shape.iter().product();
    let have = crate::exec::config().devices;
    if n > have {
        bail!(
            ValueError,
            "Number of devices {have} must be >= the product of mesh_shape {:?}",
            shape
        );
    }
    Ok(Obj::Mesh(Rc::new(Mesh::with_device_ids(
        &names,
        &shape,
        (0..n).collect(),
    )?)))
}

/// `mesh_utils.create_device_mesh(shape)`.
pub fn create_device_mesh(_: &mut Interp, a: Args) -> Result<Obj> {
    let shape: Vec<usize> = iterate(&a.req(Some(0), "mesh_shape", "create_device_mesh")?)?
        .iter()
        .map(|o| to_int(o).map(|i| i as usize))
        .collect::<Result<_>>()?;
    let n: usize = shape.iter().product();
    let have = crate::exec::config().devices;
    if n > have {
        bail!(
            ValueError,
            "Number of devices {have} must be >= the product of mesh_shape {:?}",
            shape
        );
    }
    Ok(Obj::Devices(Rc::new(DeviceArray {
        shape,
        ids: (0..n).collect(),
    })))
}

/// The `jax.sharding` module.
pub fn module() -> Obj {
    let mut b = Builder::new("jax.sharding");
    b.func("Mesh", mesh_new);
    let p = |_: &mut Interp, a: Args| Ok(Obj::Spec(Rc::new(make_spec(&a.pos)?)));
    b.func("PartitionSpec", p);
    b.func("P", p);
    b.func("NamedSharding", |_, a| {
        let Obj::Mesh(mesh) = a.req(Some(0), "mesh", "NamedSharding")? else {
            bail!(
                TypeError,
                "NamedSharding expects a Mesh as its first argument"
            );
        };
        let spec = match a.req(Some(1), "spec", "NamedSharding")? {
            Obj::Spec(s) => (*s).clone(),
            other => bail!(
                TypeError,
                "NamedSharding spec must be a PartitionSpec, got {}",
                other.type_name()
            ),
        };
        spec.validate(&mesh, spec.0.len())?;
        Ok(Obj::Sharding(Rc::new(NamedSharding { mesh, spec })))
    });
    b.func("AxisType", |_, _| Ok(Obj::None));
    b.build()
}

/// `Mesh('data': 8, axis_types=(Auto,))`.
pub fn mesh_repr(m: &Mesh) -> String {
    let axes: Vec<String> = m
        .axis_names()
        .iter()
        .zip(m.shape())
        .map(|(n, s)| format!("'{n}': {s}"))
        .collect();
    let types = vec!["Auto"; axes.len()].join(", ");
    let types = if axes.len() == 1 {
        format!("({types},)")
    } else {
        format!("({types})")
    };
    format!("Mesh({}, axis_types={types})", axes.join(", "))
}

/// The short mesh form used inside NamedSharding's repr.
pub fn mesh_shape_repr(m: &Mesh) -> String {
    mesh_repr(m)
}

/// Attributes of meshes, specs, shardings and devices.
pub fn attr(_: &mut Interp, v: &Obj, name: &str) -> Result<Obj> {
    let missing = || {
        err!(
            AttributeError,
            "'{}' object has no attribute '{name}'",
            v.type_name()
        )
    };
    match v {
        Obj::Mesh(m) => Ok(match name {
            "shape" => {
                let mut d = Dict::default();
                for (n, s) in m.axis_names().iter().zip(m.shape()) {
                    d.set(Obj::str(n), Obj::Int(*s as i64));
                }
                Obj::Dict(Rc::new(std::cell::RefCell::new(d)))
            }
            "axis_names" => Obj::tuple(m.axis_names().iter().map(Obj::str).collect()),
            "size" => Obj::Int(m.size() as i64),
            "devices" => Obj::Devices(Rc::new(DeviceArray {
                shape: m.shape().to_vec(),
                ids: m.device_ids().to_vec(),
            })),
            "axis_sizes" | "device_ids" => {
                Obj::tuple(m.shape().iter().map(|&s| Obj::Int(s as i64)).collect())
            }
            _ => return Err(missing()),
        }),
        Obj::Sharding(s) => Ok(match name {
            "mesh" => Obj::Mesh(s.mesh.clone()),
            "spec" => Obj::Spec(Rc::new(s.spec.clone())),
            _ => return Err(missing()),
        }),
        Obj::Device(i) => Ok(match name {
            "id" => Obj::Int(*i as i64),
            "platform" | "device_kind" => Obj::str("cpu"),
            _ => return Err(missing()),
        }),
        Obj::Devices(d) => Ok(match name {
            "shape" => Obj::tuple(d.shape.iter().map(|&s| Obj::Int(s as i64)).collect()),
            "ndim" => Obj::Int(d.shape.len() as i64),
            "size" => Obj::Int(d.ids.len() as i64),
            "reshape" => {
                let d = d.clone();
                Obj::native("reshape", move |_, a| {
                    let dims: Vec<i64> =
                        if a.pos.len() == 1 && matches!(a.pos[0], Obj::Tuple(_) | Obj::List(_)) {
                            iterate(&a.pos[0])?
                                .iter()
                                .map(to_int)
                                .collect::<Result<_>>()?
                        } else {
                            a.pos.iter().map(to_int).collect::<Result<_>>()?
                        };
                    let shape = crate::ops::infer_shape(&dims, d.ids.len(), &d.shape)?;
                    Ok(Obj::Devices(Rc::new(DeviceArray {
                        shape,
                        ids: d.ids.clone(),
                    })))
                })
            }
            "flatten" | "ravel" => {
                let d = d.clone();
                Obj::native(name, move |_, _| {
                    Ok(Obj::Devices(Rc::new(DeviceArray {
                        shape: vec![d.ids.len()],
                        ids: d.ids.clone(),
                    })))
                })
            }
            "tolist" => {
                let d = d.clone();
                Obj::native(name, move |_, _| {
                    Ok(Obj::list(d.ids.iter().map(|&i| Obj::Device(i)).collect()))
                })
            }
            _ => return Err(missing()),
        }),
        _ => Err(missing()),
    }
}
