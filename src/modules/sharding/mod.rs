//! `jax.sharding`: Mesh, PartitionSpec and NamedSharding, plus the attributes
//! of devices and device arrays. The context mesh lives in `context`, arrays'
//! placements in `placed`, and the sharding tables JAX draws in `visualize`.

pub mod axes;
pub mod constraint;
pub mod context;
pub mod equivalence;
pub mod inspect;
pub mod make_array;
pub mod out_sharding;
pub mod placed;
pub mod visualize;

use std::collections::BTreeSet;
use std::rc::Rc;

use crate::error::Result;
use crate::mesh::Mesh;
use crate::sharding::PartitionSpec;
use crate::{bail, err};

use super::lax::axis_names;
use super::Builder;
use crate::python::builtins::to_int;
use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::ops::iterate;
use crate::python::value::{Args, Dict, Obj};

/// One device of `jax.devices()`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Device(pub usize);

impl Object for Device {
    fn type_name(&self) -> String {
        "Device".into()
    }

    fn type_module(&self) -> Option<&'static str> {
        Some("jaxlib._jax")
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        Ok(match name {
            "id" => Some(Obj::Int(self.0 as i64)),
            "platform" | "device_kind" => Some(Obj::str("cpu")),
            _ => None,
        })
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some(format!("CpuDevice(id={})", self.0))
    }

    fn str(&self, _: &Obj) -> Option<String> {
        Some(format!("cpu:{}", self.0))
    }

    fn eq(&self, _: &Obj, other: &Obj) -> Option<bool> {
        Some(other.downcast::<Device>() == Some(self))
    }
}

/// `np.array(jax.devices()[:n]).reshape(...)`: an n-d array of devices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceArray {
    /// Shape of the array.
    pub shape: Vec<usize>,
    /// Device ids, row-major.
    pub ids: Vec<usize>,
}

impl DeviceArray {
    /// The rows of the array: devices when it is 1-d, arrays of devices else.
    pub fn rows(&self) -> Vec<Obj> {
        if self.shape.len() <= 1 {
            return self.ids.iter().map(|&i| Obj::lib(Device(i))).collect();
        }
        let inner: usize = self.shape[1..].iter().product();
        self.ids
            .chunks(inner.max(1))
            .map(|c| {
                Obj::lib(DeviceArray {
                    shape: self.shape[1..].to_vec(),
                    ids: c.to_vec(),
                })
            })
            .collect()
    }
}

impl Object for DeviceArray {
    fn type_name(&self) -> String {
        "ndarray".into()
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        devices_attr(self, name)
    }

    /// NumPy's repr of an object array of devices.
    fn repr(&self, _: &Obj) -> Option<String> {
        if self.shape.is_empty() {
            return Some(format!("array({}, dtype=object)", device_word(self.ids[0])));
        }
        let word = |i: usize| device_word(self.ids[i]);
        let body = crate::array::format::layout_words(
            &self.shape,
            &word,
            (", ", "array(", ")"),
            &crate::exec::run::print_options(),
        );
        Some(format!("array({body}, dtype=object)"))
    }

    /// NumPy's str of an object array of devices.
    fn str(&self, _: &Obj) -> Option<String> {
        if self.shape.is_empty() {
            return Some(device_word(self.ids[0]));
        }
        let word = |i: usize| device_word(self.ids[i]);
        Some(crate::array::format::layout_words(
            &self.shape,
            &word,
            (" ", "", ""),
            &crate::exec::run::print_options(),
        ))
    }

    fn items(&self, _: &Obj) -> Option<Result<Vec<Obj>>> {
        Some(Ok(self.rows()))
    }

    fn getitem(&self, _: &mut Interp, _: &Obj, key: &Obj) -> Option<Result<Obj>> {
        Some(super::numpy::devices_getitem(self, key))
    }

    fn eq(&self, _: &Obj, other: &Obj) -> Option<bool> {
        Some(other.downcast::<DeviceArray>() == Some(self))
    }
}

fn device_word(id: usize) -> String {
    format!("CpuDevice(id={id})")
}

