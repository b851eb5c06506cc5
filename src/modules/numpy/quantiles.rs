//! `quantile`, `percentile`, `median` and their NaN-ignoring forms
//! (`nanquantile`, `nanpercentile`, `nanmedian`), as JAX computes them:
//! the data sorted along the reduced axis, the two neighbouring order
//! statistics of each `q * (n - 1)` gathered, then combined by `method`.
//! Without the `nan` prefix a NaN anywhere along the axis makes the result
//! NaN; with it, NaNs sort last and only the numbers count.

use crate::array::{DType, ReduceOp};
use crate::bail;
use crate::error::Result;
use crate::ops as jops;
use crate::python::array::to_value;
use crate::python::value::{Args, Obj};
use crate::trace::Value;

use super::super::Builder;
use super::arr;
use super::compose::{flag, isnan, like, not, reduce, to_inexact, where_v};

/// Adds the quantile functions to `b`.
pub(super) fn register(b: &mut Builder) {
    for (name, nan) in [("quantile", false), ("nanquantile", true)] {
        b.func(name, move |_, a| quantile_fn(&a, name, nan, 1.0));
    }
    for (name, nan) in [("percentile", false), ("nanpercentile", true)] {
        b.func(name, move |_, a| quantile_fn(&a, name, nan, 100.0));
    }
    for (name, nan) in [("median", false), ("nanmedian", true)] {
        b.func(name, move |_, a| median_fn(&a, name, nan));
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Method {
    Linear,
    Lower,
    Higher,
    Midpoint,
    Nearest,
}

fn method_arg(a: &Args) -> Result<Method> {
    let m = match a.opt(Some(5), "method") {
        None => return Ok(Method::Linear),
        Some(Obj::Str(s)) => s,
        Some(_) => bail!(TypeError, "method must be a string"),
    };
    Ok(match &*m {
        "linear" => Method::Linear,
        "lower" => Method::Lower,
        "higher" => Method::Higher,
        "midpoint" => Method::Midpoint,
        "nearest" => Method::Nearest,
        "inverted_cdf" => bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.numpy.quantile with method='inverted_cdf'"
        ),
        _ => bail!(
            ValueError,
            "method can only be 'linear', 'lower', 'higher', 'midpoint', 'nearest' or \
             'inverted_cdf'"
        ),
    })
}

/// The reduced axes: None (all), one int, or a tuple.
fn axis_arg(a: &Args, index: usize) -> Result<Option<Vec<i64>>> {
    super::axes_arg(a, Some(index))
}

fn check_unsupported(a: &Args, name: &str) -> Result<()> {
    let overwrite = flag(a, Some(4), "overwrite_input", false)?;
    if overwrite || a.opt(Some(3), "out").is_some() {
        bail!(
            ValueError,
            "jax.numpy.{name} does not support overwrite_input=True or out != None"
        );
    }
    if a.opt(None, "weights").is_some() {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.numpy.{name} with weights="
        );
    }
    Ok(())
}

/// `quantile(a, q, axis=None, out=None, overwrite_input=False,
/// method='linear', keepdims=False)`; `percentile` divides `q` by 100.
fn quantile_fn(a: &Args, name: &str, nan: bool, scale: f64) -> Result<Obj> {
    let x = arr(a, 0, "a", name)?;
    let q = to_value(&a.req(Some(1), "q", name)?)?;
    check_unsupported(a, name)?;
    let axes = axis_arg(a, 2)?;
    let method = method_arg(a)?;
    let keepdims = flag(a, Some(6), "keepdims", false)?;
    let jit_name = name.to_string();
    let out = jops::jitted1(&jit_name, &[x, q], |v| {
        let q = match scale == 1.0 {
            true => v[1].clone(),
            // JAX's percentile is compiled, and XLA divides by the constant
            // 100 as a multiplication by its float32 reciprocal.
            false => {
                let q = to_inexact(&v[1])?;
                jops::mul(&q, &like(&q, f64::from(1.0 / scale as f32)))?
            }
        };
        quantile(&v[0], &q, axes.as_deref(), method, keepdims, nan)
    })?;
    Ok(Obj::Array(out))
}

