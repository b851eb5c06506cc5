//! float32 transcendental functions computed the way XLA's CPU backend
//! computes them, so that a program prints the same digits in shardlab as in
//! JAX.
//!
//! A correctly rounded `exp` is not what JAX prints: XLA replaces most f32
//! transcendentals with its own polynomial or rational approximations, and a
//! result one ulp away shows in the last printed digit, and far more through
//! anything that amplifies differences (a finite-difference gradient divides
//! a one-ulp change by `eps`). Each function here follows the algorithm,
//! constants, operation order and fused multiply-adds of XLA's code
//! (`f32::mul_add` is exact on every target, including wasm32, so native and
//! wasm builds agree):
//!
//! - [`exp`]: the Cephes polynomial XLA substitutes for `expf` (argument
//!   clamped to [-87.8, 88.8], `n = floor(x log2(e) + 1/2)` clamped to
//!   [-127, 127], `2^n` built from exponent bits, so results below 2^-126
//!   become 0).
//! - [`log`]: the Cephes/Eigen polynomial XLA substitutes for `logf`
//!   (mantissa in [sqrt(1/2), sqrt(2)), degree-8 polynomial); NaN results
//!   are the all-ones NaN it produces.
//! - [`log1p`]: the Cephes rational approximation below |x| < sqrt(2) - 1,
//!   `log(1 + x)` above.
//! - [`expm1`]: `tanh(x/2) (exp(x) + 1)` for |x| <= 1/2, `exp(x) - 1`
//!   above, `x` itself when `x/2` underflows.
//! - [`tanh`]: the degree-13/6 rational approximation (Eigen's `ptanh_float`
//!   with FMA), clamped at 7.9988..., `x` below 0.0004, +-1 from 20 on.
//! - [`logistic`]: `1 / (1 + exp(-x))` with the `exp` above.
//! - [`sin`], [`cos`], [`pow`], [`atan2`]: XLA calls the C library's
//!   `sinf`, `cosf`, `powf`, `atan2f`; shardlab computes glibc's versions
//!   itself (`libm_f32`), so the wasm build agrees too.
//! - [`sqrt`]: correctly rounded.
//! - `erf` and `erf_inv` (in `special`): XLA's rational and polynomial
//!   approximations, with [`log1p`] from here.
//!
//! XLA's CPU code runs with subnormals flushed to zero (inputs read as zero,
//! subnormal results written as zero), so every function here flushes where
//! XLA's arithmetic would.
//!
//! Not exact: [`rsqrt`]. XLA starts from the processor's `rsqrt` estimate
//! (whose bits differ between Intel and AMD) and refines it by Newton steps
//! (one on AMD, two on Intel), so JAX's own bits depend on the machine;
//! shardlab gives the correctly rounded `1/sqrt(x)`, within 2 ulp of JAX
//! (JAX 0.10.2 on an AMD EPYC differs from it on 28% of inputs).

// The constants are written as published so they round to the same f32
// values XLA uses.
#![allow(clippy::excessive_precision, clippy::approx_constant)]

/// A subnormal becomes a zero of the same sign, as XLA's CPU code (flushing
/// subnormals to zero) reads and writes them.
pub fn flush(x: f32) -> f32 {
    if x.is_subnormal() {
        0f32.copysign(x)
    } else {
        x
    }
}

/// The NaN XLA's `log` produces for negative inputs (all bits set).
const ALL_ONES_NAN: u32 = 0xffff_ffff;

