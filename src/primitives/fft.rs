//! The `fft` primitive (`jax.lax.fft`): a discrete Fourier transform over
//! the trailing axes, of one of four types (see [`FftType`]).
//!
//! It is linear, so its tangent is the transform of the tangent. Its
//! transpose is JAX's: a complex transform is its own transpose (the DFT
//! matrix is symmetric, and JAX's cotangents are not conjugated); the real
//! ones transpose into each other with the half spectrum's duplicated
//! frequencies weighted twice and the conjugations and scales that make the
//! pair adjoint.

use crate::array::fft::FftType;
use crate::array::{Array, DType, UnaryOp};
use crate::bail;
use crate::error::Result;
use crate::ir::Aval;
use crate::ops;
use crate::primitives::{join_vma, Prim};
use crate::trace::{bind1, Value};

fn params_of(prim: &Prim) -> Result<(FftType, &[usize])> {
    match prim {
        Prim::Fft { typ, lengths } => Ok((*typ, lengths)),
        _ => bail!(RuntimeError, "not an fft primitive: {}", prim.name()),
    }
}

/// The parameters as JAX prints them: the lengths, then the type's value.
pub fn params(typ: FftType, lengths: &[usize]) -> Vec<(String, String)> {
    vec![
        ("fft_lengths".into(), tuple(lengths)),
        ("fft_type".into(), typ.value().to_string()),
    ]
}

fn tuple(v: &[usize]) -> String {
    crate::array::shape_tuple(v)
}

/// Shape rule, with JAX's errors.
pub fn abstract_eval(prim: &Prim, ins: &[Aval]) -> Result<Vec<Aval>> {
    let (typ, lengths) = params_of(prim)?;
    let x = &ins[0];
    let (nd, k) = (x.shape.len(), lengths.len());
    if k > nd {
        bail!(
            ValueError,
            "FFT input shape {} must have at least as many input dimensions as fft_lengths {}.",
            tuple(&x.shape),
            tuple(lengths)
        );
    }
    let minor = &x.shape[nd - k..];
    let mut shape = x.shape.clone();
    let dtype = match typ {
        FftType::Rfft => {
            if x.dtype != DType::F32 {
                bail!(
                    ValueError,
                    "RFFT input must be float32 or float64, got {}",
                    x.dtype.name()
                );
            }
            if minor != lengths {
                bail!(
                    ValueError,
                    "RFFT input shape {} minor dimensions must be equal to fft_lengths {}",
                    tuple(&x.shape),
                    tuple(lengths)
                );
            }
            shape[nd - 1] = lengths[k - 1] / 2 + 1;
            DType::C64
        }
        FftType::Irfft => {
            if x.dtype != DType::C64 {
                bail!(
                    ValueError,
                    "IRFFT input must be complex64 or complex128, got {}",
                    x.dtype.name()
                );
            }
            if minor[..k - 1] != lengths[..k - 1] {
                bail!(
                    ValueError,
                    "IRFFT input shape {} minor dimensions must be equal to all except the last fft_length, got fft_lengths={}",
                    tuple(&x.shape),
                    tuple(lengths)
                );
            }
            shape[nd - 1] = lengths[k - 1];
            DType::F32
        }
        FftType::Fft | FftType::Ifft => {
            if x.dtype != DType::C64 {
                bail!(
                    ValueError,
                    "FFT input must be complex64 or complex128, got {}",
                    x.dtype.name()
                );
            }
            if minor != lengths {
                bail!(
                    ValueError,
                    "FFT input shape {} minor dimensions must be equal to fft_lengths {}",
                    tuple(&x.shape),
                    tuple(lengths)
                );
            }
            DType::C64
        }
    };
    Ok(vec![Aval {
        shape,
        dtype,
        vma: join_vma(ins),
        weak: false,
    }])
}

/// Implementation on arrays (the kernels are in `array::fft`).
pub fn apply(prim: &Prim, ins: &[Array]) -> Result<Vec<Array>> {
    let (typ, lengths) = params_of(prim)?;
    Ok(vec![ins[0].fft(typ, lengths)?])
}

/// The `fft` primitive itself, no conversion.
fn bind_fft(x: &Value, typ: FftType, lengths: &[usize]) -> Result<Value> {
    bind1(
        Prim::Fft {
            typ,
            lengths: lengths.to_vec(),
        },
        std::slice::from_ref(x),
    )
}

