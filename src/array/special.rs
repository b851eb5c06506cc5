//! The error function and its inverse in float32, evaluated with the same
//! rational and polynomial approximations (and fused multiply-adds) that XLA
//! uses on CPU, so `jax.random.normal`'s erfinv-based sampling reproduces
//! JAX's values. Both agree with XLA bit for bit, subnormals flushed to zero
//! as XLA's CPU code flushes them (see `xla_math`).

// The constants are kept digit for digit as published so they round to the
// same f32 values XLA uses.
#![allow(clippy::excessive_precision, clippy::approx_constant)]

use super::xla_math::{flush, log1p};

/// Horner evaluation with fused multiply-adds, highest degree first,
/// flushing subnormal partial results as XLA does.
fn horner_fma(x: f32, coeffs: &[f64]) -> f32 {
    let mut p = coeffs[0] as f32;
    for &c in &coeffs[1..] {
        p = flush(p.mul_add(x, c as f32));
    }
    p
}

/// The error function, `2/sqrt(pi) * integral_0^x exp(-t^2) dt`.
pub fn erf(x: f32) -> f32 {
    // The coefficients are given in double precision and rounded to f32 once,
    // as XLA does.
    const ALPHA: [f64; 5] = [
        0.00022905065861350646,
        0.0034082910107109506,
        0.050955695062380861,
        0.18520832239976145,
        1.128379143519084,
    ];
    const BETA: [f64; 7] = [
        -1.1791602954361697e-7,
        0.000023547966471313185,
        0.0010179625278914885,
        0.014070470171167667,
        0.11098505178285362,
        0.49746925110067538,
        1.0,
    ];
    // Beyond this point erf(x) rounds to +-1 in float32.
    const CLAMP: f64 = 3.832506856900711;
    if x.is_nan() {
        return x;
    }
    let c = CLAMP as f32;
    let x = flush(x).clamp(-c, c);
    let x2 = flush(x * x);
    flush((x * horner_fma(x2, &ALPHA)) / horner_fma(x2, &BETA))
}

/// The inverse error function on [-1, 1] (M. Giles' single-precision
/// approximation); +-inf at +-1, NaN outside.
pub fn erf_inv(x: f32) -> f32 {
    const SMALL: [f64; 9] = [
        2.81022636e-08,
        3.43273939e-07,
        -3.5233877e-06,
        -4.39150654e-06,
        0.00021858087,
        -0.00125372503,
        -0.00417768164,
        0.246640727,
        1.50140941,
    ];
    const LARGE: [f64; 9] = [
        -0.000200214257,
        0.000100950558,
        0.00134934322,
        -0.00367342844,
        0.00573950773,
        -0.0076224613,
        0.00943887047,
        1.00167406,
        2.83297682,
    ];
    let x = flush(x);
    if x.abs() == 1.0 {
        return x * f32::INFINITY;
    }
    if x.is_nan() || x.abs() > 1.0 {
        return f32::NAN;
    }
    let w = -log1p(-x * x);
    let p = if w < 5.0 {
        horner_fma(flush(w - 2.5), &SMALL)
    } else {
        horner_fma(w.sqrt() - 3.0, &LARGE)
    };
    flush(p * x)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bits(v: &[f32]) -> Vec<u32> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    #[test]
    fn erf_matches_jax_bit_for_bit() {
        // jax.scipy.special.erf on these float32 inputs, JAX 0.10.2 on CPU.
        let x = [
            -5.0f32, -3.0, -1.5, -0.5, -1e-3, 0.0, 1e-6, 0.2, 0.8, 1.2, 2.5, 3.9,
        ];
        let want = [
            -1.0f32,
            -f32::from_bits(0x3f7f_fe8e),
            -f32::from_bits(0x3f77_52a9),
            -f32::from_bits(0x3f05_3f7b),
            -f32::from_bits(0x3a93_e61c),
            0.0,
            f32::from_bits(0x3597_72d0),
            f32::from_bits(0x3e64_0c25),
            f32::from_bits(0x3f3d_fa52),
            f32::from_bits(0x3f69_0a57),
            f32::from_bits(0x3f7f_e554),
            1.0,
        ];
        let got: Vec<f32> = x.iter().map(|&v| erf(v)).collect();
        assert_eq!(bits(&got), bits(&want), "{got:?}");
    }

    #[test]
    fn erf_inv_matches_jax() {
        // jax.scipy.special.erfinv, JAX 0.10.2 on CPU.
        let x = [
            -0.99999f32,
            -0.9,
            -0.5,
            -0.1,
            0.0,
            1e-5,
            0.3,
            0.7,
            0.999,
            1.0,
            -1.0,
        ];
        let want = [
            -f32::from_bits(0x4047_e297),
            -f32::from_bits(0x3f94_e009),
            -f32::from_bits(0x3ef4_30fe),
            -f32::from_bits(0x3db5_fa21),
            0.0,
            f32::from_bits(0x3714_af27),
            f32::from_bits(0x3e8b_803d),
            f32::from_bits(0x3f3b_9d4f),
            f32::from_bits(0x4014_e999),
            f32::INFINITY,
            f32::NEG_INFINITY,
        ];
        for (&xi, &w) in x.iter().zip(&want) {
            let g = erf_inv(xi);
            assert_eq!(
                g.to_bits(),
                w.to_bits(),
                "erf_inv({xi}) = {g}, JAX gives {w}"
            );
        }
        assert!(erf_inv(1.5).is_nan());
        // erf_inv inverts erf.
        for &v in &[-0.7f32, 0.1, 0.45, 0.93] {
            assert!((erf(erf_inv(v)) - v).abs() < 2e-7);
        }
    }
}
