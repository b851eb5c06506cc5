//! The context mesh and mesh axis types: `jax.set_mesh`, `get_abstract_mesh`,
//! `get_mesh`, `jax.sharding.AxisType` and `AbstractMesh`.
//!
//! `jax.set_mesh(mesh)` makes `mesh` the run's context mesh at once (the
//! setter form) and returns a context manager whose exit restores the mesh
//! that was current before the call (the `with` form), as JAX 0.10.2 does.
//! The context mesh is run state kept in the interpreter
//! ([`Interp::state`]), so it never outlives a run.

use std::rc::Rc;

use crate::error::Result;
use crate::mesh::{AxisType, Mesh};
use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::ops::iterate;
use crate::python::value::{Args, Obj};
use crate::{bail, err};

/// The run's context mesh (what `jax.set_mesh` set), if any.
#[derive(Default)]
pub struct ContextMesh(pub Option<Rc<Mesh>>);

/// The context mesh installed by `use_abstract_mesh`, whose abstract mesh
/// (what `get_abstract_mesh` returns) names no device kind.
#[derive(Default)]
struct UsedAbstract(Option<Rc<Mesh>>);

/// The context mesh of the run, if one is set.
pub fn context_mesh(interp: &mut Interp) -> Option<Rc<Mesh>> {
    interp.state::<ContextMesh>().0.clone()
}

/// One member of `jax.sharding.AxisType`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AxisTypeObj(pub AxisType);

impl Object for AxisTypeObj {
    fn type_name(&self) -> String {
        "AxisType".into()
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        Ok(match name {
            "name" => Some(Obj::str(self.0.name())),
            _ => None,
        })
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some(self.0.name().into())
    }

    fn str(&self, _: &Obj) -> Option<String> {
        Some(format!("AxisType.{}", self.0.name()))
    }

    fn eq(&self, _: &Obj, other: &Obj) -> Option<bool> {
        Some(other.downcast::<AxisTypeObj>() == Some(self))
    }
}

const AXIS_TYPES: [AxisType; 3] = [AxisType::Auto, AxisType::Explicit, AxisType::Manual];

/// The enumeration `jax.sharding.AxisType`: its members as attributes, and
/// iterable in JAX's order (Auto, Explicit, Manual).
pub struct AxisTypeEnum;

impl Object for AxisTypeEnum {
    fn type_name(&self) -> String {
        "EnumType".into()
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        Ok(AXIS_TYPES
            .iter()
            .find(|t| t.name() == name)
            .map(|&t| Obj::lib(AxisTypeObj(t))))
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some("<enum 'AxisType'>".into())
    }

    fn items(&self, _: &Obj) -> Option<Result<Vec<Obj>>> {
        Some(Ok(AXIS_TYPES
            .iter()
            .map(|&t| Obj::lib(AxisTypeObj(t)))
            .collect()))
    }
}

/// The `axis_types=` argument: a tuple of `AxisType` members, one per axis.
pub fn axis_types_arg(o: &Obj, naxes: usize) -> Result<Vec<AxisType>> {
    let items = match o {
        Obj::Tuple(_) | Obj::List(_) => iterate(o)?,
        one => vec![one.clone(); naxes],
    };
    items
        .iter()
        .map(|t| {
            t.downcast::<AxisTypeObj>().map(|t| t.0).ok_or_else(|| {
                err!(
                    TypeError,
                    "axis_types must be jax.sharding.AxisType members, got {}",
                    t.type_name()
                )
            })
        })
        .collect()
}

/// `jax.sharding.AbstractMesh`: a mesh's axes without its devices, as
/// `get_abstract_mesh()` returns it (the device ids of the mesh it holds
/// are not part of it). One built by the user has no abstract device.
pub struct AbstractMesh(pub Option<Rc<Mesh>>, pub Device);

/// Whether an abstract mesh names the kind of device it stands for.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Device {
    Cpu,
    Unnamed,
}

impl AbstractMesh {
    /// The abstract mesh of a concrete one.
    pub fn of(mesh: Option<Rc<Mesh>>) -> AbstractMesh {
        AbstractMesh(mesh, Device::Cpu)
    }
}

/// The repr of an abstract mesh with no device kind.
fn unnamed_text(m: &Mesh) -> String {
    format!(
        "AbstractMesh({}, axis_types={})",
        m.axes_text(),
        crate::mesh::fmt_types(&m.axis_types())
    )
}

