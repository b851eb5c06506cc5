//! `jax.scipy.fft`: the type-2 discrete cosine transform and its inverse
//! (`dct`, `idct`, `dctn`, `idctn`). JAX computes them with Makhoul's
//! method on top of the complex FFT (the even samples then the reversed
//! odd ones, one FFT, a twiddle by `exp(-i pi k / 2N)`), so shardlab builds
//! them the same way on `jnp.fft`'s core: the float32 rounding then
//! follows JAX's. Other DCT types are JAX's own `NotImplementedError`.

use crate::array::fft::FftType;
use crate::array::{BinaryOp, DType, UnaryOp};
use crate::bail;
use crate::error::Result;
use crate::ops;
use crate::python::array::to_value;
use crate::python::builtins::to_int;
use crate::python::value::{Args, Obj};
use crate::trace::Value;

use super::numpy::fft::{core as fft_core, ints};
use super::Builder;

/// The `jax.scipy.fft` module.
pub fn module() -> Obj {
    let mut b = Builder::new("jax.scipy.fft");
    b.func("dct", |_, a| one_axis(&a, "dct", dct));
    b.func("idct", |_, a| one_axis(&a, "idct", idct));
    b.func("dctn", |_, a| many_axes(&a, "dctn", false));
    b.func("idctn", |_, a| many_axes(&a, "idctn", true));
    b.build()
}

/// The `norm=` argument: None (as 'backward') or 'ortho'.
fn norm_arg(a: &Args, i: usize, func: &str) -> Result<bool> {
    match a.opt(Some(i), "norm") {
        None => Ok(false),
        Some(Obj::Str(s)) if &*s == "backward" => Ok(false),
        Some(Obj::Str(s)) if &*s == "ortho" => Ok(true),
        Some(o) => bail!(
            ValueError,
            "jax.scipy.fft.{func}: norm={} is not implemented",
            crate::python::format::repr_of(&o)
        ),
    }
}

fn type_arg(a: &Args) -> Result<()> {
    match a.opt(Some(1), "type") {
        None => Ok(()),
        Some(o) if to_int(&o)? == 2 => Ok(()),
        Some(_) => bail!(NotImplementedError, "Only DCT type 2 is implemented."),
    }
}

type OneAxis = fn(&Value, usize, Option<usize>, bool) -> Result<Value>;

/// `dct`/`idct(x, type=2, n=None, axis=-1, norm=None)`.
fn one_axis(a: &Args, func: &str, f: OneAxis) -> Result<Obj> {
    let x = to_value(&a.req(Some(0), "x", func)?)?;
    type_arg(a)?;
    let n = a.opt(Some(2), "n").map(|o| to_int(&o)).transpose()?;
    let axis = a.opt(Some(3), "axis").map(|o| to_int(&o)).transpose()?;
    let ortho = norm_arg(a, 4, func)?;
    let axis = ops::norm_axis(axis.unwrap_or(-1), x.ndim())?;
    let n = n.map(|n| positive(n, func)).transpose()?;
    Ok(Obj::Array(per_part(&x, |p| f(p, axis, n, ortho))?))
}

fn positive(n: i64, func: &str) -> Result<usize> {
    if n <= 0 {
        bail!(
            ValueError,
            "jax.scipy.fft.{func}: invalid number of data points ({n}) specified"
        );
    }
    Ok(n as usize)
}

/// A complex operand transforms its real and imaginary parts apart.
fn per_part(x: &Value, f: impl Fn(&Value) -> Result<Value>) -> Result<Value> {
    if x.dtype() != DType::C64 {
        return f(x);
    }
    let re = f(&ops::unary(UnaryOp::Real, x)?)?;
    let im = f(&ops::unary(UnaryOp::Imag, x)?)?;
    ops::binary(BinaryOp::Complex, &re, &im)
}

/// `x` zero-padded or cropped to length `n` along `axis`.
fn fit(x: &Value, axis: usize, n: usize) -> Result<Value> {
    let shape = x.shape();
    let len = shape[axis];
    if n >= len {
        let mut hi = vec![0; shape.len()];
        hi[axis] = n - len;
        return ops::pad(x, &vec![0; shape.len()], &hi);
    }
    let mut limits = shape.clone();
    limits[axis] = n;
    ops::slice(x, &vec![0; shape.len()], &limits, &vec![1; shape.len()])
}

/// Every other element along `axis` from `start` on.
fn every_other(x: &Value, axis: usize, start: usize) -> Result<Value> {
    let shape = x.shape();
    let mut starts = vec![0; shape.len()];
    starts[axis] = start.min(shape[axis]);
    let mut strides = vec![1; shape.len()];
    strides[axis] = 2;
    ops::slice(x, &starts, &shape, &strides)
}

