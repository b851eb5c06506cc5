//! The NaN-ignoring reductions (`nansum`, `nanprod`, `nanmax`, `nanmin`,
//! `nanmean`, `nanvar`, `nanstd`, `nanargmax`, `nanargmin`, `nancumsum`,
//! `nancumprod`) and `count_nonzero`, `ptp` and `average`.
//!
//! Each is JAX's composition: NaNs are replaced by the reduction's identity
//! with `where` before an ordinary reduction, inside one `jit` equation
//! named as JAX names the function. Integer and bool arrays hold no NaN
//! and reduce directly.

use crate::array::{DType, ReduceOp};
use crate::error::Result;
use crate::ops as jops;
use crate::primitives::CumOp;
use crate::python::value::{Args, Obj};
use crate::trace::Value;

use super::super::Builder;
use super::compose::{
    inexact, isnan, like, not, opt_int, reduce, refuse_args, to_inexact, where_v,
};
use super::{arr, axes_arg, dtype_arg};

/// Adds the NaN-ignoring reductions and their companions to `b`.
pub(super) fn register(b: &mut Builder) {
    for (name, op, init) in [
        ("nansum", ReduceOp::Sum, 0.0),
        ("nanprod", ReduceOp::Prod, 1.0),
        ("nanmax", ReduceOp::Max, f64::NEG_INFINITY),
        ("nanmin", ReduceOp::Min, f64::INFINITY),
    ] {
        b.func(name, move |_, a| nan_reduction(&a, name, op, init));
    }
    b.func("nanmean", |_, a| nanmean_fn(&a));
    b.func("nanvar", |_, a| nanvar_fn(&a, false));
    b.func("nanstd", |_, a| nanvar_fn(&a, true));
    b.func("nanargmax", |_, a| nanarg(&a, false));
    b.func("nanargmin", |_, a| nanarg(&a, true));
    b.func("nancumsum", |_, a| {
        nancumulative(&a, CumOp::Sum, "nancumsum")
    });
    b.func("nancumprod", |_, a| {
        nancumulative(&a, CumOp::Prod, "nancumprod")
    });
    b.func("count_nonzero", |_, a| count_nonzero(&a));
    b.func("ptp", |_, a| ptp(&a));
    b.func("average", |_, a| average(&a));
}

fn keep(a: &Args, index: usize) -> Result<bool> {
    super::compose::flag(a, Some(index), "keepdims", false)
}

/// The argument positions of `(a, axis, dtype, out, keepdims)` or, without
/// a dtype, `(a, axis, out, keepdims)`.
fn keep_index(with_dtype: bool) -> usize {
    if with_dtype {
        4
    } else {
        3
    }
}

fn nan_reduction(a: &Args, name: &'static str, op: ReduceOp, init: f64) -> Result<Obj> {
    let x = arr(a, 0, "a", name)?;
    let with_dtype = matches!(op, ReduceOp::Sum | ReduceOp::Prod);
    refuse_args(a, name, &[("out", None)])?;
    let axes = axes_arg(a, Some(1))?;
    let keepdims = keep(a, keep_index(with_dtype))?;
    let x = match (with_dtype, dtype_arg(a, Some(2))?) {
        (true, Some(d)) => jops::convert(&x, d)?,
        _ => x,
    };
    let masks = Masks::from_args(a)?;
    let nan_if_all = matches!(op, ReduceOp::Max | ReduceOp::Min) && masks.initial.is_none();
    Ok(Obj::Array(nan_reduce(
        name,
        &x,
        (op, init),
        nan_if_all,
        axes.as_deref(),
        keepdims,
        &masks,
    )?))
}

/// The `where=` mask and `initial=` value of jnp's reductions.
#[derive(Default)]
pub(super) struct Masks {
    pub where_: Option<Value>,
    pub initial: Option<Value>,
}

impl Masks {
    /// The keywords `where` and `initial` of `a`.
    pub(super) fn from_args(a: &Args) -> Result<Masks> {
        let get = |name: &str| {
            a.opt(None, name)
                .map(|o| crate::python::array::to_value(&o))
                .transpose()
        };
        Ok(Masks {
            where_: get("where")?,
            initial: get("initial")?,
        })
    }
}

/// The identity of a reduction on `dtype` (what masked-out elements count as).
fn identity(op: ReduceOp, dtype: DType) -> f64 {
    match (op, dtype) {
        (ReduceOp::Sum | ReduceOp::Any, _) => 0.0,
        (ReduceOp::Prod | ReduceOp::All, _) => 1.0,
        (ReduceOp::Max, DType::I32) => i32::MIN as f64,
        (ReduceOp::Max, DType::U32 | DType::Bool) => 0.0,
        (ReduceOp::Max, _) => f64::NEG_INFINITY,
        (ReduceOp::Min, DType::I32) => i32::MAX as f64,
        (ReduceOp::Min, DType::U32) => u32::MAX as f64,
        (ReduceOp::Min, DType::Bool) => 1.0,
        (ReduceOp::Min, _) => f64::INFINITY,
    }
}