/// `jax.sharding.NamedSharding(mesh, spec)`.
#[derive(Clone, Debug)]
pub struct NamedSharding {
    /// The mesh.
    pub mesh: Rc<Mesh>,
    /// The spec.
    pub spec: PartitionSpec,
    /// The memory kind.
    pub memory_kind: crate::sharding::MemoryKind,
}

impl Object for NamedSharding {
    fn type_name(&self) -> String {
        "NamedSharding".into()
    }

    fn type_module(&self) -> Option<&'static str> {
        Some("jax.sharding")
    }

    fn getattr(&self, interp: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        Ok(match name {
            "mesh" => Some(Obj::Lib(self.mesh.clone())),
            "spec" => Some(Obj::lib(self.spec.clone())),
            "memory_kind" => Some(Obj::str(self.memory_kind.name())),
            "with_memory_kind" => {
                let me = self.clone();
                Some(Obj::native(
                    "NamedSharding.with_memory_kind",
                    move |_, a| {
                        let kind = match a.req(Some(0), "kind", "with_memory_kind")? {
                            Obj::Str(s) => crate::sharding::MemoryKind::from_name(&s)?,
                            other => bail!(
                                TypeError,
                                "memory_kind must be a string, got {}",
                                other.type_name()
                            ),
                        };
                        Ok(Obj::lib(NamedSharding {
                            memory_kind: kind,
                            ..me.clone()
                        }))
                    },
                ))
            }
            "num_devices" => Some(Obj::Int(self.mesh.size() as i64)),
            "device_set" | "addressable_devices" => {
                Some(placed::device_set(interp, self.mesh.device_ids())?)
            }
            "is_fully_replicated" => Some(Obj::Bool(
                self.spec
                    .used_axes()
                    .iter()
                    .all(|a| self.mesh.axis_size(a).is_ok_and(|n| n == 1)),
            )),
            "shard_shape" => Some(placed::shard_shape_method(self.placement())),
            "is_equivalent_to" => Some(equivalence::method(self)),
            "addressable_devices_indices_map" | "devices_indices_map" => {
                Some(make_array::indices_map_method(self.placement()))
            }
            // The rest of JAX 0.10.2's public NamedSharding attributes.
            "check_compatible_aval"
            | "has_addressable_devices"
            | "is_fully_addressable"
            | "replicated_axes"
            | "update" => bail!(
                NotImplementedError,
                "not supported by shardlab yet: NamedSharding.{name}"
            ),
            _ => None,
        })
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some(format!(
            "NamedSharding(mesh={}, spec={}, memory_kind={})",
            self.mesh.text(),
            self.spec,
            self.memory_kind.name()
        ))
    }

    fn eq(&self, _: &Obj, other: &Obj) -> Option<bool> {
        Some(other.downcast::<NamedSharding>().is_some_and(|o| {
            *o.mesh == *self.mesh && o.spec == self.spec && o.memory_kind == self.memory_kind
        }))
    }
}

impl NamedSharding {
    /// The placement of an array laid out by this sharding.
    pub fn placement(&self) -> crate::sharding::Placement {
        crate::sharding::Placement::Named(
            crate::sharding::NamedSharding::new((*self.mesh).clone(), self.spec.clone())
                .in_memory(self.memory_kind),
        )
    }
}

impl Object for Mesh {
    fn type_name(&self) -> String {
        "Mesh".into()
    }

    fn type_module(&self) -> Option<&'static str> {
        Some("jax._src.mesh")
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        mesh_attr(self, name)
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        if self.shape().is_empty() {
            return Some("Mesh(axis_sizes=(), axis_names=())".into());
        }
        let sizes: Vec<String> = self.shape().iter().map(|s| s.to_string()).collect();
        let sizes = if sizes.len() == 1 {
            format!("({},)", sizes[0])
        } else {
            format!("({})", sizes.join(", "))
        };
        Some(format!(
            "Mesh(axis_sizes={sizes}, axis_names={}, axis_types={})",
            crate::mesh::fmt_names(self.axis_names()),
            crate::mesh::fmt_types(&self.axis_types())
        ))
    }

    fn str(&self, this: &Obj) -> Option<String> {
        if self.shape().is_empty() {
            return self.repr(this);
        }
        Some(self.text())
    }

    fn eq(&self, _: &Obj, other: &Obj) -> Option<bool> {
        Some(other.downcast::<Mesh>() == Some(self))
    }
}

