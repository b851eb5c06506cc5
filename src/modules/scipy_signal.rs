//! `jax.scipy.signal`: N-dimensional convolution and correlation (direct
//! through `conv_general_dilated`, or through the real or complex FFT),
//! their two-dimensional forms, and `detrend`. Each follows JAX's wrapper:
//! the operands promoted to one inexact dtype, the smaller one the kernel,
//! the padding of each mode, and for the FFT route the full-size transform
//! cropped around its centre. The spectral estimators (`stft`, `istft`,
//! `csd`, `welch`) are not modelled and refuse by name.

use crate::array::{shape_tuple, BinaryOp, DType, UnaryOp};
use crate::bail;
use crate::error::Result;
use crate::ops;
use crate::primitives::conv::{bind_conv, ConvParams};
use crate::python::array::to_value;
use crate::python::builtins::to_int;
use crate::python::format::repr_of;
use crate::python::ops::iterate;
use crate::python::value::{Args, Obj};
use crate::trace::Value;

use super::numpy::fft::core as fft_core;
use super::Builder;

/// The `jax.scipy.signal` module.
pub fn module() -> Obj {
    let mut b = Builder::new("jax.scipy.signal");
    b.func("convolve", |_, a| convolve_args(&a, "convolve", false));
    b.func("correlate", |_, a| convolve_args(&a, "correlate", true));
    b.func("convolve2d", |_, a| two_d(&a, "convolve2d", false));
    b.func("correlate2d", |_, a| two_d(&a, "correlate2d", true));
    b.func("fftconvolve", fftconvolve_args);
    b.func("detrend", detrend);
    for name in ["stft", "istft", "csd", "welch"] {
        b.func(name, move |_, _| {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: jax.scipy.signal.{name}"
            )
        });
    }
    b.build()
}

/// The convolution modes JAX accepts.
#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Full,
    Same,
    Valid,
}

fn mode_arg(a: &Args, i: usize) -> Result<Mode> {
    match a.opt(Some(i), "mode") {
        None => Ok(Mode::Full),
        Some(Obj::Str(s)) if &*s == "full" => Ok(Mode::Full),
        Some(Obj::Str(s)) if &*s == "same" => Ok(Mode::Same),
        Some(Obj::Str(s)) if &*s == "valid" => Ok(Mode::Valid),
        Some(_) => bail!(ValueError, "mode must be one of ['full', 'same', 'valid']"),
    }
}

/// `precision=` other than None is not modelled.
fn default_precision(a: &Args, i: usize, func: &str) -> Result<()> {
    if a.opt(Some(i), "precision").is_some() {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.scipy.signal.{func} with precision="
        );
    }
    Ok(())
}

fn operands(a: &Args, func: &str) -> Result<(Value, Value)> {
    let x = to_value(&a.req(Some(0), "in1", func)?)?;
    let y = to_value(&a.req(Some(1), "in2", func)?)?;
    Ok((x, y))
}

/// Both operands promoted to one inexact dtype.
fn promote(x: Value, y: Value) -> Result<(Value, Value)> {
    let mut v = super::scipy::inexact(vec![x, y])?;
    let y = v.remove(1);
    Ok((v.remove(0), y))
}

/// `jnp.flip` over every axis.
fn flip(x: &Value) -> Result<Value> {
    ops::rev(x, &(0..x.ndim()).collect::<Vec<_>>())
}

fn conj(x: &Value) -> Result<Value> {
    if x.dtype() == DType::C64 {
        return ops::unary(UnaryOp::Conj, x);
    }
    Ok(x.clone())
}

/// `convolve`/`correlate(in1, in2, mode='full', method='auto', precision=None)`;
/// correlation is convolution with the conjugated, flipped second operand.
fn convolve_args(a: &Args, func: &str, correlate: bool) -> Result<Obj> {
    let (x, mut y) = operands(a, func)?;
    let mode = mode_arg(a, 2)?;
    default_precision(a, 4, func)?;
    if correlate {
        y = flip(&conj(&y)?)?;
    }
    let out = match a.opt(Some(3), "method") {
        None => convolve_nd(x, y, mode)?,
        Some(Obj::Str(m)) if &*m == "auto" || &*m == "direct" => convolve_nd(x, y, mode)?,
        Some(Obj::Str(m)) if &*m == "fft" => fftconvolve(x, y, mode, None)?,
        Some(m) => bail!(
            ValueError,
            "Got method={}; expected 'auto', 'fft', or 'direct'.",
            repr_of(&m)
        ),
    };
    Ok(Obj::Array(out))
}

