//! `jnp.float32`, `jnp.int32`, `jnp.bfloat16`, ... as JAX has them: classes
//! (of the metaclass `_ScalarMeta`) that stand for a dtype, not dtype
//! values. They print as `<class 'jax.numpy.float32'>`; calling one makes
//! an array of its dtype; `jnp.float32.dtype` is the dtype; they equal
//! their dtype (`x.dtype == jnp.float32`) and NumPy's scalar type of the
//! same name, yet as dict keys and set members they are classes, apart
//! from dtypes; `isinstance(x, jnp.float32)` holds for NumPy's scalars of
//! the type only, and no abstract class is their base (`issubclass` of one
//! and `jnp.floating` is False; `jnp.issubdtype` answers that question).
//!
//! NumPy's scalar types that have no host arrays here (`np.int8`,
//! `np.float16`, `np.complex64`, ...) are the same kind of object under
//! `numpy`'s name; NumPy's scalars of them are not objects of shardlab's,
//! so calling one is refused.
//!
//! Wherever a dtype argument is read, [`super::dtypes::dtype_of`] takes
//! these as it takes dtypes.

use crate::array::DType;
use crate::error::Result;
use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::value::{Args, Obj};

use super::narrow_scalar::NarrowScalar;
use super::scalar::NpScalar;
use super::scalar_types::HostType;
use super::wide_types::WideType;

/// A scalar type named `module.name` whose arrays have `dtype`.
pub struct ScalarType {
    /// NumPy's name of the type (`float32`, `bool`, `complex128`).
    pub name: &'static str,
    /// The dtype arrays asked for it get.
    pub dtype: DType,
    /// `jax.numpy` or `numpy`.
    pub module: &'static str,
}

impl ScalarType {
    /// `module`'s scalar type of `dtype`, under the dtype's own name.
    pub fn obj(dtype: DType, module: &'static str) -> Obj {
        Self::named(dtype.name(), dtype, module)
    }

    /// `module`'s scalar type `name`, whose arrays have `dtype` (NumPy's
    /// `complex128` holds complex64 arrays where it meets JAX).
    pub fn named(name: &'static str, dtype: DType, module: &'static str) -> Obj {
        Obj::lib(ScalarType {
            name,
            dtype,
            module,
        })
    }

    /// True when `other` is this type or its dtype, as `_ScalarMeta`'s
    /// `==` (which compares NumPy's scalar type of the name) answers.
    fn equals(&self, other: &Obj) -> bool {
        if let Some(s) = other.downcast::<ScalarType>() {
            return s.name == self.name;
        }
        if let Some(h) = other.downcast::<HostType>() {
            return h.kind.name() == self.name;
        }
        if let Some(w) = other.downcast::<WideType>() {
            return w.name == self.name;
        }
        // A dtype equals the type; a string does not (`jnp.float32 ==
        // 'float32'` is False, though `x.dtype == 'float32'` holds).
        matches!(other, Obj::DType(d) if d.name() == self.name)
    }
}

impl Object for ScalarType {
    fn type_name(&self) -> String {
        if self.module == "jax.numpy" {
            "_ScalarMeta"
        } else {
            "type"
        }
        .into()
    }

    fn type_module(&self) -> Option<&'static str> {
        (self.module == "jax.numpy").then_some("jax._src.numpy.scalar_types")
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some(format!("<class '{}.{}'>", self.module, self.name))
    }

    fn class_name(&self) -> Option<String> {
        Some(format!("{}.{}", self.module, self.name))
    }

    fn subclasscheck(&self, cls: &Obj) -> Option<bool> {
        let _ = cls;
        Some(false)
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        Ok(Some(match name {
            "dtype" => Obj::DType(self.dtype),
            "__name__" | "__qualname__" => Obj::str(self.name),
            "__module__" => Obj::str(self.module),
            _ => return Ok(None),
        }))
    }

    fn eq(&self, _: &Obj, other: &Obj) -> Option<bool> {
        Some(self.equals(other))
    }

    /// NumPy's scalars of the type are its instances; a JAX array is not.
    fn instancecheck(&self, obj: &Obj) -> Option<bool> {
        let narrow = obj
            .downcast::<NarrowScalar>()
            .is_some_and(|s| s.dtype.name() == self.name);
        Some(
            narrow
                || obj
                    .downcast::<NpScalar>()
                    .is_some_and(|s| s.kind.name() == self.name),
        )
    }

    fn callable(&self) -> bool {
        true
    }

    /// `jnp.float32(x)` is `jnp.asarray(x, dtype=jnp.float32)`;
    /// `np.float16(x)` and ml_dtypes' `bfloat16(x)` make a scalar.
    fn call(&self, _: &mut Interp, _: &Obj, a: Args) -> Option<Result<Obj>> {
        if self.module != "jax.numpy" && matches!(self.dtype, DType::F16 | DType::BF16) {
            return Some(narrow_scalar(self, &a));
        }
        if self.module != "jax.numpy" {
            return Some(Err(crate::err!(
                NotImplementedError,
                "not supported by shardlab yet: {}.{} scalars",
                self.module,
                self.name
            )));
        }
        Some(crate::python::array::cast_to(self.dtype, a))
    }
}

/// The scalar `t(x)` makes of a number: NumPy's float16 or ml_dtypes'
/// bfloat16 (a sequence would make a NumPy array, which is refused).
fn narrow_scalar(t: &ScalarType, a: &Args) -> Result<Obj> {
    let x = a.opt(Some(0), "x").unwrap_or(Obj::Float(0.0));
    match x.as_number() {
        Some(v) => Ok(NarrowScalar::obj(t.dtype, v)),
        None => crate::bail!(
            NotImplementedError,
            "not supported by shardlab yet: {}.{} of a {}",
            t.module,
            t.name,
            x.type_name()
        ),
    }
}

/// The dtype `o` is exactly, when it is a dtype value or a scalar type
/// standing for one with its own name (`x.dtype`, `jnp.float32`); None for
/// anything else (a name, a 64-bit type, a Python type). What a check
/// such as "is this float32" reads.
pub fn exact_dtype(o: &Obj) -> Option<DType> {
    match o {
        Obj::DType(d) => Some(*d),
        _ => o
            .downcast::<ScalarType>()
            .filter(|t| t.name == t.dtype.name())
            .map(|t| t.dtype),
    }
}

/// `jnp.float32`, the default of Flax's `param_dtype`.
pub fn float32() -> Obj {
    ScalarType::obj(DType::F32, "jax.numpy")
}
