//! `jax.ShapeDtypeStruct`: a shape and a dtype standing for an array that
//! does not exist, which is what `jax.eval_shape` returns and accepts, and
//! what `jax.pure_callback` and `io_callback` are told their results are.
//!
//! JAX keeps the dtype it is given without canonicalizing it, so
//! `ShapeDtypeStruct((2,), float)` shows `float64` even though arrays made
//! from it are float32; shardlab keeps that name for printing and computes
//! with the canonical dtype.

use std::sync::Arc;

use super::sharding::placed::{type_spec, AbstractSharding};
use crate::array::DType;
use crate::bail;
use crate::error::Result;
use crate::ir::Aval;
use crate::mesh::{AxisType, Mesh};
use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::value::{Args, Obj};
use crate::sharding::{NamedSharding, PartitionSpec, Placement};

use super::numpy::dtypes::dtype_of;

/// A `jax.ShapeDtypeStruct` instance.
#[derive(Clone)]
pub struct ShapeDtypeStruct {
    /// Dimensions.
    pub shape: Vec<usize>,
    /// The dtype arrays of this struct have.
    pub dtype: DType,
    /// The dtype's name as given (`float64` for Python's `float`).
    pub dtype_name: String,
    /// `weak_type=True`.
    pub weak_type: bool,
    /// The sharding, as given or as `eval_shape` found it (None: none).
    pub sharding: Obj,
    /// Where arrays of this struct live, for tracing functions of it.
    pub placement: Option<Arc<Placement>>,
}

impl ShapeDtypeStruct {
    /// The struct of an abstract value.
    pub fn of(aval: &Aval) -> ShapeDtypeStruct {
        ShapeDtypeStruct {
            shape: aval.shape.clone(),
            dtype: aval.dtype,
            dtype_name: aval.dtype.name().to_string(),
            weak_type: aval.weak,
            sharding: Obj::None,
            placement: None,
        }
    }

    /// The struct of a value of `aval` placed at `placement`, as
    /// `eval_shape` reports it: JAX gives it the sharding of its type when
    /// that is over a mesh whose axes are all explicit (the context mesh's,
    /// replicated, for a value placed nowhere), and no sharding otherwise.
    pub fn placed(
        aval: &Aval,
        placement: Option<Arc<Placement>>,
        context: Option<&Mesh>,
    ) -> ShapeDtypeStruct {
        let explicit = |m: &Mesh| {
            !m.axis_names().is_empty() && m.axis_types().iter().all(|t| *t == AxisType::Explicit)
        };
        let typed = match placement.as_deref() {
            Some(Placement::Named(s)) if explicit(&s.mesh) => Some(NamedSharding::new(
                s.mesh.clone(),
                type_spec(&s.spec, &s.mesh),
            )),
            None => context
                .filter(|m| explicit(m))
                .map(|m| NamedSharding::new(m.clone(), PartitionSpec::replicated())),
            _ => None,
        };
        let mut out = ShapeDtypeStruct::of(aval);
        if let Some(mut s) = typed {
            s.spec.entries.resize(aval.shape.len(), None);
            out.placement = Some(Arc::new(Placement::Named(s.clone())));
            out.sharding = Obj::lib(AbstractSharding(s));
        }
        out
    }

    /// The abstract value it stands for.
    pub fn aval(&self) -> Aval {
        Aval::new(&self.shape, self.dtype).with_weak(self.weak_type)
    }
}

/// The dtype's name as JAX keeps it: Python's `float` and `int` are the
/// 64-bit types, which JAX does not narrow in a struct.
fn given_name(o: &Obj, dtype: DType) -> String {
    match o {
        Obj::Type("float") => "float64".into(),
        Obj::Type("int") => "int64".into(),
        Obj::Str(s) => match &**s {
            "float" | "float64" => "float64".into(),
            "int" | "int64" => "int64".into(),
            _ => dtype.name().into(),
        },
        _ => dtype.name().into(),
    }
}

/// A shape argument: a tuple or list of ints.
fn shape_of(o: &Obj) -> Result<Vec<usize>> {
    let items = crate::python::ops::iterate(o)?;
    items
        .iter()
        .map(|d| match d {
            Obj::Int(n) if *n >= 0 => Ok(*n as usize),
            // JAX shows the whole shape.
            _ => bail!(
                TypeError,
                "Shapes must be 1D sequences of concrete values of integer type, got {}.",
                crate::python::format::repr_of(o)
            ),
        })
        .collect()
}

/// `jax.ShapeDtypeStruct(shape, dtype, sharding=None, weak_type=False)`.
fn construct(interp: &mut Interp, a: &Args) -> Result<Obj> {
    let shape = shape_of(&a.req(Some(0), "shape", "ShapeDtypeStruct")?)?;
    let d = a.req(Some(1), "dtype", "ShapeDtypeStruct")?;
    let dtype = dtype_of(&d)?;
    let (sharding, placement) = given_sharding(interp, a.get(Some(2), "sharding"))?;
    let weak_type = match a.get(None, "weak_type") {
        Some(w) => crate::python::ops::truthy(&w, "weak_type")?,
        None => false,
    };
    Ok(Obj::lib(ShapeDtypeStruct {
        shape,
        dtype,
        dtype_name: given_name(&d, dtype),
        weak_type,
        sharding,
        placement,
    }))
}

