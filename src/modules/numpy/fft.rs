//! `jax.numpy.fft`: the transforms over chosen axes with `n=`/`s=`,
//! `axis=`/`axes=` and `norm=`, written as JAX writes them on `lax.fft`
//! (the axes moved last, the operand cropped or zero-padded to the
//! lengths, the normalisation a multiplication afterwards); the Hermitian
//! pair `hfft`/`ihfft`; and `fftfreq`, `rfftfreq`, `fftshift`, `ifftshift`.
//! Also `jax.lax.fft` and `jax.lax.FftType`.

use crate::array::fft::FftType;
use crate::array::{DType, UnaryOp};
use crate::bail;
use crate::error::Result;
use crate::ops as jops;
use crate::primitives::fft::lax_fft;
use crate::python::array::to_value;
use crate::python::builtins::to_int;
use crate::python::ops::iterate;
use crate::python::value::{Args, Obj};
use crate::trace::Value;

use super::super::Builder;

/// The `jax.numpy.fft` module.
pub fn module() -> Obj {
    let mut b = Builder::new("jax.numpy.fft");
    let one_d = [
        ("fft", FftType::Fft),
        ("ifft", FftType::Ifft),
        ("rfft", FftType::Rfft),
        ("irfft", FftType::Irfft),
    ];
    for (name, typ) in one_d {
        b.func(name, move |_, a| {
            let x = operand(&a, name)?;
            Ok(Obj::Array(core_1d(name, typ, &x, &a)?))
        });
        let n2 = format!("{name}2");
        let nn = format!("{name}n");
        b.func(&n2.clone(), move |_, a| {
            let x = operand(&a, &n2)?;
            let axes = match a.opt(Some(2), "axes") {
                None => vec![-2, -1],
                Some(o) => {
                    let axes = ints(&o)?;
                    if axes.len() != 2 {
                        bail!(
                            ValueError,
                            "jax.numpy.fft.{n2} only supports 2 axes. Got axes = {}.",
                            py_seq(&o, &axes)
                        );
                    }
                    axes
                }
            };
            let s = a.opt(Some(1), "s").map(|o| ints(&o)).transpose()?;
            Ok(Obj::Array(core(
                &n2,
                typ,
                &x,
                s,
                Some(axes),
                &norm(&a, 3)?,
            )?))
        });
        b.func(&nn.clone(), move |_, a| {
            let x = operand(&a, &nn)?;
            let s = opt_ints(&a, 1, "s")?;
            let axes = opt_ints(&a, 2, "axes")?;
            Ok(Obj::Array(core(&nn, typ, &x, s, axes, &norm(&a, 3)?)?))
        });
    }
    b.func("hfft", |_, a| hfft(&a));
    b.func("ihfft", |_, a| ihfft(&a));
    b.func("fftfreq", |_, a| freq(&a, false));
    b.func("rfftfreq", |_, a| freq(&a, true));
    b.func("fftshift", |_, a| shift(&a, false));
    b.func("ifftshift", |_, a| shift(&a, true));
    b.build()
}

/// Adds `fft` and `FftType` to `jax.lax`.
pub fn register_lax(b: &mut Builder) {
    b.func("fft", |_, a| {
        let x = to_value(&a.req(Some(0), "x", "fft")?)?;
        let typ = fft_type(&a.req(Some(1), "fft_type", "fft")?)?;
        let lengths = ints(&a.req(Some(2), "fft_lengths", "fft")?)?;
        let lengths: Vec<usize> = lengths.iter().map(|&l| l.max(0) as usize).collect();
        Ok(Obj::Array(lax_fft(&x, typ, &lengths)?))
    });
    let mut t = Builder::new("jax.lax.FftType");
    for (name, v) in [("FFT", 0), ("IFFT", 1), ("RFFT", 2), ("IRFFT", 3)] {
        t.attr(name, Obj::Int(v));
    }
    b.attr("FftType", t.build());
}