/// `e^x` (Cephes' single-precision polynomial, as XLA emits it).
pub fn exp(x: f32) -> f32 {
    const LOG2E: f32 = 1.44269504088896341;
    // ln 2 split in two so that `n * LN2_HI` is exact.
    const LN2_HI: f32 = 0.693359375;
    const LN2_LO: f32 = -2.12194440e-4;
    const P: [f32; 6] = [
        1.9875691500e-4,
        1.3981999507e-3,
        8.3334519073e-3,
        4.1665795894e-2,
        1.6666665459e-1,
        5.0000001201e-1,
    ];
    if x.is_nan() {
        return x;
    }
    let x = x.clamp(-87.8, 88.8);
    // n = round(x / ln 2), kept in [-127, 127] so 2^n is one exponent field;
    // n = -127 gives the bits of 0, flushing results below 2^-126.
    let n = x.mul_add(LOG2E, 0.5).floor().clamp(-127.0, 127.0);
    let a = (-LN2_HI).mul_add(n, x);
    let a = (-LN2_LO).mul_add(n, a);
    let mut z = a.mul_add(P[0], P[1]);
    for &p in &P[2..] {
        z = z.mul_add(a, p);
    }
    let z = 1.0 + z.mul_add(a * a, a);
    let pow2 = f32::from_bits(((n as i32 + 127) as u32) << 23);
    flush(z * pow2)
}

/// Natural logarithm (the Cephes/Eigen polynomial, as XLA emits it).
pub fn log(x: f32) -> f32 {
    const SQRT_HALF: f32 = 0.707106781186547524;
    const P: [f32; 9] = [
        7.0376836292e-2,
        -1.1514610310e-1,
        1.1676998740e-1,
        -1.2420140846e-1,
        1.4249322787e-1,
        -1.6668057665e-1,
        2.0000714765e-1,
        -2.4999993993e-1,
        3.3333331174e-1,
    ];
    const LN2_LO: f32 = -2.12194440e-4;
    const LN2_HI: f32 = 0.693359375;
    let x = flush(x);
    if x == 0.0 {
        return f32::NEG_INFINITY;
    }
    if x == f32::INFINITY {
        return x;
    }
    if x.is_nan() || x < 0.0 {
        return f32::from_bits(ALL_ONES_NAN);
    }
    // x = m * 2^e with m in [1/2, 1), then m in [sqrt(1/2), sqrt(2)) - 1.
    let bits = x.to_bits();
    let mut e = 1.0 + ((bits >> 23) as i32 - 127) as f32;
    let mut m = f32::from_bits((bits & !0x7f80_0000) | 0.5f32.to_bits());
    let small = m < SQRT_HALF;
    let extra = if small { m } else { 0.0 };
    m -= 1.0;
    if small {
        e -= 1.0;
    }
    m += extra;
    let m2 = m * m;
    let m3 = m2 * m;
    // Three interleaved Horner chains, as the emitted code evaluates them.
    let y0 = m.mul_add(P[0], P[1]).mul_add(m, P[2]);
    let y1 = m.mul_add(P[3], P[4]).mul_add(m, P[5]);
    let y2 = m.mul_add(P[6], P[7]).mul_add(m, P[8]);
    let y = y0.mul_add(m3, y1).mul_add(m3, y2);
    let y = y.mul_add(m3, LN2_LO * e);
    let m = m - 0.5 * m2;
    (m + y) + LN2_HI * e
}

/// `log(1 + x)`: Cephes' rational approximation near 0, `log(1 + x)` away
/// from it.
pub fn log1p(x: f32) -> f32 {
    const NUM: [f64; 7] = [
        4.5270000862445199635215e-5,
        4.9854102823193375972212e-1,
        6.5787325942061044846969e0,
        2.9911919328553073277375e1,
        6.0949667980987787057556e1,
        5.7112963590585538103336e1,
        2.0039553499201281259648e1,
    ];
    const DEN: [f64; 7] = [
        1.0,
        1.5062909083469192043167e1,
        8.3047565967967209469434e1,
        2.2176239823732856465394e2,
        3.0909872225312059774938e2,
        2.1642788614495947685003e2,
        6.0118660497603843919306e1,
    ];
    // sqrt(2) - 1
    const SMALL: f32 = 0.41421356237309504880;
    let x = flush(x);
    if x.is_nan() || x.abs() >= SMALL {
        return log(x + 1.0);
    }
    let horner = |coeffs: &[f64]| coeffs.iter().fold(0f32, |p, &c| p.mul_add(x, c as f32));
    let x2 = x * x;
    let r = horner(&NUM) / horner(&DEN);
    flush(x + (-0.5f32).mul_add(x2, (x * x2) * r))
}