/// `median(a, axis=None, out=None, overwrite_input=False, keepdims=False)`:
/// the 0.5 quantile by `'midpoint'`.
fn median_fn(a: &Args, name: &str, nan: bool) -> Result<Obj> {
    let x = arr(a, 0, "a", name)?;
    let overwrite = flag(a, Some(3), "overwrite_input", false)?;
    if overwrite || a.opt(Some(2), "out").is_some() {
        bail!(
            ValueError,
            "jax.numpy.{name} does not support overwrite_input=True or out != None"
        );
    }
    let axes = axis_arg(a, 1)?;
    let keepdims = flag(a, Some(4), "keepdims", false)?;
    let out = jops::jitted1(name, &[x], |v| {
        let half = Value::Concrete(crate::array::Array::scalar_f32(0.5).with_weak(true));
        quantile(
            &v[0],
            &half,
            axes.as_deref(),
            Method::Midpoint,
            keepdims,
            nan,
        )
    })?;
    Ok(Obj::Array(out))
}

/// JAX's `_quantile` for a 0-d or 1-d `q`.
fn quantile(
    x: &Value,
    q: &Value,
    axes: Option<&[i64]>,
    method: Method,
    keepdims: bool,
    nan: bool,
) -> Result<Value> {
    if x.dtype() == DType::C64 {
        bail!(
            ValueError,
            "quantile does not support complex input, as the operation is poorly defined."
        );
    }
    if q.ndim() > 1 {
        bail!(
            ValueError,
            "q must be have rank <= 1, got shape {}",
            crate::array::shape_tuple(&q.shape())
        );
    }
    let x = to_inexact(x)?;
    let shape = x.shape();
    let (x, axis, keep_shape) = gather_axes(&x, axes)?;
    let q_items: Vec<Value> = match q.ndim() {
        0 => vec![q.clone()],
        _ => (0..q.shape()[0])
            .map(|i| jops::reshape(&jops::slice(q, &[i], &[i + 1], &[1])?, &[]))
            .collect::<Result<_>>()?,
    };
    let sorted = prepare(&x, axis, nan)?;
    let mut outs = vec![];
    for qi in &q_items {
        let r = one_quantile(
            &sorted,
            qi,
            axis,
            method,
            keepdims && axes.is_some() && keep_shape.is_none(),
            nan,
        )?;
        outs.push(r);
    }
    let mut out = match q.ndim() {
        0 => outs.remove(0),
        _ => jops::stack(&outs, 0)?,
    };
    if keepdims {
        let mut target: Vec<usize> = match (&keep_shape, axes) {
            (Some(k), _) => k.clone(),
            (None, None) => vec![1; shape.len()],
            (None, Some(_)) => return Ok(out),
        };
        if q.ndim() == 1 {
            target.insert(0, q.shape()[0]);
        }
        out = jops::reshape(&out, &target)?;
    }
    Ok(out)
}

/// The array with the reduced axes as one (the last, or the only), that
/// axis, and the kept shape `keepdims` restores when several axes (or all)
/// were reduced.
fn gather_axes(x: &Value, axes: Option<&[i64]>) -> Result<(Value, usize, Option<Vec<usize>>)> {
    let shape = x.shape();
    let Some(axes) = axes else {
        let n = shape.iter().product();
        return Ok((jops::reshape(x, &[n])?, 0, None));
    };
    if axes.len() == 1 {
        return Ok((x.clone(), jops::norm_axis(axes[0], shape.len())?, None));
    }
    let mut red: Vec<usize> = axes
        .iter()
        .map(|&d| jops::norm_axis(d, shape.len()))
        .collect::<Result<_>>()?;
    red.sort_unstable();
    if red.windows(2).any(|w| w[0] == w[1]) {
        bail!(ValueError, "repeated axis");
    }
    let kept: Vec<usize> = (0..shape.len()).filter(|d| !red.contains(d)).collect();
    let mut perm = kept.clone();
    perm.extend(&red);
    let t = jops::transpose(x, &perm)?;
    let mut to: Vec<usize> = kept.iter().map(|&d| shape[d]).collect();
    to.push(red.iter().map(|&d| shape[d]).product());
    let keep_shape = (0..shape.len())
        .map(|d| if red.contains(&d) { 1 } else { shape[d] })
        .collect();
    let axis = to.len() - 1;
    Ok((jops::reshape(&t, &to)?, axis, Some(keep_shape)))
}