impl Object for PartitionSpec {
    fn type_name(&self) -> String {
        "PartitionSpec".into()
    }

    fn type_object(&self) -> Option<Obj> {
        Some(Obj::lib(PartitionSpecType))
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some(format!("{self}"))
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        Ok(match name {
            "unreduced" => Some(frozenset_obj(&self.unreduced)?),
            "reduced" => Some(frozenset_obj(&self.reduced)?),
            "partitions" => Some(Obj::tuple(
                self.entries.iter().map(spec_entry_obj).collect(),
            )),
            _ => None,
        })
    }

    fn items(&self, _: &Obj) -> Option<Result<Vec<Obj>>> {
        if self.has_ur() {
            return Some(Err(err!(
                ValueError,
                "Using *pspec is dangerous when PartitionSpec has non-empty unreduced/reduced set. Please use *spec.partitions"
            )));
        }
        Some(Ok(self.entries.iter().map(spec_entry_obj).collect()))
    }

    fn getitem(&self, interp: &mut Interp, _: &Obj, key: &Obj) -> Option<Result<Obj>> {
        if self.has_ur() {
            return Some(Err(err!(
                ValueError,
                "Using pspec[...] is dangerous when PartitionSpec has non-empty unreduced/reduced set. Please use spec.partitions[...]"
            )));
        }
        let entries = Obj::tuple(self.entries.iter().map(spec_entry_obj).collect());
        Some(crate::python::ops::getitem(interp, &entries, key))
    }

    fn eq(&self, _: &Obj, other: &Obj) -> Option<bool> {
        Some(other.downcast::<PartitionSpec>() == Some(self))
    }
}

/// The mesh argument of a function, or JAX's error naming it.
pub fn mesh_arg(o: &Obj, what: &str) -> Result<Rc<Mesh>> {
    match o.downcast_rc::<Mesh>() {
        Some(m) => Ok(m),
        None => bail!(
            TypeError,
            "{what} requires mesh to be a Mesh, got {}",
            o.type_name()
        ),
    }
}

/// A spec entry as a Python object: None, a name or a tuple of names.
pub fn spec_entry_obj(e: &Option<Vec<String>>) -> Obj {
    match e {
        None => Obj::None,
        Some(v) if v.len() == 1 => Obj::str(&v[0]),
        Some(v) => Obj::tuple(v.iter().map(Obj::str).collect()),
    }
}

/// The class `jax.sharding.PartitionSpec` (also `jax.P`): calling it makes
/// a spec; `P.UNCONSTRAINED` is its marker for a dimension left to the
/// partitioner.
struct PartitionSpecType;

impl Object for PartitionSpecType {
    fn type_name(&self) -> String {
        "type".into()
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        Ok(match name {
            "UNCONSTRAINED" => Some(Obj::lib(Unconstrained)),
            // JAX defines the class as `jax.P`.
            "__name__" | "__qualname__" => Some(Obj::str("P")),
            "__module__" => Some(Obj::str("jax")),
            _ => None,
        })
    }

    fn class_name(&self) -> Option<String> {
        Some("jax.P".into())
    }

    fn eq(&self, _: &Obj, other: &Obj) -> Option<bool> {
        Some(other.downcast::<PartitionSpecType>().is_some())
    }

    fn call(&self, _: &mut Interp, _: &Obj, a: Args) -> Option<Result<Obj>> {
        Some((|| {
            let mut sets = [BTreeSet::new(), BTreeSet::new()];
            for (k, v) in &a.kw {
                let i = match k.as_str() {
                    "unreduced" => 0,
                    "reduced" => 1,
                    _ => bail!(
                        TypeError,
                        "PartitionSpec.__init__() got an unexpected keyword argument '{k}'"
                    ),
                };
                sets[i] = ur_axes(k, v)?;
            }
            let [unreduced, reduced] = sets;
            Ok(Obj::lib(make_spec(&a.pos)?.with_ur(unreduced, reduced)?))
        })())
    }

