//! float32 `log`, `log1p`, `erf` and `erf_inv` evaluated operation by
//! operation the way XLA's CPU backend does, so that samplers built on them
//! (`normal`, `truncated_normal`) reproduce JAX's numbers bit for bit rather
//! than merely to within the accuracy of some other approximation.
//!
//! XLA compiles with floating-point contraction allowed, so on CPUs with FMA
//! (every x86-64 since Haswell, every ARM64) LLVM fuses each `a * b + c`
//! whose product has no other use into one fused multiply-add, and for a sum
//! of two such products it fuses the first. Those fusions are spelled out
//! here with [`f32::mul_add`]; every other step is a separate float32
//! operation with round-to-nearest.

/// Natural logarithm of a float32 as XLA's CPU backend evaluates it: the
/// exponent is split off, the mantissa is reduced to `[sqrt(1/2), sqrt(2))`
/// and a degree-9 polynomial (Cephes' `logf`) is evaluated on it.
pub fn log_f32(x: f32) -> f32 {
    // The clamp to the smallest normal makes the exponent extraction valid;
    // subnormal, zero, negative, infinite and NaN inputs are patched below.
    let clamped = if x > f32::MIN_POSITIVE {
        x
    } else {
        f32::MIN_POSITIVE
    };
    let bits = clamped.to_bits();
    let exponent = (bits >> 23) as i32 - 127;
    let mantissa = f32::from_bits((bits & 0x807F_FFFF) | 0x3F00_0000);
    let mut e = exponent as f32 + 1.0;
    let small = mantissa < f32::from_bits(0x3F35_04F3);
    let m = (mantissa - 1.0) + if small { mantissa } else { 0.0 };
    e -= if small { 1.0 } else { 0.0 };

    let m2 = m * m;
    let m3 = m2 * m;
    let mut y1 = m.mul_add(f32::from_bits(0x3D90_21BB), f32::from_bits(0xBDEB_D1B8));
    let mut y2 = m.mul_add(f32::from_bits(0xBDFE_5D4F), f32::from_bits(0x3E11_E9BF));
    let mut y3 = m.mul_add(f32::from_bits(0x3E4C_CEAC), f32::from_bits(0xBE7F_FFFC));
    y1 = y1.mul_add(m, f32::from_bits(0x3DEF_251A));
    y2 = y2.mul_add(m, f32::from_bits(0xBE2A_AE50));
    y3 = y3.mul_add(m, f32::from_bits(0x3EAA_AAAA));
    let mut y = y1.mul_add(m3, y2);
    y = y.mul_add(m3, y3);
    // ln(2) split into a high part exact in few bits and a small correction.
    y = y.mul_add(m3, e * f32::from_bits(0xB95E_8083));
    let r = m2.mul_add(-0.5, m) + y;
    let r = e.mul_add(f32::from_bits(0x3F31_8000), r);

    if x.is_nan() || x < 0.0 {
        f32::NAN
    } else if x == 0.0 {
        f32::NEG_INFINITY
    } else if x == f32::INFINITY {
        f32::INFINITY
    } else {
        r
    }
}

/// `log(1 + x)` for float32 as XLA's CPU backend evaluates it: a rational
/// approximation `x - x^2/2 + x^3 P(x)/Q(x)` near zero, [`log_f32`] of
/// `1 + x` elsewhere.
pub fn log1p_f32(x: f32) -> f32 {
    if x.abs() < f32::from_bits(0x3ED4_13CD) {
        let x2 = x * x;
        // `x * 0` keeps infinities and NaN poisoning the result, as in XLA.
        let zero = x * 0.0;
        let mut q = zero + 1.0;
        for c in [
            0x4171_01AD,
            0x42A6_185B,
            0x435D_C32D,
            0x439A_8CA3,
            0x4358_6D8A,
            0x4270_7982,
        ] {
            q = q.mul_add(x, f32::from_bits(c));
        }
        let mut p = zero + 4.527e-05;
        for c in [
            0x3EFF_40C5,
            0x40D2_84FA,
            0x41EF_4B9C,
            0x4273_CC76,
            0x4264_73AD,
            0x41A0_5101,
        ] {
            p = p.mul_add(x, f32::from_bits(c));
        }
        let ratio = p / q;
        x + x2.mul_add(-0.5, (x * x2) * ratio)
    } else {
        log_f32(x + 1.0)
    }
}