/// The even elements, then the odd ones reversed.
fn interleave(x: &Value, axis: usize) -> Result<Value> {
    let odd = ops::rev(&every_other(x, axis, 1)?, &[axis])?;
    ops::concatenate(&[every_other(x, axis, 0)?, odd], axis as i64)
}

/// The inverse of `interleave`: the first half (rounded up) fills the even
/// places, the second half reversed the odd ones.
fn deinterleave(x: &Value, axis: usize) -> Result<Value> {
    let shape = x.shape();
    let (n, half) = (shape[axis], shape[axis].div_ceil(2));
    let zeros = vec![0; shape.len()];
    let ones = vec![1; shape.len()];
    let mut mid = shape.clone();
    mid[axis] = half;
    let evens = ops::slice(x, &zeros, &mid, &ones)?;
    let mut from = zeros.clone();
    from[axis] = half;
    let odds = ops::rev(&ops::slice(x, &from, &shape, &ones)?, &[axis])?;
    // An odd length has one odd place fewer: pad it, pair, then crop.
    let mut hi = zeros.clone();
    hi[axis] = half - (n - half);
    let odds = ops::pad(&odds, &zeros, &hi)?;
    let pairs = ops::stack(&[evens, odds], axis as i64 + 1)?;
    let mut merged = shape.clone();
    merged[axis] = 2 * half;
    fit(&ops::reshape(&pairs, &merged)?, axis, n)
}

/// `arange(n)` as `dtype`, laid along `axis` of a rank-`ndim` array.
fn index_along(n: usize, axis: usize, ndim: usize, dtype: DType) -> Result<Value> {
    let k = Value::Concrete(crate::array::Array::arange(0.0, n as f64, 1.0, DType::F32)?);
    let k = ops::convert(&k, dtype)?;
    let mut shape = vec![1; ndim];
    shape[axis] = n;
    ops::reshape(&k, &shape)
}

/// JAX's twiddle `exp(-0.5j pi k / N)`, in complex64.
fn w4(n: usize, k: &Value) -> Result<Value> {
    let c = |re: f64, im: f64| Value::Concrete(crate::python::array::complex_scalar(re, im));
    let k = ops::convert(k, DType::C64)?;
    let angle = ops::mul(&c(0.0, -0.5 * std::f64::consts::PI), &k)?;
    ops::exp(&ops::div(&angle, &c(n as f64, 0.0))?)
}

/// Divides by `sqrt(f N)` where `f` is 4 for the first element along
/// `axis` and 2 for the rest: the orthonormal scaling.
fn ortho_norm(x: &Value, axis: usize) -> Result<Value> {
    let n = x.shape()[axis];
    let d = x.dtype();
    let mut f = vec![2.0; n];
    f[0] = 4.0;
    let f = crate::python::array::from_f64(&[n], &f, d)?;
    let mut shape = vec![1; x.ndim()];
    shape[axis] = n;
    let f = ops::reshape(&Value::Concrete(f), &shape)?;
    let scale = ops::sqrt(&ops::mul(&f, &ops::scalar(n as f64, d))?)?;
    ops::div(x, &scale)
}

fn fft_along(x: &Value, axes: &[usize], inverse: bool) -> Result<Value> {
    let (name, typ) = match (inverse, axes.len()) {
        (false, 1) => ("fft", FftType::Fft),
        (false, _) => ("fftn", FftType::Fft),
        (true, _) => ("ifft", FftType::Ifft),
    };
    let axes = axes.iter().map(|&a| a as i64).collect();
    fft_core(name, typ, x, None, Some(axes), &None)
}

/// `2 Re(V w4)` with `V` the FFT of the interleaved input.
fn dct(x: &Value, axis: usize, n: Option<usize>, ortho: bool) -> Result<Value> {
    let x = match n {
        Some(n) => fit(x, axis, n)?,
        None => x.clone(),
    };
    let len = x.shape()[axis];
    let v = fft_along(&interleave(&x, axis)?, &[axis], false)?;
    let k = index_along(len, axis, x.ndim(), DType::F32)?;
    let out = ops::mul(&v, &w4(len, &k)?)?;
    let out = ops::mul(
        &ops::scalar(2.0, DType::F32),
        &ops::unary(UnaryOp::Real, &out)?,
    )?;
    if ortho {
        return ortho_norm(&out, axis);
    }
    Ok(out)
}

/// The inverse: undo the scaling and twiddle, inverse FFT, de-interleave.
fn idct(x: &Value, axis: usize, n: Option<usize>, ortho: bool) -> Result<Value> {
    let x = match n {
        Some(n) => fit(x, axis, n)?,
        None => x.clone(),
    };
    let len = x.shape()[axis];
    let mut x = super::scipy::inexact(vec![x])?.remove(0);
    if !ortho {
        x = ortho_norm(&x, axis)?;
    }
    x = ortho_norm(&x, axis)?;
    let k = index_along(len, axis, x.ndim(), x.dtype())?;
    let x = ops::div(&ops::convert(&x, DType::C64)?, &w4(len, &k)?)?;
    let x = ops::mul(&x, &ops::scalar(2.0, DType::C64))?;
    let x = ops::mul(&x, &ops::scalar(len as f64, DType::C64))?;
    let x = fft_along(&x, &[axis], true)?;
    deinterleave(&ops::unary(UnaryOp::Real, &x)?, axis)
}