/// `jax.sharding.AbstractMesh(axis_sizes, axis_names, axis_types=None)`.
pub fn abstract_mesh_new(_: &mut Interp, a: Args) -> Result<Obj> {
    let sizes = iterate(&a.req(Some(0), "axis_sizes", "AbstractMesh")?)?
        .iter()
        .map(|o| crate::python::builtins::to_int(o).map(|n| n.max(0) as usize))
        .collect::<Result<Vec<usize>>>()?;
    let names = iterate(&a.req(Some(1), "axis_names", "AbstractMesh")?)?
        .iter()
        .map(|o| match o {
            Obj::Str(s) => Ok(s.to_string()),
            other => bail!(
                TypeError,
                "axis_names must be strings, got {}",
                other.type_name()
            ),
        })
        .collect::<Result<Vec<String>>>()?;
    let types = match a.get(Some(2), "axis_types") {
        None | Some(Obj::None) => vec![AxisType::Auto; names.len()],
        Some(t) => axis_types_arg(&t, names.len())?,
    };
    if types.len() != names.len() {
        bail!(
            ValueError,
            "Number of axis names should match the number of axis_types. Got axis_names={} and axis_types={}",
            crate::mesh::fmt_names(&names),
            crate::mesh::fmt_types(&types)
        );
    }
    let n = sizes.iter().product();
    let mesh = Mesh::with_device_ids(&names, &sizes, (0..n).collect())?.with_axis_types(types)?;
    Ok(Obj::lib(AbstractMesh(Some(Rc::new(mesh)), Device::Unnamed)))
}

/// The context mesh and the mesh `use_abstract_mesh` had installed.
type Saved = (Option<Rc<Mesh>>, Option<Rc<Mesh>>);

/// What `jax.sharding.use_abstract_mesh(mesh)` returns: inside it the
/// context mesh has the abstract mesh's axes, on the devices of the mesh it
/// replaces (which must be as many; with no mesh before, the first ones).
struct UseAbstractMesh {
    mesh: Rc<Mesh>,
    /// The context mesh and the one `use_abstract_mesh` had installed,
    /// before `__enter__`.
    previous: std::cell::RefCell<Option<Saved>>,
}

impl Object for UseAbstractMesh {
    fn type_name(&self) -> String {
        "use_abstract_mesh".into()
    }

    fn getattr(&self, _: &mut Interp, this: &Obj, name: &str) -> Result<Option<Obj>> {
        let this = this.clone();
        Ok(match name {
            "__enter__" => Some(Obj::native("use_abstract_mesh.__enter__", move |i, _| {
                let Some(me) = this.downcast::<UseAbstractMesh>() else {
                    return Ok(Obj::None);
                };
                let prev = context_mesh(i);
                let ids = match &prev {
                    Some(p) if p.size() != me.mesh.size() => bail!(
                        ValueError,
                        "use_abstract_mesh cannot change the size of the mesh. Got new mesh: {} with size={} and prev mesh: {} with size={}",
                        unnamed_text(&me.mesh),
                        me.mesh.size(),
                        p.abstract_text(),
                        p.size()
                    ),
                    Some(p) => p.device_ids().to_vec(),
                    None => me.mesh.device_ids().to_vec(),
                };
                let names = me.mesh.axis_names().to_vec();
                let mesh = Mesh::with_device_ids(&names, me.mesh.shape(), ids)?
                    .with_axis_types(me.mesh.axis_types())?;
                let mesh = Rc::new(mesh);
                let used = i.state::<UsedAbstract>().0.replace(mesh.clone());
                *me.previous.borrow_mut() = Some((prev, used));
                i.state::<ContextMesh>().0 = Some(mesh);
                Ok(Obj::None)
            })),
            "__exit__" => Some(Obj::native("use_abstract_mesh.__exit__", move |i, _| {
                if let Some(me) = this.downcast::<UseAbstractMesh>() {
                    if let Some((prev, used)) = me.previous.borrow_mut().take() {
                        i.state::<ContextMesh>().0 = prev;
                        i.state::<UsedAbstract>().0 = used;
                    }
                }
                Ok(Obj::Bool(false))
            })),
            _ => None,
        })
    }
}

/// `jax.sharding.use_abstract_mesh(mesh)`.
pub fn use_abstract_mesh(_: &mut Interp, a: Args) -> Result<Obj> {
    let m = a.req(Some(0), "mesh", "use_abstract_mesh")?;
    match m.downcast::<AbstractMesh>() {
        Some(AbstractMesh(Some(mesh), _)) => Ok(Obj::lib(UseAbstractMesh {
            mesh: mesh.clone(),
            previous: Default::default(),
        })),
        _ => bail!(
            ValueError,
            "Expected mesh of type `jax.sharding.AbstractMesh`. Got type: <class '{}'>",
            match m.downcast::<Mesh>() {
                Some(_) => "jax._src.mesh.Mesh".to_string(),
                None => m.type_name(),
            }
        ),
    }
}

impl Object for AbstractMesh {
    fn type_name(&self) -> String {
        "AbstractMesh".into()
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        let Some(m) = &self.0 else {
            return Ok(match name {
                "empty" => Some(Obj::Bool(true)),
                "axis_names" | "axis_sizes" | "axis_types" => Some(Obj::tuple(vec![])),
                "size" => Some(Obj::Int(1)),
                _ => None,
            });
        };
        Ok(match name {
            "empty" => Some(Obj::Bool(false)),
            "axis_names" | "axis_sizes" | "axis_types" | "shape" | "size" | "shape_tuple" => {
                super::mesh_attr(m, name)?
            }
            _ => None,
        })
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some(match (&self.0, self.1) {
            (None, _) => "AbstractMesh((), axis_types=())".into(),
            (Some(m), Device::Cpu) => m.abstract_text(),
            (Some(m), Device::Unnamed) => unnamed_text(m),
        })
    }
}