    fn callable(&self) -> bool {
        true
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some("<class 'jax.P'>".into())
    }

    fn instancecheck(&self, obj: &Obj) -> Option<bool> {
        Some(obj.downcast::<PartitionSpec>().is_some())
    }
}

/// `P.UNCONSTRAINED`.
struct Unconstrained;

impl Object for Unconstrained {
    fn type_name(&self) -> String {
        "UnconstrainedSingleton".into()
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some("UNCONSTRAINED".into())
    }

    fn eq(&self, _: &Obj, other: &Obj) -> Option<bool> {
        Some(other.downcast::<Unconstrained>().is_some())
    }
}

/// The `unreduced=` or `reduced=` argument of `PartitionSpec`: a set or
/// frozenset of axis names, as JAX requires.
fn ur_axes(what: &str, v: &Obj) -> Result<BTreeSet<String>> {
    let Obj::Set(set) = v else {
        bail!(
            TypeError,
            "{what} argument of PartitionSpec should of type `frozenset` or `set`. Got type {}",
            crate::python::format::repr_of(v)
        );
    };
    let mut out = BTreeSet::new();
    for item in set.borrow().items() {
        match item {
            Obj::Str(s) => {
                out.insert(s.to_string());
            }
            Obj::None => bail!(
                ValueError,
                "{what} cannot contain None. All elements in {what} should refer to the mesh axes."
            ),
            other => bail!(
                NotImplementedError,
                "not supported by shardlab yet: a {} axis name in PartitionSpec({what}=...)",
                other.type_name()
            ),
        }
    }
    Ok(out)
}

/// A set of axis names as a Python frozenset.
pub fn frozenset_obj(names: &BTreeSet<String>) -> Result<Obj> {
    let mut set = crate::python::set::Set::from_items(names.iter().map(Obj::str).collect())?;
    set.frozen = true;
    Ok(Obj::set(set))
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
            o if o.downcast::<Unconstrained>().is_some() => bail!(
                NotImplementedError,
                "not supported by shardlab yet: P.UNCONSTRAINED in a PartitionSpec"
            ),
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
        o if o.downcast::<DeviceArray>().is_some() => {
            let d = o
                .downcast::<DeviceArray>()
                .ok_or_else(|| err!(TypeError, "not devices"))?;
            Ok((d.shape.clone(), d.ids.clone()))
        }
        Obj::List(_) | Obj::Tuple(_) => {
            let items = iterate(o)?;
            let mut ids = vec![];
            for it in &items {
                match it.downcast::<Device>() {
                    Some(d) => ids.push(d.0),
                    None => bail!(
                        TypeError,
                        "Mesh devices must be devices, got {}",
                        it.type_name()
                    ),
                }
            }
            Ok((vec![ids.len()], ids))
        }
        o if o.downcast::<Device>().is_some() => {
            let d = o.downcast::<Device>().map_or(0, |d| d.0);
            Ok((vec![], vec![d]))
        }
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
    let mesh = Mesh::with_device_ids(&names, &shape, ids)?;
    Ok(Obj::lib(match a.get(Some(2), "axis_types") {
        Some(t) if !matches!(t, Obj::None) => {
            let types = context::axis_types_arg(&t, names.len())?;
            mesh.with_axis_types(types)?
        }
        _ => mesh,
    }))
}

