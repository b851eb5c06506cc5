//! `jax.dtypes`: `canonicalize_dtype` (a dtype as JAX holds arrays of it
//! without x64: `float64` is `float32`), `bfloat16`, `finfo`, `iinfo`,
//! `issubdtype` and `result_type` (those of `jax.numpy`), and the classes
//! `extended` and `prng_key` that a typed key's dtype (`key<fry>`)
//! derives from. `float0`, `scalar_type_of`, `itemsize_bits` and
//! `TypePromotionError` are refused by name.

use crate::array::DType;
use crate::error::Result;
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};

use super::super::Builder;
use super::dtype_queries;

/// The `jax.dtypes` module.
pub fn module(interp: &mut Interp) -> Result<Obj> {
    let jnp = super::super::import(interp, "jax.numpy")?;
    let mut b = Builder::new("jax.dtypes");
    for name in ["finfo", "iinfo", "issubdtype", "result_type"] {
        b.attr(name, crate::python::ops::getattr(interp, &jnp, name)?);
    }
    // ml_dtypes' scalar type, which `jnp.bfloat16` equals.
    b.attr(
        "bfloat16",
        super::jnp_scalar_types::ScalarType::named("bfloat16", DType::BF16, "ml_dtypes"),
    );
    b.func("canonicalize_dtype", canonicalize_dtype);
    dtype_queries::register_key_classes(&mut b);
    Ok(b.build())
}

/// `canonicalize_dtype(dtype, allow_extended_dtype=False)`.
fn canonicalize_dtype(_: &mut Interp, a: Args) -> Result<Obj> {
    let d = a.req(Some(0), "dtype", "canonicalize_dtype")?;
    if dtype_queries::is_key_dtype(&d) {
        let allowed = match a.opt(Some(1), "allow_extended_dtype") {
            Some(o) => crate::python::ops::truthy(&o, "allow_extended_dtype")?,
            None => false,
        };
        if !allowed {
            crate::bail!(
                ValueError,
                "Internal: canonicalize_dtype called on extended dtype key<fry> with allow_extended_dtype=False"
            );
        }
        return Ok(d);
    }
    Ok(Obj::DType(super::dtypes::dtype_of(&d)?))
}