/// A reduction with jnp's `where=` (masked elements count as the
/// identity) and `initial=` (one more operand of the reduction).
pub(super) fn masked_reduce(
    op: ReduceOp,
    x: &Value,
    axes: Option<&[i64]>,
    keepdims: bool,
    masks: &Masks,
) -> Result<Value> {
    let x = match &masks.where_ {
        None => x.clone(),
        Some(w) => {
            if masks.initial.is_none() && matches!(op, ReduceOp::Max | ReduceOp::Min) {
                crate::bail!(
                    ValueError,
                    "reduction operation {} does not have an identity, so to use a where mask \
                     one has to specify 'initial'",
                    if op == ReduceOp::Max { "max" } else { "min" }
                );
            }
            let w = jops::convert(w, DType::Bool)?;
            where_v(&w, x, &like(x, identity(op, x.dtype())))?
        }
    };
    let r = reduce(op, &x, axes, keepdims)?;
    let Some(init) = &masks.initial else {
        return Ok(r);
    };
    let init = jops::convert_weak(init, r.dtype(), false)?;
    let bin = match op {
        ReduceOp::Sum => crate::array::BinaryOp::Add,
        ReduceOp::Prod => crate::array::BinaryOp::Mul,
        ReduceOp::Max => crate::array::BinaryOp::Max,
        ReduceOp::Min => crate::array::BinaryOp::Min,
        ReduceOp::Any => crate::array::BinaryOp::Or,
        ReduceOp::All => crate::array::BinaryOp::And,
    };
    jops::binary(bin, &init, &r)
}

/// JAX's `_nan_reduction`, staged as the jitted function `name`.
fn nan_reduce(
    name: &str,
    x: &Value,
    (op, init): (ReduceOp, f64),
    nan_if_all: bool,
    axes: Option<&[i64]>,
    keepdims: bool,
    masks: &Masks,
) -> Result<Value> {
    jops::jitted1(name, std::slice::from_ref(x), |v| {
        let x = &v[0];
        if !inexact(x.dtype()) {
            return masked_reduce(op, x, axes, keepdims, masks);
        }
        let filled = where_v(&isnan(x)?, &like(x, init), x)?;
        let out = masked_reduce(op, &filled, axes, keepdims, masks)?;
        if !nan_if_all {
            return Ok(out);
        }
        let all = reduce(ReduceOp::All, &isnan(x)?, axes, keepdims)?;
        where_v(&all, &like(x, f64::NAN), &out)
    })
}

/// `nansum` of a float array (the step `nanmean` and `nanvar` share).
fn nansum(x: &Value, axes: Option<&[i64]>, keepdims: bool, masks: &Masks) -> Result<Value> {
    nan_reduce(
        "nansum",
        x,
        (ReduceOp::Sum, 0.0),
        false,
        axes,
        keepdims,
        masks,
    )
}

/// The count of non-NaN elements, as float32 (`sum(~isnan(x), dtype=...)`).
fn count_numbers(x: &Value, axes: Option<&[i64]>, keepdims: bool, masks: &Masks) -> Result<Value> {
    let mask = jops::convert(&not(&isnan(x)?)?, DType::I32)?;
    let mask = jops::convert(&mask, DType::F32)?;
    masked_reduce(ReduceOp::Sum, &mask, axes, keepdims, masks)
}

fn nanmean_fn(a: &Args) -> Result<Obj> {
    let x = arr(a, 0, "a", "nanmean")?;
    refuse_args(a, "nanmean", &[("out", Some(3))])?;
    if dtype_arg(a, Some(2))?.is_some() {
        refuse_args(a, "nanmean", &[("dtype", Some(2))])?;
    }
    let axes = axes_arg(a, Some(1))?;
    let keepdims = keep(a, 4)?;
    let masks = Masks {
        where_: Masks::from_args(a)?.where_,
        initial: None,
    };
    if masks.where_.is_some() && !inexact(x.dtype()) {
        refuse_args(a, "nanmean", &[("where", None)])?;
    }
    Ok(Obj::Array(nanmean(&x, axes.as_deref(), keepdims, &masks)?))
}

