//! Dtypes: the dtype objects (`float32`, `int32`, `bool_`, ...), reading a
//! dtype argument, and conversions (`astype`, `jnp.float32(x)`).
//!
//! In `jax.numpy` the 64-bit names are types of their own that give 32-bit
//! arrays, as in JAX without x64 (see `wide_types`; `numpy` has its own
//! 64-bit types, see `scalar_types`); the narrow types (bfloat16, float16,
//! int8, int16, uint8,
//! uint16) are their own (see `array::narrow`).

use crate::array::DType;
use crate::bail;
use crate::error::Result;
use crate::ops as jops;
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};

use super::super::Builder;
use super::arr;
use super::jnp_scalar_types::ScalarType;

/// Adds the scalar types and `astype` to `b`: `jax.numpy`'s or, when
/// `numpy`, NumPy's (whose 64-bit and host types `numpy` replaces).
pub(super) fn register(b: &mut Builder, numpy: bool) {
    let module = if numpy { "numpy" } else { "jax.numpy" };
    for (name, dtype) in [
        ("float32", DType::F32),
        ("float64", DType::F32),
        ("int32", DType::I32),
        ("int64", DType::I32),
        ("uint32", DType::U32),
        ("uint64", DType::U32),
        ("bool_", DType::Bool),
        ("bool", DType::Bool),
        ("bfloat16", DType::BF16),
        ("float16", DType::F16),
        ("int8", DType::I8),
        ("int16", DType::I16),
        ("uint8", DType::U8),
        ("uint16", DType::U16),
        ("complex64", DType::C64),
        ("complex128", DType::C64),
    ] {
        // NumPy has no bfloat16; ml_dtypes' is `jax.dtypes.bfloat16`.
        if numpy && name == "bfloat16" {
            continue;
        }
        // `bool_` is another name of the type `bool`.
        let type_name = if name == "bool_" { "bool" } else { name };
        b.attr(name, ScalarType::named(type_name, dtype, module));
    }
    b.func("iinfo", iinfo);
    b.func("finfo", super::finfo::finfo);
    b.func("astype", |_, a| {
        let x = arr(&a, 0, "x", "astype")?;
        let d = dtype_of(&a.req(Some(1), "dtype", "astype")?)?;
        Ok(Obj::Array(jops::astype_dropping_imag(&x, d)?))
    });
}

/// The dtype a dtype argument names: a dtype (`x.dtype`), a scalar type
/// (`jnp.float32`, `np.float32`), a name (`'float32'`), or `float`, `int`,
/// `bool`. The one way a dtype argument is read.
pub fn dtype_of(o: &Obj) -> Result<DType> {
    if let Some(t) = o.downcast::<ScalarType>() {
        return Ok(t.dtype);
    }
    // NumPy's 64-bit types stand for JAX's 32-bit ones.
    if let Some(t) = o.downcast::<super::scalar_types::HostType>() {
        return Ok(super::scalar_types::engine_dtype(t.kind));
    }
    if let Some(t) = o.downcast::<super::wide_types::WideType>() {
        return Ok(t.narrow);
    }
    if let Some(t) = o.downcast::<super::dtype_attrs::Ordered>() {
        if t.swapped() {
            refuse_swapped(&crate::python::format::str_of(o))?;
        }
        return Ok(engine_named(t.name));
    }
    Ok(match o {
        Obj::DType(d) => *d,
        Obj::Type("float") => DType::F32,
        Obj::Type("int") => DType::I32,
        Obj::Type("bool") => DType::Bool,
        Obj::Type("complex") => DType::C64,
        Obj::Str(s) => {
            let p = crate::array::dtype_strings::parse(s)?;
            if p.swapped {
                refuse_swapped(s)?;
            }
            engine_named(p.name)
        }
        other => bail!(
            TypeError,
            "Cannot interpret '{}' as a data type",
            crate::python::format::repr_of(other)
        ),
    })
}

/// The engine dtype of a NumPy canonical name: a 64-bit one is the 32-bit
/// one, as in JAX without x64.
fn engine_named(name: &str) -> DType {
    match name {
        "complex64" | "complex128" => DType::C64,
        "float32" | "float64" => DType::F32,
        "int32" | "int64" => DType::I32,
        "uint32" | "uint64" => DType::U32,
        "bfloat16" => DType::BF16,
        "float16" => DType::F16,
        "int8" => DType::I8,
        "int16" => DType::I16,
        "uint8" => DType::U8,
        "uint16" => DType::U16,
        _ => DType::Bool,
    }
}

/// A byte-swapped dtype as an array's dtype: JAX's TypeError.
fn refuse_swapped(spelled: &str) -> Result<()> {
    bail!(
        TypeError,
        "JAX only supports number, bool, and string dtypes, got dtype {spelled}"
    )
}

/// `jnp.float32(x)`: a scalar or array of the dtype.
pub fn cast_to(_: &mut Interp, d: DType, a: Args) -> Result<Obj> {
    let v = crate::python::array::to_value_as(&a.req(Some(0), "x", d.name())?, d)?;
    Ok(Obj::Array(jops::convert(&v, d)?))
}

/// `jnp.iinfo(dtype)`: the range of an integer dtype.
#[derive(Debug)]
struct IInfo(DType);

impl IInfo {
    fn bounds(&self) -> (i64, i64) {
        crate::array::narrow::int_bounds(self.0)
    }
}

impl crate::python::object::Object for IInfo {
    fn type_name(&self) -> String {
        "iinfo".into()
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        let (min, max) = self.bounds();
        Ok(Some(match name {
            "min" => Obj::Int(min),
            "max" => Obj::Int(max),
            "bits" => Obj::Int(8 * self.0.itemsize() as i64),
            "dtype" => Obj::DType(self.0),
            "kind" => Obj::str(if self.0.is_unsigned() { "u" } else { "i" }),
            _ => return Ok(None),
        }))
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        let (min, max) = self.bounds();
        Some(format!(
            "iinfo(min={min}, max={max}, dtype={})",
            self.0.name()
        ))
    }
}

/// `jnp.iinfo(int_type)` for a dtype, a dtype name or an integer array.
pub fn iinfo(_: &mut Interp, a: Args) -> Result<Obj> {
    let o = a.req(Some(0), "int_type", "iinfo")?;
    super::finfo::refuse_wide(&o, "iinfo")?;
    let d = match &o {
        Obj::Array(v) => v.dtype(),
        o => dtype_of(o)?,
    };
    if !d.is_int() {
        bail!(ValueError, "Invalid integer data type '{}'.", d.name());
    }
    Ok(Obj::lib(IInfo(d)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    #[test]
    fn uint32_names_are_uint32_and_narrow_names_their_types() {
        for name in ["uint32", "uint64", "u4"] {
            assert_eq!(dtype_of(&Obj::str(name)).ok(), Some(DType::U32));
        }
        for d in [
            DType::BF16,
            DType::F16,
            DType::I8,
            DType::I16,
            DType::U8,
            DType::U16,
        ] {
            assert_eq!(dtype_of(&Obj::str(d.name())).ok(), Some(d));
        }
        let e = dtype_of(&Obj::str("float8")).err().map(|e| e.kind);
        assert_eq!(e, Some(ErrorKind::TypeError));
    }
}