/// `lax.fft`'s type given as a string or as `FftType`'s value.
fn fft_type(o: &Obj) -> Result<FftType> {
    let by_value = |v: i64| match v {
        0 => Some(FftType::Fft),
        1 => Some(FftType::Ifft),
        2 => Some(FftType::Rfft),
        3 => Some(FftType::Irfft),
        _ => None,
    };
    match o {
        Obj::Str(s) => match s.as_ref() {
            "fft" | "FFT" => Ok(FftType::Fft),
            "ifft" | "IFFT" => Ok(FftType::Ifft),
            "rfft" | "RFFT" => Ok(FftType::Rfft),
            "irfft" | "IRFFT" => Ok(FftType::Irfft),
            other => bail!(ValueError, "Unknown FFT type '{other}'"),
        },
        Obj::Int(v) => {
            by_value(*v).ok_or_else(|| crate::err!(TypeError, "Unknown FFT type value '{v}'"))
        }
        _ => bail!(TypeError, "Unknown FFT type value"),
    }
}

fn operand(a: &Args, func: &str) -> Result<Value> {
    to_value(&a.req(Some(0), "a", func)?)
}

pub(crate) fn ints(o: &Obj) -> Result<Vec<i64>> {
    match o {
        Obj::Tuple(_) | Obj::List(_) | Obj::Range(..) => iterate(o)?.iter().map(to_int).collect(),
        other => Ok(vec![to_int(other)?]),
    }
}

fn opt_ints(a: &Args, i: usize, name: &str) -> Result<Option<Vec<i64>>> {
    match a.opt(Some(i), name) {
        None | Some(Obj::None) => Ok(None),
        Some(o) => Ok(Some(ints(&o)?)),
    }
}

/// A sequence as Python prints it, a list or a tuple as given.
fn py_seq(o: &Obj, v: &[i64]) -> String {
    let items: Vec<String> = v.iter().map(|x| x.to_string()).collect();
    match o {
        Obj::List(_) => format!("[{}]", items.join(", ")),
        _ if v.len() == 1 => format!("({},)", items[0]),
        _ => format!("({})", items.join(", ")),
    }
}

fn norm(a: &Args, i: usize) -> Result<Option<String>> {
    match a.opt(Some(i), "norm") {
        None | Some(Obj::None) => Ok(None),
        Some(Obj::Str(s)) => Ok(Some(s.to_string())),
        Some(_) => bail!(
            ValueError,
            "Invalid norm value; should be \"backward\",\"ortho\" or \"forward\"."
        ),
    }
}

/// The one-axis transforms: `n=` and `axis=` (one int, not a sequence).
fn core_1d(func: &str, typ: FftType, x: &Value, a: &Args) -> Result<Value> {
    let axis = match a.opt(Some(2), "axis") {
        None => -1,
        Some(o @ (Obj::Tuple(_) | Obj::List(_))) => {
            let v = ints(&o)?;
            bail!(
                ValueError,
                "jax.numpy.fft.{func} does not support multiple axes. Please use jax.numpy.fft.{func}n. Got axis = {}.",
                py_seq(&o, &v)
            )
        }
        Some(o) => to_int(&o)?,
    };
    let n = match a.opt(Some(1), "n") {
        None | Some(Obj::None) => None,
        Some(o) => Some(vec![to_int(&o)?]),
    };
    core(func, typ, x, n, Some(vec![axis]), &norm(a, 3)?)
}

