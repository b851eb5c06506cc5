//! The inverse trigonometric and the hyperbolic functions on float32 as
//! XLA evaluates them: JAX lowers `asin`, `acos`, `atan`, `sinh`, `cosh`,
//! `asinh` and `acosh` to CHLO operations, which XLA expands into
//! `atan2`, `sqrt`, `exp`, `expm1`, `log` and `log1p` before compiling;
//! `tan` and `cbrt` are calls to the C library (`libm_tan_cbrt`). Each
//! expansion here is the same arithmetic in the same order, on the same
//! building blocks as the rest of `xla_math`, so the bits agree with JAX.
//!
//! Not exact everywhere: where XLA vectorizes a loop over an array it
//! calls the C library's vector `atan2f`, which differs from the scalar one
//! in the last bit at a few arguments (`arctan` of an array of ones gives
//! 0.7853981, of a scalar 1.0 the scalar's 0.7853982); shardlab gives the
//! scalar function's bits everywhere.

use super::libm_tan_cbrt;
use super::xla_math::{atan2, exp, expm1, flush, log, log1p, sqrt};

/// `log(1/2)`, a constant XLA folds when it compiles (as it folds
/// `log 2`), correctly rounded.
const LOG_HALF: f32 = -std::f32::consts::LN_2;

/// Tangent (the C library's `tanf`).
pub fn tan(x: f32) -> f32 {
    libm_tan_cbrt::tan(x)
}

/// Cube root (the C library's `cbrtf`).
pub fn cbrt(x: f32) -> f32 {
    libm_tan_cbrt::cbrt(x)
}

/// `1 - x*x` as `(1 - x)(1 + x)`, which keeps its digits near |x| = 1.
fn one_minus_square(x: f32) -> f32 {
    flush(flush(1.0 - x) * flush(1.0 + x))
}

/// `arcsin x = 2 atan2(x, 1 + sqrt(1 - x^2))`.
pub fn asin(x: f32) -> f32 {
    let x = flush(x);
    let t = atan2(x, flush(1.0 + sqrt(one_minus_square(x))));
    t + t
}

/// `arccos x = atan2(sqrt(1 - x^2), x)`.
pub fn acos(x: f32) -> f32 {
    let x = flush(x);
    atan2(sqrt(one_minus_square(x)), x)
}

/// `arctan x = atan2(x, 1)`.
pub fn atan(x: f32) -> f32 {
    atan2(flush(x), 1.0)
}

/// `e^(x + log 1/2)` and `e^(log 1/2 - x)`: the halves of `e^x` and `e^-x`
/// without overflowing where `e^x` alone would.
fn half_exps(x: f32) -> (f32, f32) {
    (exp(flush(x + LOG_HALF)), exp(flush(LOG_HALF - x)))
}

/// Hyperbolic sine: below |x| = 1 from `expm1` (`(e + e/(e+1)) / 2` with
/// `e = expm1(x)`, which keeps the first-order term), above it as the
/// difference of the halved exponentials.
pub fn sinh(x: f32) -> f32 {
    let x = flush(x);
    if x.abs() < 1.0 {
        let e = expm1(x);
        let ratio = flush(e / flush(e + 1.0));
        return flush(0.5 * flush(e + ratio));
    }
    let (a, b) = half_exps(x);
    flush(a - b)
}

/// Hyperbolic cosine: the sum of the halved exponentials.
pub fn cosh(x: f32) -> f32 {
    let (a, b) = half_exps(flush(x));
    flush(a + b)
}

/// `arcsinh x = sign(x) log1p(|x| + x^2 / (1 + sqrt(1 + x^2)))`, and
/// `sign(x) (log 2 + log|x|)` from `sqrt(f32::MAX)` on, where `x^2`
/// overflows.
pub fn asinh(x: f32) -> f32 {
    let x = flush(x);
    let ax = x.abs();
    let magnitude = if ax >= f32::MAX.sqrt() {
        std::f32::consts::LN_2 + log(ax)
    } else {
        let ax2 = flush(ax * ax);
        let denom = flush(1.0 + sqrt(flush(1.0 + ax2)));
        log1p(flush(ax + flush(ax2 / denom)))
    };
    let sign = if x.is_nan() || x == 0.0 {
        x
    } else {
        x.signum()
    };
    flush(sign * magnitude)
}

/// `arccosh x = log1p(sqrt(x - 1) (sqrt(x + 1) + sqrt(x - 1)))`, and
/// `log 2 + log x` from `f32::MAX / 2` on.
pub fn acosh(x: f32) -> f32 {
    let x = flush(x);
    if x >= f32::MAX / 2.0 {
        return flush(std::f32::consts::LN_2 + log(x));
    }
    let below = sqrt(flush(x - 1.0));
    log1p(flush(below * flush(sqrt(flush(x + 1.0)) + below)))
}