/// `jax.lax.fft`: the operand converted to complex64 (float32 for
/// `Rfft`), then the transform, staged as JAX's `jit` named `fft`.
pub fn lax_fft(x: &Value, typ: FftType, lengths: &[usize]) -> Result<Value> {
    ops::jitted1("fft", std::slice::from_ref(x), |v| {
        let x = &v[0];
        let x = match typ {
            FftType::Rfft => {
                if x.dtype() == DType::C64 {
                    bail!(ValueError, "only real valued inputs supported for rfft");
                }
                let to = if x.dtype().is_inexact() {
                    x.dtype()
                } else {
                    DType::F32
                };
                ops::astype(x, to)?
            }
            _ => ops::astype(x, DType::C64)?,
        };
        if lengths.is_empty() {
            return Ok(x);
        }
        bind_fft(&x, typ, lengths)
    })
}

/// The weights of the half spectrum's `m` frequencies along the last
/// axis: 1 for the zero frequency (and the Nyquist one of an even length
/// `n`), 2 for the others, which stand for a mirrored pair; complex64,
/// shaped to broadcast over `ndim` axes, and built with JAX's operations.
fn half_mask(m: usize, n: usize, ndim: usize) -> Result<Value> {
    let c = |v: f64| ops::scalar(v, DType::C64);
    let one = || ops::broadcast_in_dim(&c(1.0), &[1], &[]);
    let at = |i: usize| Value::Concrete(Array::scalar_i32(i as i32));
    let mut mask = ops::broadcast_in_dim(&c(2.0), &[m], &[])?;
    mask = ops::dynamic_update_slice(&mask, &one()?, &[at(0)])?;
    if n % 2 == 0 {
        mask = ops::dynamic_update_slice(&mask, &one()?, &[at(m - 1)])?;
    }
    let mut shape = vec![1; ndim];
    shape[ndim - 1] = m;
    ops::broadcast_in_dim(&mask, &shape, &[ndim - 1])
}

/// Transpose of `Rfft`: `N * irfft(conj(ct) / mask)`.
fn rfft_transpose(ct: &Value, lengths: &[usize]) -> Result<Value> {
    let lengths = lengths.to_vec();
    ops::jitted1("_rfft_transpose", std::slice::from_ref(ct), |v| {
        let t = &v[0];
        let n = lengths[lengths.len() - 1];
        let mask = half_mask(t.shape()[t.ndim() - 1], n, t.ndim())?;
        let c = ops::unary(UnaryOp::Conj, t)?;
        let x = lax_fft(&ops::div(&c, &mask)?, FftType::Irfft, &lengths)?;
        let total: usize = lengths.iter().product();
        ops::mul(&ops::scalar(total as f64, DType::F32), &x)
    })
}

/// Transpose of `Irfft`: `conj(mask / N * rfft(ct))`.
fn irfft_transpose(ct: &Value, lengths: &[usize]) -> Result<Value> {
    let x = lax_fft(ct, FftType::Rfft, lengths)?;
    let n = lengths[lengths.len() - 1];
    let mask = half_mask(x.shape()[x.ndim() - 1], n, x.ndim())?;
    let total: usize = lengths.iter().product();
    let scale = ops::scalar(1.0 / total as f64, DType::C64);
    let out = ops::mul(&ops::mul(&scale, &mask)?, &x)?;
    ops::unary(UnaryOp::Conj, &out)
}

/// Forward-mode rule: the transform of the tangent.
pub fn jvp(prim: &Prim, tangents: &[Option<Value>]) -> Result<Vec<Option<Value>>> {
    let (typ, lengths) = params_of(prim)?;
    Ok(vec![match &tangents[0] {
        Some(t) => Some(bind_fft(t, typ, lengths)?),
        None => None,
    }])
}

/// Reverse-mode rule: JAX's transpose.
pub fn vjp(prim: &Prim, cts: &[Option<Value>]) -> Result<Vec<Option<Value>>> {
    let (typ, lengths) = params_of(prim)?;
    let Some(ct) = &cts[0] else {
        return Ok(vec![None]);
    };
    Ok(vec![Some(match typ {
        FftType::Rfft => rfft_transpose(ct, lengths)?,
        FftType::Irfft => irfft_transpose(ct, lengths)?,
        FftType::Fft | FftType::Ifft => lax_fft(ct, typ, lengths)?,
    })])
}