/// `e^x - 1`.
pub fn expm1(x: f32) -> f32 {
    let half = flush(x * 0.5);
    if half == 0.0 {
        return x;
    }
    let e = exp(x);
    if x.abs() > 0.5 {
        return flush(e - 1.0);
    }
    flush(tanh(half) * (e + 1.0))
}

/// Hyperbolic tangent (XLA's rational approximation, with FMA).
pub fn tanh(x: f32) -> f32 {
    // The smallest input at which the approximation reaches exactly 1.
    const CLAMP: f32 = 7.99881172180175781;
    const NUM: [f32; 7] = [
        -2.76076847742355e-16,
        2.00018790482477e-13,
        -8.60467152213735e-11,
        5.12229709037114e-08,
        1.48572235717979e-05,
        6.37261928875436e-04,
        4.89352455891786e-03,
    ];
    const DEN: [f32; 4] = [
        1.19825839466702e-06,
        1.18534705686654e-04,
        2.26843463243900e-03,
        4.89352518554385e-03,
    ];
    if x.abs() >= 20.0 {
        return 1f32.copysign(x);
    }
    if x.abs() < 0.0004 {
        return x;
    }
    let c = x.clamp(-CLAMP, CLAMP);
    let c2 = c * c;
    let p = NUM[1..].iter().fold(NUM[0], |p, &k| c2.mul_add(p, k));
    let q = DEN[1..].iter().fold(DEN[0], |q, &k| c2.mul_add(q, k));
    (c * p) / q
}

/// `1 / (1 + e^-x)` (`lax.logistic`), with XLA's `exp`.
pub fn logistic(x: f32) -> f32 {
    flush(1.0 / (1.0 + exp(-x)))
}

/// Square root (correctly rounded, subnormals flushed).
pub fn sqrt(x: f32) -> f32 {
    flush(flush(x).sqrt())
}

/// `1 / sqrt(x)`, correctly rounded; within 2 ulp of XLA's (see the module
/// doc).
pub fn rsqrt(x: f32) -> f32 {
    flush(1.0 / flush(x).sqrt())
}

/// Sine, as glibc's `sinf`.
pub fn sin(x: f32) -> f32 {
    super::libm_f32::sin(x)
}

/// Cosine, as glibc's `cosf`.
pub fn cos(x: f32) -> f32 {
    super::libm_f32::cos(x)
}

/// `x ** y`, as glibc's `powf`.
pub fn pow(x: f32, y: f32) -> f32 {
    super::libm_f32::pow(x, y)
}

/// `arctan2(y, x)`, as glibc's `atan2f`.
pub fn atan2(y: f32, x: f32) -> f32 {
    super::libm_f32::atan2(y, x)
}

/// XLA's atanh, as CHLO expands it: half of `log1p(x) - log1p(-x)`, and
/// NaN where `|x| > 1`.
pub fn atanh(x: f32) -> f32 {
    if x.abs() > 1.0 {
        return f32::NAN;
    }
    (log1p(x) - log1p(-x)) * 0.5
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_values() {
        assert_eq!(exp(f32::NEG_INFINITY), 0.0);
        assert_eq!(exp(f32::INFINITY), f32::INFINITY);
        // e^-87.34 is below 2^-126: flushed.
        assert_eq!(exp(-87.34), 0.0);
        assert_eq!(log(1e-40), f32::NEG_INFINITY);
        assert_eq!(log(-1.0).to_bits(), ALL_ONES_NAN);
        assert_eq!(log1p(-1.0), f32::NEG_INFINITY);
        assert_eq!(expm1(1e-40), 1e-40);
        assert_eq!(tanh(-25.0), -1.0);
        assert_eq!(logistic(-88.0), 0.0);
        assert_eq!(rsqrt(1e-40), f32::INFINITY);
    }
}