fn nanmean(x: &Value, axes: Option<&[i64]>, keepdims: bool, masks: &Masks) -> Result<Value> {
    if !inexact(x.dtype()) {
        return jops::mean(x, axes, keepdims);
    }
    jops::jitted1("nanmean", std::slice::from_ref(x), |v| {
        let x = &v[0];
        let normalizer = count_numbers(x, axes, keepdims, masks)?;
        jops::div(&nansum(x, axes, keepdims, masks)?, &normalizer)
    })
}

/// `nanvar(a, axis, dtype, out, ddof, keepdims)` and `nanstd`.
fn nanvar_fn(a: &Args, sqrt: bool) -> Result<Obj> {
    let name = if sqrt { "nanstd" } else { "nanvar" };
    let x = arr(a, 0, "a", name)?;
    refuse_args(
        a,
        name,
        &[
            ("dtype", Some(2)),
            ("out", Some(3)),
            ("where", None),
            ("mean", None),
        ],
    )?;
    let axes = axes_arg(a, Some(1))?;
    let ddof = opt_int(a, Some(4), "ddof")?.unwrap_or(0);
    let keepdims = keep(a, 5)?;
    let axes = axes.as_deref();
    let out = jops::jitted1(name, &[x], |v| {
        let var = nanvar(&v[0], axes, ddof, keepdims)?;
        match sqrt {
            true => jops::sqrt(&var),
            false => Ok(var),
        }
    })?;
    Ok(Obj::Array(out))
}

/// JAX's `_nanvar`: the squared distances from the NaN-ignoring mean, NaN
/// where fewer than `ddof + 1` numbers remain.
fn nanvar(x: &Value, axes: Option<&[i64]>, ddof: i64, keepdims: bool) -> Result<Value> {
    if x.dtype() == DType::C64 {
        crate::bail!(
            NotImplementedError,
            "not supported by shardlab yet: complex64 in jax.numpy.nanvar"
        );
    }
    let stage = |v: &[Value]| -> Result<Value> {
        let x = to_inexact(&v[0])?;
        let x = jops::astype(&x, DType::F32)?;
        let mean = nanmean(&x, axes, true, &Masks::default())?;
        let nan = isnan(&x)?;
        let centered = where_v(&nan, &jops::scalar(0.0, DType::I32), &jops::sub(&x, &mean)?)?;
        let centered = jops::integer_pow(&centered, 2)?;
        let count = reduce(ReduceOp::Sum, &not(&nan)?, axes, keepdims)?;
        let normalizer = jops::sub(&count, &jops::scalar(ddof as f64, DType::I32))?;
        let empty = jops::less_equal(&normalizer, &like(&normalizer, 0.0))?;
        let result = reduce(ReduceOp::Sum, &centered, axes, keepdims)?;
        let result = where_v(&empty, &jops::scalar(f64::NAN, DType::F32), &result)?;
        let divisor = where_v(&empty, &jops::scalar(1.0, DType::I32), &normalizer)?;
        jops::div(&result, &jops::convert(&divisor, DType::F32)?)
    };
    stage(std::slice::from_ref(x))
}

/// `nanargmax(a, axis=None, out=None, keepdims=None)` and `nanargmin`: -1
/// where every element is NaN.
fn nanarg(a: &Args, min: bool) -> Result<Obj> {
    let name = if min { "nanargmin" } else { "nanargmax" };
    let x = arr(a, 0, "a", name)?;
    refuse_args(a, name, &[("out", Some(2))])?;
    let axis = opt_int(a, Some(1), "axis")?;
    let keepdims = keep(a, 3)?;
    let jit_name = if min { "_nanargmin" } else { "_nanargmax" };
    let out = jops::jitted1(jit_name, &[x], |v| {
        let x = &v[0];
        if !inexact(x.dtype()) {
            return jops::arg_reduce(x, axis, keepdims, min);
        }
        let fill = if min {
            f64::INFINITY
        } else {
            f64::NEG_INFINITY
        };
        let nan = isnan(x)?;
        let filled = where_v(&nan, &jops::scalar(fill, DType::F32), x)?;
        let res = jops::arg_reduce(&filled, axis, keepdims, min)?;
        let axes = axis.map(|ax| vec![ax]);
        let all = reduce(ReduceOp::All, &nan, axes.as_deref(), keepdims)?;
        where_v(&all, &jops::scalar(-1.0, DType::I32), &res)
    })?;
    Ok(Obj::Array(out))
}

/// `nancumsum(a, axis=None, dtype=None)` and `nancumprod`: NaN counts as
/// the operation's identity.
fn nancumulative(a: &Args, op: CumOp, name: &str) -> Result<Obj> {
    let x = arr(a, 0, "a", name)?;
    refuse_args(a, name, &[("out", Some(3))])?;
    let x = match inexact(x.dtype()) {
        true => {
            let init = if matches!(op, CumOp::Sum) { 0.0 } else { 1.0 };
            where_v(&isnan(&x)?, &like(&x, init), &x)?
        }
        false => x,
    };
    let mut pos = vec![Obj::Array(x)];
    pos.extend((1..3).map(|i| {
        a.get(Some(i), ["", "axis", "dtype"][i])
            .unwrap_or(Obj::None)
    }));
    let inner = Args::new(pos);
    super::reductions::cumulative(&inner, op, name)
}