/// JAX's `_fft_core`: the transform of `x` over `axes` with lengths `s`.
pub(crate) fn core(
    func: &str,
    typ: FftType,
    x: &Value,
    s: Option<Vec<i64>>,
    axes: Option<Vec<i64>>,
    norm: &Option<String>,
) -> Result<Value> {
    if let Some(s) = &s {
        if s.iter().any(|&d| d <= 0) {
            bail!(ValueError, "Shape should be positive.");
        }
        if axes.as_ref().is_some_and(|a| a.len() != s.len()) {
            bail!(ValueError, "Shape and axes have different lengths.");
        }
    }
    let nd = x.ndim();
    let given = axes.is_some();
    let raw: Vec<i64> = match (&axes, &s) {
        (Some(a), _) => a.clone(),
        (None, None) => (0..nd as i64).collect(),
        (None, Some(s)) => (nd as i64 - s.len() as i64..nd as i64).collect(),
    };
    let mut seen = raw.clone();
    seen.sort_unstable();
    if seen.windows(2).any(|w| w[0] == w[1]) {
        bail!(
            ValueError,
            "jax.numpy.fft.{func} does not support repeated axes. Got axes {}.",
            py_seq(&Obj::List(Default::default()), &raw)
        );
    }
    let k = raw.len();
    if k > nd {
        bail!(
            ValueError,
            "FFT input shape {} must have at least as many input dimensions as fft_lengths.",
            crate::array::shape_tuple(&x.shape())
        );
    }
    let orig: Vec<usize> = raw
        .iter()
        .map(|&a| jops::norm_axis(a, nd))
        .collect::<Result<_>>()?;
    let last: Vec<usize> = (nd - k..nd).collect();
    let mut arr = if given {
        move_axes(x, &orig, &last)?
    } else {
        x.clone()
    };
    let lengths: Vec<usize> = match &s {
        Some(s) => {
            arr = fit(&arr, typ, &last, s)?;
            s.iter().map(|&d| d as usize).collect()
        }
        None if typ == FftType::Irfft && k > 0 => {
            let sh = arr.shape();
            let mut l: Vec<usize> = last[..k - 1].iter().map(|&a| sh[a]).collect();
            l.push(2 * sh[last[k - 1]].saturating_sub(1));
            l
        }
        None => last.iter().map(|&a| arr.shape()[a]).collect(),
    };
    let mut out = core_nd(&arr, typ, &lengths)?;
    if let Some(norm) = norm {
        out = jops::mul(&out, &norm_factor(&lengths, out.dtype(), func, norm)?)?;
    }
    if given {
        out = move_axes(&out, &last, &orig)?;
    }
    Ok(out)
}

/// `jnp.moveaxis(x, src, dst)` for as many sources as destinations.
fn move_axes(x: &Value, src: &[usize], dst: &[usize]) -> Result<Value> {
    let nd = x.ndim();
    let mut perm: Vec<Option<usize>> = vec![None; nd];
    for (&s, &d) in src.iter().zip(dst) {
        perm[d] = Some(s);
    }
    let mut rest = (0..nd).filter(|a| !src.contains(a));
    let perm: Vec<usize> = perm
        .into_iter()
        .map(|p| p.or_else(|| rest.next()).unwrap_or(0))
        .collect();
    if perm.iter().enumerate().all(|(i, &p)| i == p) {
        return Ok(x.clone());
    }
    jops::transpose(x, &perm)
}

/// `x` cropped, then zero-padded, to the lengths `s` along `axes` (the
/// inverse real transform reads `s[-1] // 2 + 1` values of its last one).
fn fit(x: &Value, typ: FftType, axes: &[usize], s: &[i64]) -> Result<Value> {
    let mut want = x.shape();
    for (&a, &d) in axes.iter().zip(s) {
        want[a] = d as usize;
    }
    if typ == FftType::Irfft {
        let l = want.len() - 1;
        want[l] = want[l] / 2 + 1;
    }
    let have = x.shape();
    let mut y = x.clone();
    if have.iter().zip(&want).any(|(h, w)| w < h) {
        let limits: Vec<usize> = have.iter().zip(&want).map(|(&h, &w)| h.min(w)).collect();
        y = jops::slice(&y, &vec![0; have.len()], &limits, &vec![1; have.len()])?;
    }
    let cur = y.shape();
    if cur.iter().zip(&want).any(|(c, w)| w > c) {
        let hi: Vec<usize> = cur.iter().zip(&want).map(|(&c, &w)| w - c).collect();
        y = jops::pad(&y, &vec![0; cur.len()], &hi)?;
    }
    Ok(y)
}

