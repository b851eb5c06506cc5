//! The float32 `tanf` and `cbrtf` of GNU libc 2.36, which XLA's CPU code
//! calls for `tan` and `cbrt`, so that the digits JAX prints come out the
//! same on every target (the wasm build's C library differs in the last
//! bit on a few percent of inputs).
//!
//! - `tanf` reduces the argument modulo pi/2 exactly as `sinf` does (the
//!   reductions are shared with `libm_f32`), splits the reduced double into
//!   a float head and tail, and evaluates fdlibm's float kernel: a
//!   13-term odd polynomial, with `tan(pi/4 - x)` folding above 0.6744 and
//!   a careful `-1/tan` for odd quadrants.
//! - `cbrtf` splits `|x|` into a mantissa in [0.5, 1) and an exponent, takes
//!   a quadratic first guess in double, one Halley step, and scales by the
//!   cube root of 2 to the exponent's remainder modulo 3.
//!
//! Every operation is a plain IEEE operation in the precision glibc's C
//! uses (no fused multiply-add: neither function has an FMA variant).

// Constants are the published digits, rounded as C rounds them.
#![allow(clippy::excessive_precision)]

use super::libm_f32::{abstop12, reduce_fast, reduce_large};
use super::xla_math::flush;

/// The kernel's odd polynomial coefficients (`tan x = x + T0 x^3 + ...`).
const T: [f32; 13] = [
    3.3333334327e-01,
    1.3333334029e-01,
    5.3968254477e-02,
    2.1869488060e-02,
    8.8632395491e-03,
    3.5920790397e-03,
    1.4562094584e-03,
    5.8804126456e-04,
    2.4646313977e-04,
    7.8179444245e-05,
    7.1407252108e-05,
    -1.8558637748e-05,
    2.5907305826e-05,
];

/// A float with its low 12 mantissa bits cleared (the head of a
/// two-piece sum).
fn head(x: f32) -> f32 {
    f32::from_bits(x.to_bits() & 0xffff_f000)
}

/// `tan(x + y)` for |x + y| <= pi/4 (`iy == 1`), or `-1/tan(x + y)`
/// (`iy == -1`), `y` being the tail of the reduced argument.
fn kernel_tan(x: f32, y: f32, iy: i32) -> f32 {
    let hx = x.to_bits() as i32;
    let ix = hx & 0x7fff_ffff;
    if ix < 0x3900_0000 {
        // Below 2^-13 the value is x itself (or its reciprocal).
        return match (ix, iy) {
            (0, -1) => 1.0 / x.abs(),
            (_, 1) => x,
            _ => -1.0 / x,
        };
    }
    // -1 for a negative x, 1 otherwise.
    let sign = (1 - ((hx >> 30) & 2)) as f32;
    let (mut x, mut y) = (x, y);
    let folded = ix >= 0x3f2c_a140;
    if folded {
        const PIO4: f32 = 7.8539812565e-01;
        const PIO4LO: f32 = 3.7748947079e-08;
        if hx < 0 {
            x = -x;
            y = -y;
        }
        x = (PIO4 - x) + (PIO4LO - y);
        y = 0.0;
        if x.abs() < f32::from_bits(0x3900_0000) {
            return sign * iy as f32 * (1.0 - (2 * iy) as f32 * x);
        }
    }
    let z = x * x;
    let w = z * z;
    let r = T[1] + w * (T[3] + w * (T[5] + w * (T[7] + w * (T[9] + w * T[11]))));
    let v = z * (T[2] + w * (T[4] + w * (T[6] + w * (T[8] + w * (T[10] + w * T[12])))));
    let s = z * x;
    let r = y + z * (s * (r + v) + y);
    let r = r + T[0] * s;
    let w = x + r;
    if folded {
        let v = iy as f32;
        return sign * (v - 2.0 * (x - (w * w / (w + v) - r)));
    }
    if iy == 1 {
        return w;
    }
    // -1/(x + r), computed from a head and tail of each factor so that the
    // reciprocal keeps its last bit.
    let z = head(w);
    let v = r - (z - x);
    let a = -1.0 / w;
    let t = head(a);
    let s = 1.0 + t * z;
    t + a * (s + t * v)
}

/// Tangent (glibc's `tanf`).
pub fn tan(x: f32) -> f32 {
    let x = flush(x);
    let ix = x.to_bits() & 0x7fff_ffff;
    if ix <= 0x3f49_0fda {
        return kernel_tan(x, 0.0, 1);
    }
    if ix >= 0x7f80_0000 {
        return f32::NAN;
    }
    let (r, n) = if abstop12(x) < abstop12(120.0) {
        reduce_fast(f64::from(x))
    } else {
        let (r, n) = reduce_large(x.to_bits());
        (if x < 0.0 { -r } else { r }, n)
    };
    let y0 = r as f32;
    let y1 = (r - f64::from(y0)) as f32;
    flush(kernel_tan(y0, y1, 1 - ((n & 1) << 1)))
}

/// Cube root (glibc's `cbrtf`).
pub fn cbrt(x: f32) -> f32 {
    // The cube roots of 2^-2 .. 2^2, for the exponent's remainder mod 3.
    const CBRT2: f64 = 1.2599210498948731648;
    const SQR_CBRT2: f64 = 1.5874010519681994748;
    const FACTOR: [f64; 5] = [1.0 / SQR_CBRT2, 1.0 / CBRT2, 1.0, CBRT2, SQR_CBRT2];
    let x = flush(x);
    if x == 0.0 || !x.is_finite() {
        return x + x;
    }
    // |x| = xm 2^xe with xm in [0.5, 1).
    let bits = x.to_bits() & 0x7fff_ffff;
    let xe = ((bits >> 23) as i32) - 126;
    let xm = f64::from(f32::from_bits((bits & 0x007f_ffff) | 0x3f00_0000));
    let u = (0.492659620528969547 + (0.697570460207922770 - 0.191502161678719066 * xm) * xm) as f32;
    let t2 = u * u * u;
    let (u, t2) = (f64::from(u), f64::from(t2));
    let ym = (u * (t2 + 2.0 * xm) / (2.0 * t2 + xm) * FACTOR[(2 + xe % 3) as usize]) as f32;
    let ym = if x > 0.0 { ym } else { -ym };
    // An exact scaling: the result is a normal float.
    (f64::from(ym) * 2f64.powi(xe / 3)) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_values() {
        assert_eq!(tan(0.0), 0.0);
        assert_eq!(tan(-0.0).to_bits(), (-0.0f32).to_bits());
        assert!(tan(f32::INFINITY).is_nan());
        assert_eq!(cbrt(-27.0), -3.0);
        assert_eq!(cbrt(216.0), 6.0);
        assert_eq!(cbrt(f32::NEG_INFINITY), f32::NEG_INFINITY);
    }
}