/// What `jax.set_mesh` returns: exiting it restores the previous mesh.
struct SetMesh {
    previous: Option<Rc<Mesh>>,
}

impl Object for SetMesh {
    fn type_name(&self) -> String {
        "set_mesh".into()
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some(format!(
            "<jax._src.sharding_impls.set_mesh object at {:#x}>",
            self as *const SetMesh as usize
        ))
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        Ok(match name {
            "__enter__" => Some(Obj::native("set_mesh.__enter__", |_, _| Ok(Obj::None))),
            "__exit__" => {
                let previous = self.previous.clone();
                Some(Obj::native("set_mesh.__exit__", move |i, _| {
                    i.state::<ContextMesh>().0 = previous.clone();
                    Ok(Obj::Bool(false))
                }))
            }
            _ => None,
        })
    }
}

/// `jax.set_mesh(mesh)`.
pub fn set_mesh(interp: &mut Interp, a: Args) -> Result<Obj> {
    let m = a.req(Some(0), "mesh", "set_mesh")?;
    let mesh = match &m {
        Obj::None => None,
        o => match o.downcast_rc::<Mesh>() {
            Some(m) => Some(m),
            None => bail!(
                ValueError,
                "Expected mesh of type `jax.sharding.Mesh`. Got {}",
                o.type_name()
            ),
        },
    };
    let previous = std::mem::replace(&mut interp.state::<ContextMesh>().0, mesh);
    Ok(Obj::lib(SetMesh { previous }))
}

/// `jax.sharding.get_abstract_mesh()`.
pub fn get_abstract_mesh(interp: &mut Interp, _: Args) -> Result<Obj> {
    let mesh = context_mesh(interp);
    let used = interp.state::<UsedAbstract>().0.clone();
    let unnamed = matches!((&mesh, &used), (Some(m), Some(u)) if Rc::ptr_eq(m, u));
    let device = if unnamed {
        Device::Unnamed
    } else {
        Device::Cpu
    };
    Ok(Obj::lib(AbstractMesh(mesh, device)))
}

/// `jax.sharding.get_mesh()`: the context mesh, or an empty mesh.
pub fn get_mesh(interp: &mut Interp, _: Args) -> Result<Obj> {
    Ok(match context_mesh(interp) {
        Some(m) => Obj::Lib(m),
        None => Obj::lib(Mesh::with_device_ids(&[], &[], vec![0])?),
    })
}

/// Places the arrays a `jax.numpy` function made under a context mesh, as
/// JAX does: replicated over that mesh, spelled `P()` for arrays converted
/// from data and for meshes without explicit axes, and with one `None` per
/// dimension for computed arrays on a mesh with explicit axes. Arrays that
/// already have a placement keep it.
fn place_new(interp: &mut Interp, name: &str, out: Obj) -> Result<Obj> {
    let Some(mesh) = context_mesh(interp) else {
        return Ok(out);
    };
    let explicit = mesh.axis_types().contains(&AxisType::Explicit);
    let converted = matches!(name, "asarray" | "array");
    let (leaves, def) = crate::python::pytree::flatten_known(&out)?;
    let placed: Vec<Obj> = leaves
        .into_iter()
        .map(|leaf| match leaf {
            Obj::Array(crate::trace::Value::Concrete(a)) if a.placement().is_none() => {
                let n = if explicit && !converted { a.ndim() } else { 0 };
                let spec = crate::sharding::PartitionSpec::new(vec![None; n]);
                let p = crate::sharding::Placement::Named(crate::sharding::NamedSharding::new(
                    (*mesh).clone(),
                    spec,
                ));
                Obj::Array(crate::trace::Value::Concrete(
                    a.with_placement(Some(std::sync::Arc::new(p))),
                ))
            }
            other => other,
        })
        .collect();
    crate::python::pytree::unflatten_known(&def, &placed)
}

/// Wraps every function of a `jax.numpy`-like module so that the arrays it
/// makes under a context mesh are placed on it (see [`place_new`]), and
/// the functions that take `out_sharding=` honour it.
pub fn placing_functions(module: Obj) -> Obj {
    if let Obj::Module(m) = &module {
        for (name, f) in m.attrs.borrow_mut().iter_mut() {
            if let Obj::Native(n) = f {
                let (inner, fname) = (n.f.clone(), name.clone());
                let takes = super::out_sharding::takes(name);
                *f = Obj::native(&n.name, move |i, mut a| {
                    let out = if takes {
                        a.take_kw("out_sharding")
                    } else {
                        None
                    };
                    let out = match out {
                        Some(o) if !matches!(o, Obj::None) => {
                            super::out_sharding::with_out_sharding(i, &fname, &inner, a, o)?
                        }
                        _ => inner(i, a)?,
                    };
                    place_new(i, &fname, out)
                });
            }
        }
    }
    module
}
