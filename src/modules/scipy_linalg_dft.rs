//! `jax.scipy.linalg.dft` (the discrete Fourier transform matrix, built
//! from complex exponentials as JAX writes it) and `convolution_matrix`
//! (a Toeplitz matrix of the zero-padded kernel and its reverse, trimmed
//! for the `full`, `same` and `valid` modes).

use crate::array::{Array, Buffer, DType, C64};
use crate::bail;
use crate::error::Result;
use crate::ops;
use crate::python::array::to_value;
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};
use crate::trace::Value;

use super::Builder;

fn weak_complex(re: f32, im: f32) -> Result<Value> {
    let a = Array::from_buffer(&[], Buffer::C64(vec![C64::new(re, im)].into()))?;
    Ok(Value::Concrete(a.with_weak(true)))
}

fn dft(_: &mut Interp, a: Args) -> Result<Obj> {
    let n = crate::python::builtins::to_int(&a.req(Some(0), "n", "dft")?)?.max(0) as usize;
    let scale = match a.opt(Some(1), "scale") {
        None | Some(Obj::None) => None,
        Some(o) => Some(crate::python::format::str_of(&o)),
    };
    if let Some(s) = &scale {
        if s != "sqrtn" && s != "n" {
            bail!(
                ValueError,
                "scale must be None, 'sqrtn', or 'n'; got '{s}'."
            );
        }
    }
    if !matches!(a.opt(None, "dtype"), None | Some(Obj::None)) {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.scipy.linalg.dft with a dtype"
        );
    }
    let idx = Value::Concrete(Array::iota(&[n], 0, DType::F32)?);
    let idx = ops::convert(&idx, DType::C64)?;
    // (-2j * pi * a[:, None]) * a[None, :] / n, left to right.
    let turn = weak_complex(-0.0, (-2.0 * std::f64::consts::PI) as f32)?;
    let t = ops::mul(&turn, &ops::expand_dims(&idx, 1)?)?;
    let t = ops::mul(&t, &ops::expand_dims(&idx, 0)?)?;
    let t = ops::div(&t, &weak_complex(n as f32, 0.0)?)?;
    let mut omegas = ops::exp(&t)?;
    match scale.as_deref() {
        Some("sqrtn") => {
            let root = (n as f32).sqrt();
            omegas = ops::div(&omegas, &weak_complex(root, 0.0)?)?;
        }
        Some("n") => omegas = ops::div(&omegas, &weak_complex(n as f32, 0.0)?)?,
        _ => {}
    }
    Ok(Obj::Array(omegas))
}

/// `x[..., lo:hi]`.
fn last_slice(x: &Value, lo: usize, hi: usize) -> Result<Value> {
    let s = x.shape();
    let nd = s.len();
    let mut starts = vec![0; nd];
    let mut limits = s.clone();
    starts[nd - 1] = lo;
    limits[nd - 1] = hi;
    ops::slice(x, &starts, &limits, &vec![1; nd])
}

fn convolution_matrix(interp: &mut Interp, a: Args) -> Result<Obj> {
    let n = crate::python::builtins::to_int(&a.req(Some(1), "n", "convolution_matrix")?)?;
    if n <= 0 {
        bail!(ValueError, "n must be a positive integer; got {n}.");
    }
    let n = n as usize;
    let x = to_value(&a.req(Some(0), "a", "convolution_matrix")?)?;
    if x.ndim() == 0 {
        bail!(
            ValueError,
            "convolution_matrix: a must be at least 1-dimensional, got a scalar."
        );
    }
    let nd = x.ndim();
    let m = x.shape()[nd - 1];
    if m < 1 {
        bail!(
            ValueError,
            "len(a) must be at least 1; got shape {}.",
            crate::array::shape_tuple(&x.shape())
        );
    }
    let mode = match a.opt(Some(2), "mode") {
        None | Some(Obj::None) => "full".to_string(),
        Some(o) => crate::python::format::str_of(&o),
    };
    let (tb, te) = match mode.as_str() {
        "same" => {
            let trim = n.min(m) - 1;
            (trim / 2, trim - trim / 2)
        }
        "valid" => (n.min(m) - 1, n.min(m) - 1),
        "full" => (0, 0),
        other => bail!(
            ValueError,
            "mode must be one of 'full', 'valid', 'same'; got '{other}'."
        ),
    };
    let mut hi = vec![0; nd];
    hi[nd - 1] = n - 1;
    let az = ops::pad(&x, &vec![0; nd], &hi)?;
    let raz = ops::pad(&ops::rev(&x, &[nd - 1])?, &vec![0; nd], &hi)?;
    let l = m + n - 1;
    let col0 = last_slice(&az, tb, l - te)?;
    let row0 = last_slice(&raz, l - n - tb, l - tb)?;
    let module = super::import(interp, "jax.scipy.linalg")?;
    let toeplitz = crate::python::ops::getattr(interp, &module, "toeplitz")?;
    interp.call(
        &toeplitz,
        Args::new(vec![Obj::Array(col0), Obj::Array(row0)]),
    )
}

/// Adds `dft` and `convolution_matrix` to `jax.scipy.linalg`.
pub fn register(b: &mut Builder) {
    b.func("dft", dft);
    b.func("convolution_matrix", convolution_matrix);
}