/// The data sorted along `axis`: NaN everywhere along a line holding one
/// (plain quantiles), or NaNs made positive so they sort last (`nan`).
fn prepare(x: &Value, axis: usize, nan: bool) -> Result<Value> {
    let nan_v = like(x, f64::NAN);
    let x = match nan {
        true => where_v(&isnan(x)?, &nan_v, x)?,
        false => {
            let any = reduce(ReduceOp::Any, &isnan(x)?, Some(&[axis as i64]), true)?;
            where_v(&any, &nan_v, x)?
        }
    };
    // Sorting the indices alongside and gathering by them gives the sorted
    // data with a derivative (a gather's) without one for `sort` itself.
    let order = super::compose::iota(&x.shape(), axis)?;
    let sorted = crate::trace::bind(
        crate::primitives::Prim::Sort { dimension: axis },
        &[jops::stop_gradient(&x)?, order],
    )?;
    super::index_builders::along(&x, &sorted[1], axis)
}

/// One quantile `q` (0-d) of the sorted data along `axis`.
fn one_quantile(
    sorted: &Value,
    q: &Value,
    axis: usize,
    method: Method,
    keepdims: bool,
    nan: bool,
) -> Result<Value> {
    let n = sorted.shape()[axis];
    let q = to_inexact(q)?;
    let (low_v, high_v, high_w) = if nan {
        let count = reduce(
            ReduceOp::Sum,
            &not(&isnan(sorted)?)?,
            Some(&[axis as i64]),
            keepdims,
        )?;
        let count = jops::convert(&count, q.dtype())?;
        let last = jops::sub(&count, &like(&count, 1.0))?;
        let pos = jops::mul(&q, &last)?;
        let (low, high, hw) = bounds(&pos)?;
        let clip = |v: &Value| jops::maximum(&like(v, 0.0), &jops::minimum(v, &last)?);
        let (low, high) = (clip(&low)?, clip(&high)?);
        let pick = |i: &Value| -> Result<Value> {
            let i = jops::convert(i, DType::I32)?;
            let i = if keepdims {
                i
            } else {
                jops::expand_dims(&i, axis as i64)?
            };
            let got = super::index_builders::along(sorted, &i, axis)?;
            if keepdims {
                Ok(got)
            } else {
                jops::squeeze(&got, Some(&[axis as i64]))
            }
        };
        (pick(&low)?, pick(&high)?, hw)
    } else {
        let last = like(&q, n as f64 - 1.0);
        let pos = jops::mul(&q, &last)?;
        let (low, high, hw) = bounds(&pos)?;
        let zero = like(&q, 0.0);
        let pick = |i: &Value| -> Result<Value> {
            let i = jops::convert(&jops::clamp(&zero, i, &last)?, DType::I32)?;
            let got = jops::take(sorted, &i, axis as i64)?;
            match keepdims {
                true => jops::expand_dims(&got, axis as i64),
                false => Ok(got),
            }
        };
        (pick(&low)?, pick(&high)?, hw)
    };
    combine(&low_v, &high_v, &high_w, method)
}

/// `floor(pos)`, `ceil(pos)` and the weight of the upper neighbour.
fn bounds(pos: &Value) -> Result<(Value, Value, Value)> {
    let low = jops::unary(crate::array::UnaryOp::Floor, pos)?;
    let high = jops::unary(crate::array::UnaryOp::Ceil, pos)?;
    let hw = jops::sub(pos, &low)?;
    Ok((low, high, hw))
}

fn combine(low: &Value, high: &Value, high_w: &Value, method: Method) -> Result<Value> {
    match method {
        Method::Linear => {
            let low_w = jops::sub(&like(high_w, 1.0), high_w)?;
            let low = jops::convert(low, high_w.dtype())?;
            let high = jops::convert(high, high_w.dtype())?;
            jops::add(&jops::mul(&low, &low_w)?, &jops::mul(&high, high_w)?)
        }
        Method::Lower => Ok(low.clone()),
        Method::Higher => Ok(high.clone()),
        Method::Nearest => {
            let pred = jops::less_equal(high_w, &like(high_w, 0.5))?;
            let pred = jops::broadcast_to(&pred, &low.shape())?;
            jops::select(&pred, low, high)
        }
        Method::Midpoint => jops::mul(&jops::add(low, high)?, &like(low, 0.5)),
    }
}