/// JAX's `_fft_core_nd`: one `lax.fft` for up to three axes, more by
/// transforming the last two or three and recursing on the others.
fn core_nd(x: &Value, typ: FftType, s: &[usize]) -> Result<Value> {
    if s.len() <= 3 {
        return lax_fft(x, typ, s);
    }
    let n = if s.len() == 4 { 2 } else { 3 };
    let nd = x.ndim();
    let src: Vec<usize> = (nd - s.len()..nd - n).collect();
    let dst: Vec<usize> = (nd - s.len() + n..nd).collect();
    let head = &s[..s.len() - n];
    let tail = &s[s.len() - n..];
    if matches!(typ, FftType::Rfft | FftType::Fft) {
        let y = lax_fft(x, typ, tail)?;
        let y = move_axes(&y, &src, &dst)?;
        let y = core_nd(&y, FftType::Fft, head)?;
        move_axes(&y, &dst, &src)
    } else {
        let y = move_axes(x, &src, &dst)?;
        let y = core_nd(&y, FftType::Ifft, head)?;
        let y = move_axes(&y, &dst, &src)?;
        lax_fft(&y, typ, tail)
    }
}

/// The factor `norm=` multiplies by, computed in the result's dtype as
/// JAX computes it (a product of the lengths, its square root, or their
/// reciprocals).
fn norm_factor(s: &[usize], dtype: DType, func: &str, norm: &str) -> Result<Value> {
    if norm == "backward" {
        return Ok(jops::scalar(1.0, DType::I32));
    }
    let lens = crate::array::Array::from_f32(&[s.len()], s.iter().map(|&d| d as f32).collect())?;
    let lens = jops::astype(&Value::Concrete(lens), dtype)?;
    let prod = jops::reduce(crate::array::ReduceOp::Prod, &lens, None, false)?;
    let inverse = func.starts_with('i');
    let one = || jops::scalar(1.0, dtype);
    match norm {
        "ortho" => {
            let r = jops::unary(UnaryOp::Sqrt, &prod)?;
            if inverse {
                Ok(r)
            } else {
                jops::div(&one(), &r)
            }
        }
        "forward" if inverse => Ok(prod),
        "forward" => jops::div(&one(), &prod),
        other => bail!(
            ValueError,
            "Invalid norm value {other}; should be \"backward\",\"ortho\" or \"forward\"."
        ),
    }
}

fn axis_1d(a: &Args, func: &str) -> Result<i64> {
    match a.opt(Some(2), "axis") {
        None => Ok(-1),
        Some(o @ (Obj::Tuple(_) | Obj::List(_))) => {
            let v = ints(&o)?;
            bail!(
                ValueError,
                "jax.numpy.fft.{func} does not support multiple axes. Please use jax.numpy.fft.{func}n. Got axis = {}.",
                py_seq(&o, &v)
            )
        }
        Some(o) => to_int(&o),
    }
}

/// `hfft`: the inverse real transform of the conjugate, times its length.
fn hfft(a: &Args) -> Result<Obj> {
    let x = operand(a, "hfft")?;
    let c = if x.dtype() == DType::C64 {
        jops::unary(UnaryOp::Conj, &x)?
    } else {
        x
    };
    let axis = axis_1d(a, "hfft")?;
    let ax = jops::norm_axis(axis, c.ndim())?;
    let nn = match a.opt(Some(1), "n") {
        None | Some(Obj::None) => (c.shape()[ax] as i64 - 1) * 2,
        Some(o) => to_int(&o)?,
    };
    let y = core_1d("hfft", FftType::Irfft, &c, a)?;
    Ok(Obj::Array(jops::mul_scalar(&y, nn as f64)?))
}