fn same_rank(x: &Value, y: &Value) -> Result<()> {
    if x.ndim() != y.ndim() {
        bail!(
            ValueError,
            "in1 and in2 must have the same number of dimensions"
        );
    }
    Ok(())
}

/// Whether the second operand is no larger in every dimension (`no_swap`)
/// and whether it is no smaller (`swap`).
fn fits(xs: &[usize], ys: &[usize]) -> (bool, bool) {
    let no_swap = xs.iter().zip(ys).all(|(a, b)| a >= b);
    let swap = xs.iter().zip(ys).all(|(a, b)| a <= b);
    (no_swap, swap)
}

/// JAX's `_convolve_nd`: the larger operand convolved with the flipped
/// smaller one, padded per mode so 'same' keeps the first operand's shape.
fn convolve_nd(x: Value, y: Value, mode: Mode) -> Result<Value> {
    same_rank(&x, &y)?;
    let (xs, ys) = (x.shape(), y.shape());
    if xs.contains(&0) || ys.contains(&0) {
        bail!(
            ValueError,
            "zero-size arrays not supported in convolutions, got shapes {} and {}.",
            shape_tuple(&xs),
            shape_tuple(&ys)
        );
    }
    let (mut x, mut y) = promote(x, y)?;
    let (no_swap, swap) = fits(&xs, &ys);
    if !(no_swap || swap) {
        bail!(
            ValueError,
            "One input must be smaller than the other in every dimension."
        );
    }
    let shape_o = ys.clone();
    if swap {
        std::mem::swap(&mut x, &mut y);
    }
    let shape = y.shape();
    let y = flip(&y)?;
    let padding: Vec<(i64, i64)> = shape
        .iter()
        .zip(&shape_o)
        .map(|(&s, &so)| {
            let (s, so) = (s as i64, so as i64);
            match mode {
                Mode::Valid => (0, 0),
                Mode::Same => (s - 1 - (so - 1) / 2, s - so + (so - 1) / 2),
                Mode::Full => (s - 1, s - 1),
            }
        })
        .collect();
    let nd = shape.len();
    let spec: Vec<usize> = (0..nd + 2).collect();
    let lift = |v: &Value| ops::expand_dims_at(v, &[0, 1]);
    let p = ConvParams {
        window_strides: vec![1; nd],
        padding,
        lhs_dilation: vec![1; nd],
        rhs_dilation: vec![1; nd],
        lhs_spec: spec.clone(),
        rhs_spec: spec.clone(),
        out_spec: spec,
        feature_group_count: 1,
        batch_group_count: 1,
    };
    let out = complex_conv(&lift(&x)?, &lift(&y)?, &p)?;
    let out_shape = out.shape()[2..].to_vec();
    ops::reshape(&out, &out_shape)
}

/// The convolution, complex operands as four real convolutions:
/// `(a + ib) * (c + id) = (ac - bd) + i(ad + bc)`.
fn complex_conv(x: &Value, y: &Value, p: &ConvParams) -> Result<Value> {
    if x.dtype() != DType::C64 {
        return bind_conv(x, y, p.clone());
    }
    let parts = |v: &Value| -> Result<(Value, Value)> {
        Ok((ops::unary(UnaryOp::Real, v)?, ops::unary(UnaryOp::Imag, v)?))
    };
    let ((a, b), (c, d)) = (parts(x)?, parts(y)?);
    let conv = |l: &Value, r: &Value| bind_conv(l, r, p.clone());
    let re = ops::sub(&conv(&a, &c)?, &conv(&b, &d)?)?;
    let im = ops::add(&conv(&a, &d)?, &conv(&b, &c)?)?;
    ops::binary(BinaryOp::Complex, &re, &im)
}

/// `convolve2d`/`correlate2d(in1, in2, mode='full', boundary='fill',
/// fillvalue=0, precision=None)`.
fn two_d(a: &Args, func: &str, correlate: bool) -> Result<Obj> {
    let (x, y) = operands(a, func)?;
    let mode = mode_arg(a, 2)?;
    let fill_is_zero = match a.opt(Some(4), "fillvalue") {
        None | Some(Obj::Int(0)) | Some(Obj::Bool(false)) => true,
        Some(Obj::Float(f)) => f == 0.0,
        Some(_) => false,
    };
    let fill_boundary = match a.opt(Some(3), "boundary") {
        None => true,
        Some(Obj::Str(s)) => &*s == "fill",
        Some(_) => false,
    };
    if !fill_boundary || !fill_is_zero {
        bail!(
            NotImplementedError,
            "{func}() only supports boundary='fill', fillvalue=0"
        );
    }
    default_precision(a, 5, func)?;
    if x.ndim() != 2 || y.ndim() != 2 {
        bail!(ValueError, "{func}() only supports 2-dimensional inputs.");
    }
    if !correlate {
        return Ok(Obj::Array(convolve_nd(x, y, mode)?));
    }
    Ok(Obj::Array(correlate2d(x, y, mode)?))
}