/// `count_nonzero(a, axis=None, keepdims=False)`: int32 counts.
fn count_nonzero(a: &Args) -> Result<Obj> {
    let x = arr(a, 0, "a", "count_nonzero")?;
    let axes = axes_arg(a, Some(1))?;
    let keepdims = keep(a, 2)?;
    let out = jops::jitted1("count_nonzero", &[x], |v| {
        let x = &v[0];
        let ne = jops::not_equal(x, &like(x, 0.0))?;
        let ne = jops::convert(&ne, DType::I32)?;
        reduce(ReduceOp::Sum, &ne, axes.as_deref(), keepdims)
    })?;
    Ok(Obj::Array(out))
}

/// `ptp(a, axis=None, out=None, keepdims=False)`: max minus min.
fn ptp(a: &Args) -> Result<Obj> {
    let x = arr(a, 0, "a", "ptp")?;
    refuse_args(a, "ptp", &[("out", Some(2))])?;
    let axes = axes_arg(a, Some(1))?;
    let keepdims = keep(a, 3)?;
    let out = jops::jitted1("_ptp", &[x], |v| {
        let hi = reduce(ReduceOp::Max, &v[0], axes.as_deref(), keepdims)?;
        let lo = reduce(ReduceOp::Min, &v[0], axes.as_deref(), keepdims)?;
        jops::sub(&hi, &lo)
    })?;
    Ok(Obj::Array(out))
}

/// `average(a, axis=None, weights=None, returned=False, keepdims=False)`.
fn average(a: &Args) -> Result<Obj> {
    let x = to_inexact(&arr(a, 0, "a", "average")?)?;
    let axes = axes_arg(a, Some(1))?;
    let returned = super::compose::flag(a, Some(3), "returned", false)?;
    let keepdims = keep(a, 4)?;
    let shape = x.shape();
    let (avg, wsum) = match a.opt(Some(2), "weights") {
        None => {
            let avg = jops::mean(&x, axes.as_deref(), keepdims)?;
            let n: usize = match &axes {
                None => shape.iter().product(),
                Some(ax) => ax
                    .iter()
                    .map(|&d| jops::norm_axis(d, shape.len()).map(|d| shape[d]))
                    .product::<Result<usize>>()?,
            };
            (avg, jops::scalar(n as f64, DType::F32))
        }
        Some(w) => {
            let w = to_inexact(&crate::python::array::to_value(&w)?)?;
            let w = weights_for(&w, &shape, axes.as_deref())?;
            let wsum = reduce(ReduceOp::Sum, &w, axes.as_deref(), keepdims)?;
            let num = reduce(
                ReduceOp::Sum,
                &jops::mul(&x, &w)?,
                axes.as_deref(),
                keepdims,
            )?;
            (jops::div(&num, &wsum)?, wsum)
        }
    };
    if !returned {
        return Ok(Obj::Array(avg));
    }
    let wsum = match wsum.shape() == avg.shape() {
        true => wsum,
        false => jops::broadcast_to(&wsum, &avg.shape())?,
    };
    Ok(super::compose::array_tuple(vec![avg, wsum]))
}

/// Weights of `a`'s shape, or of the reduced axes' shape reshaped to
/// broadcast against `a`, as `average` accepts them.
fn weights_for(w: &Value, shape: &[usize], axes: Option<&[i64]>) -> Result<Value> {
    let ws = w.shape();
    if ws == shape {
        return Ok(w.clone());
    }
    let Some(axes) = axes else {
        crate::bail!(
            ValueError,
            "Axis must be specified when shapes of a and weights differ."
        );
    };
    let axes: Vec<usize> = axes
        .iter()
        .map(|&d| jops::norm_axis(d, shape.len()))
        .collect::<Result<_>>()?;
    let expect: Vec<usize> = axes.iter().map(|&d| shape[d]).collect();
    if ws != expect {
        crate::bail!(
            ValueError,
            "Shape of weights must be consistent with shape of a along specified axis."
        );
    }
    if axes.windows(2).any(|p| p[0] > p[1]) {
        crate::bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.numpy.average with unsorted axes and weights"
        );
    }
    let to: Vec<usize> = (0..shape.len())
        .map(|i| if axes.contains(&i) { shape[i] } else { 1 })
        .collect();
    jops::reshape(w, &to)
}