/// `jax.make_mesh(axis_shapes, axis_names)`.
pub fn make_mesh(interp: &mut Interp, a: Args) -> Result<Obj> {
    let shape: Vec<usize> = iterate(&a.req(Some(0), "axis_shapes", "make_mesh")?)?
        .iter()
        .map(|o| to_int(o).map(|i| i as usize))
        .collect::<Result<_>>()?;
    let names = axis_names(&a.req(Some(1), "axis_names", "make_mesh")?)?;
    let n: usize = shape.iter().product();
    let have = super::jax::device_count(interp);
    if n > have {
        bail!(
            ValueError,
            "Number of devices {have} must be >= the product of mesh_shape {}",
            crate::array::fmt_shape(&shape)
        );
    }
    let ids = match a.get(None, "devices") {
        Some(d) => devices_of(&d)?.1,
        None => (0..n).collect(),
    };
    if ids.len() < n {
        bail!(
            ValueError,
            "Number of devices {} must be >= the product of mesh_shape {}",
            ids.len(),
            crate::array::fmt_shape(&shape)
        );
    }
    // `jax.make_mesh` makes every axis Explicit unless told otherwise.
    let types = match a.get(Some(2), "axis_types") {
        Some(t) if !matches!(t, Obj::None) => context::axis_types_arg(&t, names.len())?,
        _ => vec![crate::mesh::AxisType::Explicit; names.len()],
    };
    Ok(Obj::lib(
        Mesh::with_device_ids(&names, &shape, ids[..n].to_vec())?.with_axis_types(types)?,
    ))
}

/// `mesh_utils.create_device_mesh(shape)`.
pub fn create_device_mesh(interp: &mut Interp, a: Args) -> Result<Obj> {
    let shape: Vec<usize> = iterate(&a.req(Some(0), "mesh_shape", "create_device_mesh")?)?
        .iter()
        .map(|o| to_int(o).map(|i| i as usize))
        .collect::<Result<_>>()?;
    let n: usize = shape.iter().product();
    let have = super::jax::device_count(interp);
    if n > have {
        bail!(
            ValueError,
            "Number of devices {have} must be >= the product of mesh_shape {:?}",
            shape
        );
    }
    Ok(Obj::lib(DeviceArray {
        shape,
        ids: (0..n).collect(),
    }))
}

/// The `jax.sharding` module.
pub fn module() -> Obj {
    let mut b = Builder::new("jax.sharding");
    b.func("Mesh", mesh_new);
    b.attr("AxisType", Obj::lib(context::AxisTypeEnum));
    b.func("set_mesh", context::set_mesh);
    b.func("get_abstract_mesh", context::get_abstract_mesh);
    b.func("AbstractMesh", context::abstract_mesh_new);
    b.func("use_abstract_mesh", context::use_abstract_mesh);
    b.func("get_mesh", context::get_mesh);
    b.func("reshard", constraint::reshard);
    b.func("auto_axes", axes::auto_axes);
    b.func("explicit_axes", axes::explicit_axes);
    b.func("SingleDeviceSharding", |_, a| {
        let d = a.req(Some(0), "device", "SingleDeviceSharding")?;
        match d.downcast::<Device>() {
            Some(d) => Ok(Obj::lib(placed::SingleDeviceSharding(d.0))),
            None => bail!(
                TypeError,
                "SingleDeviceSharding expects a device, got {}",
                d.type_name()
            ),
        }
    });
    let p = Obj::lib(PartitionSpecType);
    b.attr("PartitionSpec", p.clone());
    b.attr("P", p);
    b.func("NamedSharding", |_, a| {
        let Some(mesh) = a
            .req(Some(0), "mesh", "NamedSharding")?
            .downcast_rc::<Mesh>()
        else {
            bail!(
                TypeError,
                "NamedSharding expects a Mesh as its first argument"
            );
        };
        let spec = match a.req(Some(1), "spec", "NamedSharding")? {
            o if o.downcast::<PartitionSpec>().is_some() => {
                o.downcast::<PartitionSpec>().cloned().unwrap_or_default()
            }
            other => bail!(
                TypeError,
                "NamedSharding spec must be a PartitionSpec, got {}",
                other.type_name()
            ),
        };
        spec.validate(&mesh, spec.entries.len())?;
        let memory_kind = match a.get(Some(2), "memory_kind") {
            None | Some(Obj::None) => crate::sharding::MemoryKind::Device,
            Some(Obj::Str(s)) => crate::sharding::MemoryKind::from_name(&s)?,
            Some(other) => bail!(
                TypeError,
                "memory_kind must be a string, got {}",
                other.type_name()
            ),
        };
        Ok(Obj::lib(NamedSharding {
            mesh,
            spec,
            memory_kind,
        }))
    });
    b.build()
}

