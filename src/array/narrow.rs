//! The narrow dtypes (bfloat16, float16, int8, int16, uint8, uint16), held
//! in a wider buffer: float32 for the floats, int32 for the integers.
//!
//! One rule keeps such an array's values those of its type: every value
//! that enters one passes through [`Array::fit`], which rounds a float to
//! the nearest value of the narrow type (ties to even, past its largest
//! finite value to infinity, as XLA's conversions do) and wraps an integer
//! to the type's width (two's complement, as XLA's integer arithmetic
//! does). Operations compute on the wide values and their results are
//! fitted to the narrow result type (see `primitives::narrow`), which is
//! how XLA's CPU backend computes on these types: in float32 or int32,
//! rounded or wrapped once per operation.

use super::{numel, Array, Buffer, DType};

/// The bfloat16 value nearest to `x`: float32's upper 16 bits after
/// rounding the lower ones to nearest, ties to even.
pub fn round_bf16(x: f32) -> f32 {
    if x.is_nan() {
        return x;
    }
    let bits = x.to_bits();
    let lsb = (bits >> 16) & 1;
    f32::from_bits(bits.wrapping_add(0x7fff + lsb) & 0xffff_0000)
}

/// The float16 value nearest to `x` (ties to even; infinity from 65520 on,
/// where the rounding passes the largest finite value, 65504).
pub fn round_f16(x: f64) -> f64 {
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    if x.abs() >= 65520.0 {
        return f64::INFINITY.copysign(x);
    }
    // The spacing of float16 values around x: 2^-24 among the subnormals
    // (below 2^-14), 2^(e-10) in the binade [2^e, 2^(e+1)).
    let e = x.abs().log2().floor().max(-14.0);
    let mut quantum = (e - 10.0).exp2();
    // log2 may land one binade off next to a power of two.
    if x.abs() >= (e + 1.0).exp2() {
        quantum *= 2.0;
    } else if x.abs() < e.exp2() && e > -14.0 {
        quantum /= 2.0;
    }
    (x / quantum).round_ties_even() * quantum
}

/// `x` rounded to the narrow float type `d` (bfloat16 rounds from the
/// float32 value, as ml_dtypes converts a Python float).
pub fn round_float(x: f64, d: DType) -> f64 {
    match d {
        DType::BF16 => round_bf16(x as f32) as f64,
        DType::F16 => round_f16(x),
        _ => x,
    }
}

/// `v` wrapped to the width of the narrow integer type `d`.
pub fn wrap_int(v: i32, d: DType) -> i32 {
    match d {
        DType::I8 => v as i8 as i32,
        DType::I16 => v as i16 as i32,
        DType::U8 => v as u8 as i32,
        DType::U16 => v as u16 as i32,
        _ => v,
    }
}

/// The smallest and largest values of the narrow integer type `d`.
pub fn int_bounds(d: DType) -> (i64, i64) {
    match d {
        DType::I8 => (i8::MIN as i64, i8::MAX as i64),
        DType::I16 => (i16::MIN as i64, i16::MAX as i64),
        DType::U8 => (0, u8::MAX as i64),
        DType::U16 => (0, u16::MAX as i64),
        DType::U32 => (0, u32::MAX as i64),
        _ => (i32::MIN as i64, i32::MAX as i64),
    }
}

/// An array of `shape` and narrow dtype `d` filled with `value`: a float
/// rounded, an integer wrapped (as a Python int entering the type).
pub(super) fn full(shape: &[usize], value: f64, d: DType) -> Array {
    let wide = if d.is_float() {
        Array::full(shape, round_float(value, d), DType::F32)
    } else {
        let v = if value.fract() == 0.0 {
            value as i64 as i32
        } else {
            value as i32
        };
        Array::full(shape, wrap_int(v, d) as f64, DType::I32)
    };
    wide.fit(d)
}

/// `x` converted to `d` where either is narrow: through the wide types,
/// a float entering a narrow integer first clamped to its range (XLA's
/// float-to-integer conversions saturate, NaN giving 0).
pub(super) fn astype(x: &Array, d: DType) -> Array {
    let wide = x.widened();
    let wide = match &wide.buffer {
        Buffer::F32(v) if d.is_int() && d.is_narrow() => {
            let (lo, hi) = int_bounds(d);
            let clamped: Vec<f32> = v.iter().map(|&f| f.clamp(lo as f32, hi as f32)).collect();
            Array {
                buffer: Buffer::F32(clamped.into()),
                ..wide
            }
        }
        _ => wide,
    };
    wide.astype(d.storage()).fit(d)
}

impl Array {
    /// The same values as an array of `d`: unchanged when `d` is held in
    /// this array's buffer type and is not narrow; rounded (floats) or
    /// wrapped (integers) into the narrow type `d` when it is. The one
    /// place a narrow array's values are made.
    pub fn fit(self, d: DType) -> Array {
        if !d.is_narrow() || self.buffer.dtype() != d.storage() {
            return self;
        }
        let buffer = match &self.buffer {
            Buffer::F32(x) if d == DType::BF16 => {
                Buffer::F32(x.iter().map(|&v| round_bf16(v)).collect())
            }
            Buffer::F32(x) => Buffer::F32(x.iter().map(|&v| round_f16(v as f64) as f32).collect()),
            Buffer::I32(x) => Buffer::I32(x.iter().map(|&v| wrap_int(v, d)).collect()),
            other => other.clone(),
        };
        Array {
            buffer,
            narrow: Some(d),
            ..self
        }
    }

    /// The same values as an array of the wide type that holds them
    /// (float32 for bfloat16): what operations compute on.
    pub fn widened(&self) -> Array {
        Array {
            narrow: None,
            ..self.clone()
        }
    }

    /// The narrow dtype of this array's values, if any.
    pub fn narrow_dtype(&self) -> Option<DType> {
        self.narrow
    }

    /// Zeros of the narrow dtype `d` (exact in every type).
    pub fn narrow_zeros(shape: &[usize], d: DType) -> Array {
        Array::full(shape, 0.0, d.storage()).fit(d)
    }

    /// Number of bytes of the elements (`x.nbytes`).
    pub fn nbytes(&self) -> usize {
        numel(&self.shape) * self.dtype().itemsize()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bfloat16_rounds_to_nearest_even_and_overflows_to_inf() {
        assert_eq!(round_bf16(1.0 + 1.0 / 256.0), 1.0);
        assert_eq!(round_bf16(1.0 + 3.0 / 256.0), 1.0 + 4.0 / 256.0);
        assert_eq!(round_bf16(f32::MAX), f32::INFINITY);
        assert!(round_bf16(f32::NAN).is_nan());
    }

    #[test]
    fn float16_rounds_to_nearest_even_with_subnormals() {
        assert_eq!(round_f16(65519.0), 65504.0);
        assert_eq!(round_f16(65520.0), f64::INFINITY);
        assert_eq!(round_f16(1.0 + 1.0 / 2048.0), 1.0);
        assert_eq!(round_f16(1.0 + 3.0 / 2048.0), 1.0 + 2.0 / 1024.0);
        assert_eq!(round_f16(2f64.powi(-25)), 0.0);
        assert_eq!(round_f16(3.0 * 2f64.powi(-25)), 2f64.powi(-23));
        assert_eq!(round_f16(0.1), 0.0999755859375);
    }

    #[test]
    fn integers_wrap_to_their_width() {
        assert_eq!(wrap_int(200, DType::I8), -56);
        assert_eq!(wrap_int(-1, DType::U8), 255);
        assert_eq!(wrap_int(70000, DType::U16), 4464);
    }
}
