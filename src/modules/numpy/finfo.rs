//! `jnp.finfo`: the limits of a floating dtype (float32, bfloat16,
//! float16), each limit a scalar of that dtype as JAX gives them: NumPy's
//! `np.float32(1.1920929e-07)`, `np.float16(...)`, or ml_dtypes' bfloat16.

use crate::array::DType;
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
        match self.0 {
            DType::F32 => super::scalar::NpScalar::obj(super::host::Kind::Float32, v),
            d => super::narrow_scalar::NarrowScalar::obj(d, v),
        }
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

impl FInfo {
    /// The text `str(finfo)` prints: NumPy's table of the parameters, each
    /// limit as its scalar prints.
    fn table(&self, f: &Format) -> String {
        let text = |name: &str| match self.limit(f, name) {
            Some(o) => crate::python::format::str_of(&o),
            None => String::new(),
        };
        let rule = "-".repeat(63);
        let exponent_bits = 8 * self.0.itemsize() as i32 - 1 - f.mantissa;
        [
            format!("Machine parameters for {}", self.0.name()),
            rule.clone(),
            format!(
                "precision = {}   resolution = {}",
                f.precision,
                text("resolution")
            ),
            format!("machep = {}   eps =        {}", -f.mantissa, text("eps")),
            format!(
                "negep =  {}   epsneg =     {}",
                -f.mantissa - 1,
                text("epsneg")
            ),
            format!("minexp = {}   tiny =       {}", f.min_exp, text("tiny")),
            format!("maxexp = {}   max =        {}", f.max_exp + 1, text("max")),
            format!("nexp =   {exponent_bits}   min =        -max"),
            format!(
                "smallest_normal = {}   smallest_subnormal = {}",
                text("smallest_normal"),
                text("smallest_subnormal")
            ),
            rule,
            String::new(),
        ]
        .join("\n")
    }
}

impl crate::python::object::Object for FInfo {
    fn type_name(&self) -> String {
        "finfo".into()
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        Ok(format_of(self.0).and_then(|f| self.limit(&f, name)))
    }

    fn str(&self, _: &Obj) -> Option<String> {
        format_of(self.0).map(|f| self.table(&f))
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        // NumPy's repr shows the resolution as its scalar prints, and the
        // range in a fixed number of digits per type (bfloat16, which
        // NumPy does not know, as its scalars print).
        let f = format_of(self.0)?;
        let text = |name: &str| match (self.limit(&f, name), self.0, name) {
            (Some(o), DType::F32 | DType::F16, "min" | "max") => {
                let digits = if self.0 == DType::F32 { 7 } else { 5 };
                crate::python::format::fmt_exp(o.as_number().unwrap_or(0.0), digits)
            }
            (Some(o), ..) => crate::python::format::str_of(&o),
            (None, ..) => String::new(),
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