/// JAX's `correlate2d`: which operand is flipped, and whether the result
/// is flipped back, depends on the mode and on which operand is larger.
fn correlate2d(x: Value, y: Value, mode: Mode) -> Result<Value> {
    let (xs, ys) = (x.shape(), y.shape());
    let (_, swap) = fits(&xs, &ys);
    let same_shape = xs == ys;
    let flipped_first =
        |x: &Value, y: &Value| -> Result<Value> { flip(&convolve_nd(flip(x)?, conj(y)?, mode)?) };
    match mode {
        Mode::Same => flipped_first(&x, &y),
        Mode::Valid if swap && !same_shape => convolve_nd(flip(&y)?, conj(&x)?, mode),
        Mode::Valid => flipped_first(&x, &y),
        Mode::Full if swap => conj(&convolve_nd(flip(&y)?, conj(&x)?, mode)?),
        Mode::Full => flipped_first(&x, &y),
    }
}

/// `fftconvolve(in1, in2, mode='full', axes=None)`.
fn fftconvolve_args(_: &mut crate::python::interp::Interp, a: Args) -> Result<Obj> {
    let (x, y) = operands(&a, "fftconvolve")?;
    let mode = mode_arg(&a, 2)?;
    let axes = match a.opt(Some(3), "axes") {
        None => None,
        Some(o @ (Obj::Tuple(_) | Obj::List(_))) => Some(
            iterate(&o)?
                .iter()
                .map(to_int)
                .collect::<Result<Vec<_>>>()?,
        ),
        Some(o) => Some(vec![to_int(&o)?]),
    };
    Ok(Obj::Array(fftconvolve(x, y, mode, axes)?))
}

/// JAX's `fftconvolve`: the product of the transforms at the full size,
/// transformed back and cropped around the centre to the mode's shape.
/// Axes left out of `axes` are batch axes, which must match.
fn fftconvolve(x: Value, y: Value, mode: Mode, axes: Option<Vec<i64>>) -> Result<Value> {
    let (mut x, mut y) = promote(x, y)?;
    if x.ndim() != y.ndim() {
        bail!(
            ValueError,
            "in1 and in2 should have the same dimensionality"
        );
    }
    let nd = x.ndim();
    let axes: Vec<usize> = match &axes {
        None => (0..nd).collect(),
        Some(given) => {
            let mut v = given
                .iter()
                .map(|&ax| ops::norm_axis(ax, nd))
                .collect::<Result<Vec<_>>>()?;
            v.sort_unstable();
            v.dedup();
            v
        }
    };
    let (xs, ys) = (x.shape(), y.shape());
    if (0..nd).any(|d| !axes.contains(&d) && xs[d] != ys[d]) {
        bail!(
            ValueError,
            "mapped axes must have same shape; got in1.shape={} in2.shape={} axes={}",
            shape_tuple(&xs),
            shape_tuple(&ys),
            axes_repr(&axes)
        );
    }
    let pick = |s: &[usize]| -> Vec<usize> { axes.iter().map(|&d| s[d]).collect() };
    let (xa, ya) = (pick(&xs), pick(&ys));
    if mode == Mode::Valid {
        let (no_swap, swap) = fits(&xa, &ya);
        if !(no_swap || swap) {
            bail!(ValueError, "For 'valid' mode, One input must be at least as large as the other in every dimension.");
        }
        if swap {
            std::mem::swap(&mut x, &mut y);
        }
    }
    let (xa, ya) = (pick(&x.shape()), pick(&y.shape()));
    let full: Vec<usize> = xa.iter().zip(&ya).map(|(a, b)| a + b - 1).collect();
    let conv = if xa.iter().zip(&ya).all(|(&a, &b)| a == 1 || b == 1) {
        ops::mul(&x, &y)?
    } else {
        spectral_product(&x, &y, &axes, &full)?
    };
    let out: Vec<usize> = match mode {
        Mode::Full => full.clone(),
        Mode::Same => xa.clone(),
        Mode::Valid => xa.iter().zip(&ya).map(|(a, b)| a - b + 1).collect(),
    };
    let cs = conv.shape();
    let mut starts = vec![0; nd];
    let mut limits = cs.clone();
    for (i, &d) in axes.iter().enumerate() {
        starts[d] = (full[i] - out[i]) / 2;
        limits[d] = starts[d] + out[i];
    }
    ops::slice(&conv, &starts, &limits, &vec![1; nd])
}