/// The two-axis DCT in one two-dimensional FFT, as JAX writes it.
fn dct2(x: &Value, axes: [usize; 2], ortho: bool) -> Result<Value> {
    let [a1, a2] = axes;
    let shape = x.shape();
    let (n1, n2) = (shape[a1], shape[a2]);
    let v = fft_along(&interleave(&interleave(x, a1)?, a2)?, &axes, false)?;
    let k1 = index_along(n1, a1, x.ndim(), DType::C64)?;
    let k2 = index_along(n2, a2, x.ndim(), DType::C64)?;
    let flipped = ops::rev(&v, &[a2])?;
    let rolled = roll_one(&flipped, a2)?;
    let plus = ops::mul(&w4(n2, &k2)?, &v)?;
    let minus = ops::mul(&w4(n2, &ops::neg(&k2)?)?, &rolled)?;
    let out = ops::mul(&w4(n1, &k1)?, &ops::add(&plus, &minus)?)?;
    let out = ops::mul(
        &ops::scalar(2.0, DType::F32),
        &ops::unary(UnaryOp::Real, &out)?,
    )?;
    if ortho {
        return ortho_norm(&ortho_norm(&out, a1)?, a2);
    }
    Ok(out)
}

/// `jnp.roll(x, 1, axis)`.
fn roll_one(x: &Value, axis: usize) -> Result<Value> {
    let shape = x.shape();
    let n = shape[axis];
    let zeros = vec![0; shape.len()];
    let ones = vec![1; shape.len()];
    let mut from = zeros.clone();
    from[axis] = n - 1;
    let last = ops::slice(x, &from, &shape, &ones)?;
    let mut upto = shape.clone();
    upto[axis] = n - 1;
    let rest = ops::slice(x, &zeros, &upto, &ones)?;
    ops::concatenate(&[last, rest], axis as i64)
}

/// `dctn`/`idctn(x, type=2, s=None, axes=None, norm=None)`.
fn many_axes(a: &Args, func: &str, inverse: bool) -> Result<Obj> {
    let x = to_value(&a.req(Some(0), "x", func)?)?;
    type_arg(a)?;
    let s = a.opt(Some(2), "s").map(|o| ints(&o)).transpose()?;
    let ortho = norm_arg(a, 4, func)?;
    let nd = x.ndim();
    if let Some(s) = &s {
        if s.len() > nd {
            bail!(
                ValueError,
                "s must have at most x.ndim ({nd}) elements, got {}",
                s.len()
            );
        }
    }
    let axes: Vec<usize> = match (a.opt(Some(3), "axes"), &s) {
        (Some(o), _) => {
            let given = ints(&o)?;
            let axes = given
                .iter()
                .map(|&ax| ops::norm_axis(ax, nd))
                .collect::<Result<Vec<_>>>()?;
            let mut seen = axes.clone();
            seen.sort_unstable();
            seen.dedup();
            if seen.len() != axes.len() {
                bail!(ValueError, "repeated axis");
            }
            axes
        }
        (None, Some(s)) => (nd - s.len()..nd).collect(),
        (None, None) => (0..nd).collect(),
    };
    let sizes: Option<Vec<usize>> = s
        .map(|s| s.iter().map(|&n| positive(n, func)).collect())
        .transpose()?;
    let out = per_part(&x, |p| {
        transform_axes(p, &axes, sizes.as_deref(), ortho, inverse)
    })?;
    Ok(Obj::Array(out))
}

fn transform_axes(
    x: &Value,
    axes: &[usize],
    sizes: Option<&[usize]>,
    ortho: bool,
    inverse: bool,
) -> Result<Value> {
    let one: OneAxis = if inverse { idct } else { dct };
    if axes.len() == 1 {
        return one(x, axes[0], sizes.map(|s| s[0]), ortho);
    }
    let mut x = x.clone();
    if let Some(s) = sizes {
        for (&ax, &n) in axes.iter().zip(s) {
            x = fit(&x, ax, n)?;
        }
    }
    if inverse {
        for &ax in axes {
            x = idct(&x, ax, None, ortho)?;
        }
        return Ok(x);
    }
    // Pairs of axes take the two-dimensional route, a last odd one the 1-D.
    for block in axes.chunks(2) {
        x = match block {
            [a1, a2] => dct2(&x, [*a1, *a2], ortho)?,
            [a1] => dct(&x, *a1, None, ortho)?,
            _ => x,
        };
    }
    Ok(x)
}
