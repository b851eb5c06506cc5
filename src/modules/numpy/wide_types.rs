//! `jnp.float64`, `jnp.int64`, `jnp.uint64` and `jnp.complex128`: JAX
//! without x64 keeps them as types of their own. They print as
//! `<class 'jax.numpy.float64'>`, equal NumPy's type of the same name and
//! nothing 32-bit (so `x.dtype == jnp.float64` is False for a float32 `x`),
//! and an array asked for one is 32-bit, with JAX's UserWarning (see
//! `x64_warning`). Calling one is `jnp.asarray(x, dtype=...)`, as in JAX.

use crate::array::DType;
use crate::error::Result;
use crate::modules::std::warnings::{warn, Place};
use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::value::{Args, Obj};

use super::host::Kind;
use super::scalar_types::HostType;

/// A 64-bit jnp scalar type: its name and the dtype arrays get instead.
pub struct WideType {
    /// `float64`, `int64`, `uint64` or `complex128`.
    pub name: &'static str,
    /// The 32-bit dtype JAX gives arrays asked for this type.
    pub narrow: DType,
}

/// The four types, as `jax.numpy` names them.
pub fn types() -> [(&'static str, Obj); 4] {
    let t = |name, narrow| (name, Obj::lib(WideType { name, narrow }));
    [
        t("float64", DType::F32),
        t("int64", DType::I32),
        t("uint64", DType::U32),
        t("complex128", DType::C64),
    ]
}

impl WideType {
    /// NumPy's kind of the same name, where shardlab has one.
    pub fn host_kind(&self) -> Option<Kind> {
        match self.name {
            "float64" => Some(Kind::Float64),
            "int64" => Some(Kind::Int64),
            _ => None,
        }
    }
}

impl Object for WideType {
    fn type_name(&self) -> String {
        "_ScalarMeta".into()
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some(format!("<class 'jax.numpy.{}'>", self.name))
    }

    fn type_module(&self) -> Option<&'static str> {
        Some("jax._src.numpy.scalar_types")
    }

    fn class_name(&self) -> Option<String> {
        Some(format!("jax.numpy.{}", self.name))
    }

    fn subclasscheck(&self, _: &Obj) -> Option<bool> {
        Some(false)
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        Ok(Some(match name {
            "__name__" => Obj::str(self.name),
            "__module__" => Obj::str("jax.numpy"),
            "dtype" => match self.host_kind() {
                Some(kind) => HostType::dtype_obj(kind),
                None => crate::bail!(
                    NotImplementedError,
                    "not supported by shardlab yet: jax.numpy.{}.dtype",
                    self.name
                ),
            },
            _ => return Ok(None),
        }))
    }

    fn call(&self, interp: &mut Interp, _: &Obj, a: Args) -> Option<Result<Obj>> {
        Some(self.convert(interp, a))
    }

    fn eq(&self, _: &Obj, other: &Obj) -> Option<bool> {
        if let Some(w) = other.downcast::<WideType>() {
            return Some(w.name == self.name);
        }
        if let Some(t) = other.downcast::<super::jnp_scalar_types::ScalarType>() {
            return Some(t.name == self.name);
        }
        Some(
            other
                .downcast::<HostType>()
                .is_some_and(|h| h.is_type && Some(h.kind) == self.host_kind()),
        )
    }
}

impl WideType {
    /// `jnp.float64(x)`: `x` as a 32-bit array, warning as JAX does from
    /// its scalar type's `__call__`.
    fn convert(&self, interp: &mut Interp, a: Args) -> Result<Obj> {
        let x = a.req(Some(0), "x", self.name)?;
        let text = format!(
            "Explicitly requested dtype {} requested in asarray is not available, and will be \
             truncated to dtype {}. To enable more dtypes, set the jax_enable_x64 configuration \
             option or the JAX_ENABLE_X64 shell environment variable. See \
             https://github.com/jax-ml/jax#current-gotchas for more.",
            self.name,
            self.narrow.name()
        );
        warn(
            interp,
            "UserWarning",
            &text,
            Place::Library("jax._src.numpy.scalar_types", 55),
        )?;
        let jnp = crate::modules::import(interp, "jax.numpy")?;
        let asarray = crate::python::ops::getattr(interp, &jnp, "asarray")?;
        let kw = vec![("dtype".to_string(), Obj::DType(self.narrow))];
        interp.call(&asarray, Args::with(vec![x], kw))
    }
}