/// `ifft(fft(x) * fft(y))` at size `full` over `axes`: the real transforms
/// for real operands, the complex ones otherwise.
fn spectral_product(x: &Value, y: &Value, axes: &[usize], full: &[usize]) -> Result<Value> {
    use crate::array::fft::FftType;
    let complex = x.dtype() == DType::C64;
    let (fwd, inv) = if complex {
        (("fftn", FftType::Fft), ("ifftn", FftType::Ifft))
    } else {
        (("rfftn", FftType::Rfft), ("irfftn", FftType::Irfft))
    };
    let s: Vec<i64> = full.iter().map(|&n| n as i64).collect();
    let ax: Vec<i64> = axes.iter().map(|&d| d as i64).collect();
    let t = |v: &Value, (name, typ): (&str, FftType)| {
        fft_core(name, typ, v, Some(s.clone()), Some(ax.clone()), &None)
    };
    let prod = ops::binary(BinaryOp::Mul, &t(x, fwd)?, &t(y, fwd)?)?;
    t(&prod, inv)
}

fn axes_repr(axes: &[usize]) -> String {
    let items: Vec<String> = axes.iter().map(|d| d.to_string()).collect();
    if items.len() == 1 {
        return format!("({},)", items[0]);
    }
    format!("({})", items.join(", "))
}

/// `detrend(data, axis=-1, type='linear', bp=0, overwrite_data=None)`:
/// the mean removed, or a least-squares line removed from each piece
/// between breakpoints.
fn detrend(_: &mut crate::python::interp::Interp, a: Args) -> Result<Obj> {
    let data = to_value(&a.req(Some(0), "data", "detrend")?)?;
    if a.opt(Some(4), "overwrite_data").is_some() {
        bail!(
            NotImplementedError,
            "overwrite_data argument not implemented."
        );
    }
    let linear = match a.opt(Some(2), "type") {
        None => true,
        Some(Obj::Str(s)) if &*s == "linear" => true,
        Some(Obj::Str(s)) if &*s == "constant" => false,
        Some(_) => bail!(ValueError, "Trend type must be 'linear' or 'constant'."),
    };
    let data = super::scipy::inexact(vec![data])?.remove(0);
    let axis = a
        .opt(Some(1), "axis")
        .map(|o| to_int(&o))
        .transpose()?
        .unwrap_or(-1);
    let axis = ops::norm_axis(axis, data.ndim())?;
    if !linear {
        let mean = ops::mean(&data, Some(&[axis as i64]), true)?;
        return Ok(Obj::Array(ops::sub(&data, &mean)?));
    }
    let n = data.shape()[axis] as i64;
    let mut bp = vec![0, n];
    match a.opt(Some(3), "bp") {
        None => {}
        Some(o @ (Obj::Tuple(_) | Obj::List(_) | Obj::Array(_))) => {
            for item in iterate(&o)? {
                bp.push(to_int(&item)?);
            }
        }
        Some(o) => bp.push(to_int(&o)?),
    }
    bp.sort_unstable();
    bp.dedup();
    if bp[0] < 0 || bp[bp.len() - 1] > n {
        bail!(
            ValueError,
            "Breakpoints must be non-negative and less than length of data along given axis."
        );
    }
    let moved = ops::moveaxis(&data, axis, 0)?;
    let shape = moved.shape();
    let rest = shape[1..].iter().product();
    let flat = ops::reshape(&moved, &[n as usize, rest])?;
    let mut pieces = vec![];
    for w in bp.windows(2) {
        let (lo, hi) = (w[0] as usize, w[1] as usize);
        let piece = ops::slice(&flat, &[lo, 0], &[hi, rest], &[1, 1])?;
        pieces.push(remove_line(&piece)?);
    }
    let out = ops::reshape(&ops::concatenate(&pieces, 0)?, &shape)?;
    Ok(Obj::Array(ops::moveaxis(&out, 0, axis)?))
}

/// A piece less its least-squares fit on `[1, t]`, `t = (1..=m) / m`.
fn remove_line(piece: &Value) -> Result<Value> {
    let m = piece.shape()[0];
    let d = piece.dtype();
    let mut design = Vec::with_capacity(2 * m);
    for i in 1..=m {
        let t = (i as f32) / (m as f32);
        design.extend([1.0, f64::from(t)]);
    }
    let design = Value::Concrete(crate::python::array::from_f64(&[m, 2], &design, d)?);
    let [coef, ..] = super::linalg_lstsq::lstsq_values(&design, piece, None)?;
    ops::sub(piece, &ops::matmul(&design, &coef)?)
}