/// Coefficients (float32 bit patterns) of Giles' erfinv approximation
/// ("Approximating the erfinv function", GPU Computing Gems, 2011), highest
/// degree first, for the central region `w < 5` ...
const ERFINV_CENTRAL: [u32; 9] = [
    0x32F1_6588,
    0x34B8_4B36,
    0xB66C_7357,
    0xB693_5AC1,
    0x3965_32DB,
    0xBAA4_5408,
    0xBB88_E4EF,
    0x3E7C_8F63,
    0x3FC0_2E2F,
];
/// ... and for the tails.
const ERFINV_TAIL: [u32; 9] = [
    0xB951_F09B,
    0x38D3_B56B,
    0x3AB0_DC72,
    0xBB70_BDE7,
    0x3BBC_127B,
    0xBBF9_C5D7,
    0x3C1A_A57E,
    0x3F80_36DB,
    0x4035_4F7E,
];

/// Inverse error function for float32, as XLA lowers `erf_inv`: Giles'
/// single-precision polynomial in `w = -log1p(-x^2)`; `±1` map to `±inf` and
/// arguments outside `[-1, 1]` give NaN.
pub fn erf_inv_f32(x: f32) -> f32 {
    let w = -log1p_f32(x * -x);
    let central = w < 5.0;
    let (coeffs, t) = if central {
        (&ERFINV_CENTRAL, w - 2.5)
    } else {
        (&ERFINV_TAIL, w.sqrt() - 3.0)
    };
    let mut p = f32::from_bits(coeffs[0]);
    for &c in &coeffs[1..] {
        p = p.mul_add(t, f32::from_bits(c));
    }
    if x.abs() == 1.0 {
        x * f32::INFINITY
    } else {
        p * x
    }
}

/// `x P(x^2) / Q(x^2)`, the odd rational approximation of `erf` XLA's CPU
/// backend evaluates with fused multiply-adds.
fn erf_rational(x: f32) -> f32 {
    let x2 = x * x;
    let mut p = x2.mul_add(f32::from_bits(0x3970_2D51), f32::from_bits(0x3B5F_5DA2));
    for c in [0x3D50_B6EB, 0x3E3D_A740, 0x3F90_6EBA] {
        p = p.mul_add(x2, f32::from_bits(c));
    }
    let num = x * p;
    let mut q = x2.mul_add(f32::from_bits(0xB3FD_3906), f32::from_bits(0x37C5_88DF));
    for c in [0x3A85_6D28, 0x3C66_87D4, 0x3DE3_4C21, 0x3EFE_B44A] {
        q = q.mul_add(x2, f32::from_bits(c));
    }
    q = q.mul_add(x2, 1.0);
    num / q
}

/// Error function for float32 as XLA's CPU backend computes a lone `erf`
/// (what `jax.lax.erf` gives on its own, eagerly or jitted): the rational
/// approximation, saturating to `±1` from `|x| = 3.8325069` on. Just below
/// that bound the approximation may exceed 1 by an ulp, as in JAX.
pub fn erf_f32(x: f32) -> f32 {
    if x.abs() >= f32::from_bits(0x4075_47CB) {
        1.0f32.copysign(x)
    } else {
        erf_rational(x)
    }
}

/// Error function for float32 as XLA's CPU backend computes it inside a
/// fused computation (as in `truncated_normal`): the same approximation,
/// but saturating to `±1` already from `|x| = 3.7439213`. Below that bound it
/// agrees with [`erf_f32`] bit for bit.
pub fn erf_f32_fused(x: f32) -> f32 {
    if x.abs() >= f32::from_bits(0x406F_9C68) {
        1.0f32.copysign(x)
    } else {
        erf_rational(x)
    }
}
