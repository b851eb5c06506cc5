//! `jnp.finfo`: the limits of a floating dtype (float32, bfloat16,
//! float16), each limit a 0-d array of that dtype, as JAX gives them.

use crate::array::{Array, DType};
use crate::bail;
use crate::error::Result;
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};

/// The parameters that set a binary floating type's limits.
struct Format {
    /// Bits of the significand after the leading one.
    mantissa: i32,
    /// Smallest normal exponent.
    min_exp: i32,
    /// Largest exponent of a finite value.
    max_exp: i32,
    /// Decimal digits of precision (NumPy's `precision`).
    precision: i64,
}

fn format_of(d: DType) -> Option<Format> {
    Some(match d {
        DType::F32 => Format {
            mantissa: 23,
            min_exp: -126,
            max_exp: 127,
            precision: 6,
        },
        DType::BF16 => Format {
            mantissa: 7,
            min_exp: -126,
            max_exp: 127,
            precision: 2,
        },
        DType::F16 => Format {
            mantissa: 10,
            min_exp: -14,
            max_exp: 15,
            precision: 3,
        },
        _ => return None,
    })
}

#[derive(Debug)]
struct FInfo(DType);

impl FInfo {
    fn scalar(&self, v: f64) -> Obj {
        Obj::Array(crate::trace::Value::Concrete(Array::full(&[], v, self.0)))
    }

    fn limit(&self, f: &Format, name: &str) -> Option<Obj> {
        let two = |e: i32| 2f64.powi(e);
        let max = (2.0 - two(-f.mantissa)) * two(f.max_exp);
        Some(match name {
            "bits" => Obj::Int(8 * self.0.itemsize() as i64),
            "dtype" => Obj::DType(self.0),
            "precision" => Obj::Int(f.precision),
            "nmant" => Obj::Int(f.mantissa as i64),
            "eps" => self.scalar(two(-f.mantissa)),
            "epsneg" => self.scalar(two(-f.mantissa - 1)),
            "max" => self.scalar(max),
            "min" => self.scalar(-max),
            "tiny" | "smallest_normal" => self.scalar(two(f.min_exp)),
            "smallest_subnormal" => self.scalar(two(f.min_exp - f.mantissa)),
            "resolution" => self.scalar(10f64.powi(-(f.precision as i32))),
            "minexp" => Obj::Int(f.min_exp as i64),
            "maxexp" => Obj::Int(f.max_exp as i64 + 1),
            _ => return None,
        })
    }
}

impl crate::python::object::Object for FInfo {
    fn type_name(&self) -> String {
        "finfo".into()
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        Ok(format_of(self.0).and_then(|f| self.limit(&f, name)))
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        // NumPy's repr shows each limit as its scalar prints.
        let f = format_of(self.0)?;
        let text = |name: &str| match self.limit(&f, name) {
            Some(o) => crate::python::format::str_of(&o),
            None => String::new(),
        };
        Some(format!(
            "finfo(resolution={}, min={}, max={}, dtype={})",
            text("resolution"),
            text("min"),
            text("max"),
            self.0.name()
        ))
    }
}

/// `jnp.finfo(dtype)` for a floating dtype, its name or a float array.
pub fn finfo(_: &mut Interp, a: Args) -> Result<Obj> {
    let o = a.req(Some(0), "dtype", "finfo")?;
    refuse_wide(&o, "finfo")?;
    let d = match &o {
        Obj::Array(v) => v.dtype(),
        o => super::dtypes::dtype_of(o)?,
    };
    if d == DType::C64 {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.numpy.finfo of complex64"
        );
    }
    if format_of(d).is_none() {
        bail!(ValueError, "data type {} not inexact", d.name());
    }
    Ok(Obj::lib(FInfo(d)))
}

/// `finfo`/`iinfo` of a 64-bit type describe that type in JAX and NumPy,
/// which shardlab's 32-bit arrays are not: refused by name rather than
/// answered for the 32-bit type.
pub(super) fn refuse_wide(o: &Obj, what: &str) -> Result<()> {
    if let Some((asked, _)) = super::x64_warning::wide(o) {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: {what} of {asked}"
        );
    }
    Ok(())
}
