//! The arguments of `numpy.random.Generator`'s methods that decide what a
//! draw is: `dtype=` (a float32 draw is made from 32 bits, so it is a
//! different number, not a rounded float64 one; integer dtypes set the
//! result's type, and 8-bit and bool draws share 32-bit words), the
//! keywords each method takes (an unknown one is Python's TypeError, never
//! ignored), and the result as NumPy returns it.

use crate::bail;
use crate::error::Result;
use crate::python::value::{Args, Obj};

use super::host::{HostArray, Kind};
use super::ndarray::NdArray;
use super::scalar::NpScalar;

/// Python's TypeError for a keyword `method` does not take, and a refusal
/// of `out=`, which would fill an array in place.
pub(super) fn check_keywords(a: &Args, method: &str, known: &[&str]) -> Result<()> {
    for (k, v) in &a.kw {
        if !known.contains(&k.as_str()) {
            bail!(
                TypeError,
                "{method}() got an unexpected keyword argument '{k}'"
            );
        }
        if k == "out" && !matches!(v, Obj::None) {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: numpy.random.Generator.{method} with out"
            );
        }
    }
    Ok(())
}

/// The dtype argument at `index` (or `dtype=`), `default` when absent.
fn kind_at(a: &Args, index: usize, method: &str, default: Kind) -> Result<Kind> {
    let Some(o) = a.opt(Some(index), "dtype") else {
        return Ok(default);
    };
    match super::scalar_types::kind_of_dtype(&o) {
        Some(k) => Ok(k),
        None => bail!(
            NotImplementedError,
            "not supported by shardlab yet: numpy.random.Generator.{method} with dtype {}",
            crate::python::format::repr_of(&o)
        ),
    }
}

/// A float method's dtype: float64 or float32, NumPy's TypeError otherwise.
pub(super) fn float_kind(a: &Args, index: usize, method: &str) -> Result<Kind> {
    let k = kind_at(a, index, method, Kind::Float64)?;
    if !matches!(k, Kind::Float64 | Kind::Float32) {
        bail!(
            TypeError,
            "Unsupported dtype dtype('{}') for {method}",
            k.name()
        );
    }
    Ok(k)
}

/// `integers`' dtype: int64 unless given.
pub(super) fn int_kind(a: &Args, index: usize) -> Result<Kind> {
    let k = kind_at(a, index, "integers", Kind::Int64)?;
    if matches!(k, Kind::Float64 | Kind::Float32) {
        bail!(
            TypeError,
            "Unsupported dtype dtype('{}') for integers",
            k.name()
        );
    }
    Ok(k)
}

/// `count` draws as NumPy returns them: for no `size`, a Python float
/// (float draws) or a NumPy scalar (integer draws); else an array of
/// `kind`.
pub(super) fn result(
    size: Option<Vec<usize>>,
    kind: Kind,
    draw: &mut dyn FnMut() -> f64,
) -> Result<Obj> {
    let Some(shape) = size else {
        let x = draw();
        return Ok(match kind {
            Kind::Float64 | Kind::Float32 => Obj::Float(x),
            _ => NpScalar::obj(kind, x),
        });
    };
    let n: usize = shape.iter().product();
    crate::python::array::check_size(n)?;
    let data: Vec<f64> = (0..n).map(|_| draw()).collect();
    Ok(Obj::lib(NdArray::host_array(HostArray {
        shape,
        data,
        kind,
    })))
}

/// Draws of 8 bits (or of one bit, for bool) taken in turn from one 32-bit
/// word, low bits first; each call of a method starts a new word.
pub(super) struct Bits {
    word: u32,
    left: u32,
}

impl Bits {
    pub(super) fn new() -> Bits {
        Bits { word: 0, left: 0 }
    }

    /// The next `width` bits (8 or 1), drawing a word from `next` when the
    /// last one is used up.
    pub(super) fn take(&mut self, width: u32, next: &mut dyn FnMut() -> u32) -> u32 {
        if self.left == 0 {
            self.word = next();
            self.left = 32 / width - 1;
        } else {
            self.word >>= width;
            self.left -= 1;
        }
        self.word & ((1u32 << width) - 1)
    }
}