/// `ihfft`: the conjugate of the real transform, divided by its length.
fn ihfft(a: &Args) -> Result<Obj> {
    let x = operand(a, "ihfft")?;
    let axis = axis_1d(a, "ihfft")?;
    let ax = jops::norm_axis(axis, x.ndim())?;
    let nn = match a.opt(Some(1), "n") {
        None | Some(Obj::None) => x.shape()[ax] as i64,
        Some(o) => to_int(&o)?,
    };
    let y = core_1d("ihfft", FftType::Rfft, &x, a)?;
    let y = jops::unary(UnaryOp::Conj, &y)?;
    Ok(Obj::Array(jops::mul_scalar(&y, 1.0 / nn as f64)?))
}

/// `fftfreq` / `rfftfreq`: the frequencies `k / (d*n)` in float32.
fn freq(a: &Args, real: bool) -> Result<Obj> {
    let func = if real { "rfftfreq" } else { "fftfreq" };
    let n_obj = a.req(Some(0), "n", func)?;
    if let Obj::Tuple(_) | Obj::List(_) = n_obj {
        bail!(
            ValueError,
            "The n argument of jax.numpy.fft.{func} only takes an int. Got n = {}.",
            py_seq(&Obj::List(Default::default()), &ints(&n_obj)?)
        );
    }
    let n = to_int(&n_obj)?;
    let d = match a.opt(Some(1), "d") {
        None => 1.0,
        Some(o @ (Obj::Tuple(_) | Obj::List(_))) => {
            let v: Vec<String> = iterate(&o)?
                .iter()
                .map(|x| x.as_number().map_or("?".into(), |f| f.to_string()))
                .collect();
            bail!(
                ValueError,
                "The d argument of jax.numpy.fft.{func} only takes a single value. Got d = [{}].",
                v.join(", ")
            )
        }
        Some(o) => o.as_number().ok_or_else(|| {
            crate::err!(
                NotImplementedError,
                "not supported by shardlab yet: an array d in jax.numpy.fft.{func}"
            )
        })?,
    };
    if let Some(dt) = a.opt(None, "dtype").filter(|o| !matches!(o, Obj::None)) {
        if super::dtype_of(&dt)? != DType::F32 {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: jax.numpy.fft.{func} with a dtype other than float32"
            );
        }
    }
    let count = if real { n / 2 + 1 } else { n.max(0) };
    let k: Vec<f32> = (0..count.max(0))
        .map(|i| {
            if real {
                i as f32
            } else {
                // ((i + n//2) % n - n//2) in float32, as JAX computes it.
                let h = (n / 2) as f32;
                let m = (i as f32 + h) % n as f32;
                m - h
            }
        })
        .collect();
    let scale = (d * n as f64) as f32;
    let k = crate::array::Array::from_f32(&[k.len()], k)?;
    let out = jops::div(&Value::Concrete(k), &jops::scalar(scale as f64, DType::F32))?;
    Ok(Obj::Array(out))
}

/// `fftshift` / `ifftshift`: a roll by half of each axis's length.
fn shift(a: &Args, inverse: bool) -> Result<Obj> {
    let func = if inverse { "ifftshift" } else { "fftshift" };
    let x = to_value(&a.req(Some(0), "x", func)?)?;
    let axes: Vec<i64> = match a.opt(Some(1), "axes") {
        None | Some(Obj::None) => (0..x.ndim() as i64).collect(),
        Some(o) => ints(&o)?,
    };
    let shape = x.shape();
    let shifts: Vec<i64> = axes
        .iter()
        .map(|&ax| {
            let d = shape[jops::norm_axis(ax, x.ndim())?] as i64 / 2;
            Ok(if inverse { -d } else { d })
        })
        .collect::<Result<_>>()?;
    if axes.is_empty() {
        return Ok(Obj::Array(x));
    }
    Ok(Obj::Array(super::shape::roll_axes(&x, &axes, &shifts)?))
}