/// `mesh.shape`: the axis sizes by name, an `OrderedDict` in JAX.
struct MeshShape(Vec<(String, usize)>);

impl MeshShape {
    fn dict(&self) -> Obj {
        let mut d = Dict::default();
        for (n, s) in &self.0 {
            d.set(Obj::str(n), Obj::Int(*s as i64));
        }
        Obj::Dict(Rc::new(std::cell::RefCell::new(d)))
    }
}

impl Object for MeshShape {
    fn type_name(&self) -> String {
        "OrderedDict".into()
    }

    /// The dict methods (`keys`, `values`, `items`, `get`) of the same
    /// mapping.
    fn getattr(&self, interp: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        match name {
            "keys" | "values" | "items" | "get" | "copy" => {
                crate::python::ops::getattr(interp, &self.dict(), name).map(Some)
            }
            _ => Ok(None),
        }
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        let items: Vec<String> = self
            .0
            .iter()
            .map(|(n, s)| format!("('{n}', {s})"))
            .collect();
        Some(format!("OrderedDict([{}])", items.join(", ")))
    }

    fn items(&self, _: &Obj) -> Option<Result<Vec<Obj>>> {
        Some(Ok(self.0.iter().map(|(n, _)| Obj::str(n)).collect()))
    }

    fn getitem(&self, interp: &mut Interp, _: &Obj, key: &Obj) -> Option<Result<Obj>> {
        Some(crate::python::ops::getitem(interp, &self.dict(), key))
    }

    fn eq(&self, _: &Obj, other: &Obj) -> Option<bool> {
        let mine = self.dict();
        Some(match other {
            Obj::Dict(_) => crate::python::ops::py_eq(&mine, other),
            o => o.downcast::<MeshShape>().is_some_and(|o| o.0 == self.0),
        })
    }
}

pub(crate) fn mesh_attr(m: &Mesh, name: &str) -> Result<Option<Obj>> {
    Ok(Some(match name {
        "shape" => Obj::lib(MeshShape(
            m.axis_names()
                .iter()
                .cloned()
                .zip(m.shape().iter().copied())
                .collect(),
        )),
        "axis_names" => Obj::tuple(m.axis_names().iter().map(Obj::str).collect()),
        "size" => Obj::Int(m.size() as i64),
        "devices" => Obj::lib(DeviceArray {
            shape: m.shape().to_vec(),
            ids: m.device_ids().to_vec(),
        }),
        "axis_sizes" => Obj::tuple(m.shape().iter().map(|&s| Obj::Int(s as i64)).collect()),
        "axis_types" => Obj::tuple(
            m.axis_types()
                .into_iter()
                .map(|t| Obj::lib(context::AxisTypeObj(t)))
                .collect(),
        ),
        "device_ids" => {
            let ids: Vec<i32> = m.device_ids().iter().map(|&d| d as i32).collect();
            Obj::Array(crate::trace::Value::Concrete(
                crate::array::Array::from_i32(m.shape(), ids)?,
            ))
        }
        "empty" => Obj::Bool(m.shape().is_empty()),
        "abstract_mesh" => Obj::lib(context::AbstractMesh::of(Some(Rc::new(m.clone())))),
        _ => return Ok(None),
    }))
}

fn devices_attr(d: &DeviceArray, name: &str) -> Result<Option<Obj>> {
    Ok(Some(match name {
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
                Ok(Obj::lib(DeviceArray {
                    shape,
                    ids: d.ids.clone(),
                }))
            })
        }
        "flatten" | "ravel" => {
            let d = d.clone();
            Obj::native(name, move |_, _| {
                Ok(Obj::lib(DeviceArray {
                    shape: vec![d.ids.len()],
                    ids: d.ids.clone(),
                }))
            })
        }
        "tolist" => {
            let d = d.clone();
            Obj::native(name, move |_, _| {
                Ok(Obj::list(
                    d.ids.iter().map(|&i| Obj::lib(Device(i))).collect(),
                ))
            })
        }
        _ => return Ok(None),
    }))
}