/// A struct's `sharding=`: a `NamedSharding`, or a `PartitionSpec` over the
/// context mesh, which JAX turns into a `NamedSharding` on it.
fn given_sharding(interp: &mut Interp, s: Option<Obj>) -> Result<(Obj, Option<Arc<Placement>>)> {
    let s = match s {
        None | Some(Obj::None) => return Ok((Obj::None, None)),
        Some(s) => s,
    };
    if let Some(ns) = s.downcast::<crate::modules::sharding::NamedSharding>() {
        return Ok((s.clone(), Some(Arc::new(ns.placement()))));
    }
    let mesh = crate::modules::sharding::context::context_mesh(interp);
    match (s.downcast::<PartitionSpec>(), mesh) {
        (Some(_), None) => bail!(
            TypeError,
            "When specifying PartitionSpec to `ShapeDtypeStruct`, the context mesh cannot be empty. Please use `jax.set_mesh` to set the mesh context."
        ),
        (Some(spec), Some(mesh)) => {
            let ns = crate::modules::sharding::NamedSharding {
                mesh,
                spec: spec.clone(),
                memory_kind: Default::default(),
            };
            let placement = Some(Arc::new(ns.placement()));
            Ok((Obj::lib(ns), placement))
        }
        _ => bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.ShapeDtypeStruct(sharding=) given a {}",
            s.type_name()
        ),
    }
}

/// `ShapeDtypeStruct.like(x)`: the struct of an array (or of a struct).
fn like(_: &mut Interp, a: Args) -> Result<Obj> {
    let x = a.req(Some(0), "x", "ShapeDtypeStruct.like")?;
    Ok(Obj::lib(ShapeDtypeStruct::of(&aval_of(&x)?)))
}

/// Where an argument of `eval_shape` lives: a struct's sharding, or an
/// array's placement.
pub fn placement_of(o: &Obj) -> Result<Option<Arc<Placement>>> {
    match o.downcast::<ShapeDtypeStruct>() {
        Some(s) => Ok(s.placement.clone()),
        None => Ok(
            super::scan_sharding::placements(&[crate::python::array::to_value(o)?])?
                .pop()
                .flatten(),
        ),
    }
}

/// The abstract value of an argument of `eval_shape` or of a callback's
/// result description: a struct, an array, or a Python number.
pub fn aval_of(o: &Obj) -> Result<Aval> {
    match o.downcast::<ShapeDtypeStruct>() {
        Some(s) => Ok(s.aval()),
        None => Ok(crate::python::array::to_value(o)?.aval()),
    }
}

impl Object for ShapeDtypeStruct {
    fn type_name(&self) -> String {
        "ShapeDtypeStruct".into()
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        Ok(Some(match name {
            "shape" => Obj::tuple(self.shape.iter().map(|&d| Obj::Int(d as i64)).collect()),
            "dtype" => Obj::DType(self.dtype),
            "ndim" => Obj::Int(self.shape.len() as i64),
            "size" => Obj::Int(self.shape.iter().product::<usize>() as i64),
            "weak_type" => Obj::Bool(self.weak_type),
            "sharding" => self.sharding.clone(),
            _ => return Ok(None),
        }))
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        let weak = if self.weak_type {
            ", weak_type=True"
        } else {
            ""
        };
        let sharding = match &self.sharding {
            Obj::None => String::new(),
            s => format!(", sharding={}", crate::python::format::repr_of(s)),
        };
        Some(format!(
            "ShapeDtypeStruct(shape={}, dtype={}{sharding}{weak})",
            crate::array::shape_tuple(&self.shape),
            self.dtype_name
        ))
    }

    fn eq(&self, _: &Obj, other: &Obj) -> Option<bool> {
        Some(other.downcast::<ShapeDtypeStruct>().is_some_and(|o| {
            o.shape == self.shape
                && o.dtype_name == self.dtype_name
                && o.weak_type == self.weak_type
                && o.placement == self.placement
        }))
    }
}

/// The class `jax.ShapeDtypeStruct`.
struct ShapeDtypeStructType;

impl Object for ShapeDtypeStructType {
    fn type_name(&self) -> String {
        "type".into()
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        Ok(match name {
            "like" => Some(Obj::native("like", like)),
            "__name__" => Some(Obj::str("ShapeDtypeStruct")),
            _ => None,
        })
    }

    fn call(&self, interp: &mut Interp, _: &Obj, a: Args) -> Option<Result<Obj>> {
        Some(construct(interp, &a))
    }

    fn callable(&self) -> bool {
        true
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some("<class 'jax.ShapeDtypeStruct'>".into())
    }

    fn instancecheck(&self, obj: &Obj) -> Option<bool> {
        Some(obj.downcast::<ShapeDtypeStruct>().is_some())
    }
}

/// The class object, for the `jax` module.
pub fn class() -> Obj {
    Obj::lib(ShapeDtypeStructType)
}
