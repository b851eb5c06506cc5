//! Dtypes: the dtype objects (`float32`, `int32`, `bool_`, ...), reading a
//! dtype argument, and conversions (`astype`, `jnp.float32(x)`).
//!
//! shardlab arrays are float32, int32, bool or complex64, so the wider and
//! narrower NumPy dtypes name the nearest of these (complex128 is complex64,
//! as in JAX without x64).

use crate::array::DType;
use crate::bail;
use crate::error::Result;
use crate::ops as jops;
use crate::python::array::to_value;
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};

use super::super::Builder;
use super::arr;

/// Adds the dtype objects and `astype` to `b`.
pub(super) fn register(b: &mut Builder) {
    b.attr("float32", Obj::DType(DType::F32))
        .attr("float64", Obj::DType(DType::F32))
        .attr("float16", Obj::DType(DType::F32))
        .attr("bfloat16", Obj::DType(DType::F32))
        .attr("int32", Obj::DType(DType::I32))
        .attr("int64", Obj::DType(DType::I32))
        .attr("int8", Obj::DType(DType::I32))
        .attr("uint8", Obj::DType(DType::I32))
        .attr("bool_", Obj::DType(DType::Bool))
        .attr("bool", Obj::DType(DType::Bool))
        .attr("complex64", Obj::DType(DType::C64))
        .attr("complex128", Obj::DType(DType::C64));
    b.func("astype", |_, a| {
        let x = arr(&a, 0, "x", "astype")?;
        let d = dtype_of(&a.req(Some(1), "dtype", "astype")?)?;
        Ok(Obj::Array(jops::astype(&x, d)?))
    });
}

/// A dtype from `jnp.float32`, `'float32'`, `float`, `int`, `bool`.
pub fn dtype_of(o: &Obj) -> Result<DType> {
    Ok(match o {
        Obj::DType(d) => *d,
        Obj::Type("float") => DType::F32,
        Obj::Type("int") => DType::I32,
        Obj::Type("bool") => DType::Bool,
        Obj::Type("complex") => DType::C64,
        Obj::Str(s) => match &**s {
            "complex64" | "complex128" | "complex" | "c8" | "c16" => DType::C64,
            "float32" | "float64" | "float" | "f4" | "float16" | "bfloat16" => DType::F32,
            "int32" | "int64" | "int" | "i4" | "int8" | "int16" | "uint8" | "uint32" => DType::I32,
            "bool" => DType::Bool,
            other => bail!(TypeError, "data type '{other}' not understood"),
        },
        other => bail!(
            TypeError,
            "Cannot interpret '{}' as a data type",
            crate::python::format::repr_of(other)
        ),
    })
}

/// `jnp.float32(x)`: a scalar or array of the dtype.
pub fn cast_to(_: &mut Interp, d: DType, a: Args) -> Result<Obj> {
    let v = to_value(&a.req(Some(0), "x", d.name())?)?;
    Ok(Obj::Array(jops::convert(&v, d)?))
}
