//! `searchsorted`, `digitize` and `bincount`: where values fall among
//! sorted ones, and how often each integer occurs.
//!
//! `searchsorted` compares every query with every sorted element and
//! counts (JAX's `method='compare_all'`); JAX's default method scans
//! instead, which finds the same indices through a different program.

use crate::array::{BinaryOp, DType, ReduceOp};
use crate::bail;
use crate::error::Result;
use crate::ops as jops;
use crate::python::value::{Args, Obj};
use crate::trace::{Conversion, Value};

use super::super::Builder;
use super::arr;
use super::compose::{isnan, not, opt_int, reduce, where_v};

/// Adds `searchsorted`, `digitize` and `bincount` to `b`.
pub(super) fn register(b: &mut Builder) {
    b.func("searchsorted", |_, a| searchsorted_fn(&a));
    b.func("digitize", |_, a| digitize(&a));
    b.func("bincount", |_, a| bincount(&a));
}

/// `x < y` in sort order: NaN after every number.
fn sort_lt(x: &Value, y: &Value) -> Result<Value> {
    let lt = jops::less(x, y)?;
    if x.dtype() != DType::F32 {
        return Ok(lt);
    }
    let nan_last = jops::binary(BinaryOp::And, &isnan(y)?, &not(&isnan(x)?)?)?;
    jops::binary(BinaryOp::Or, &lt, &nan_last)
}

fn side_arg(a: &Args, index: usize) -> Result<bool> {
    match a.opt(Some(index), "side") {
        None => Ok(false),
        Some(Obj::Str(s)) if &*s == "left" => Ok(false),
        Some(Obj::Str(s)) if &*s == "right" => Ok(true),
        Some(Obj::Str(s)) => bail!(
            ValueError,
            "'{s}' is an invalid value for keyword 'side'. Expected one of ['left', 'right']."
        ),
        Some(_) => bail!(
            ValueError,
            "side is an invalid value for keyword 'side'. Expected one of ['left', 'right']."
        ),
    }
}

/// `searchsorted(a, v, side='left', sorter=None, *, method='scan')`.
fn searchsorted_fn(a: &Args) -> Result<Obj> {
    let sorted = arr(a, 0, "a", "searchsorted")?;
    let v = arr(a, 1, "v", "searchsorted")?;
    let right = side_arg(a, 2)?;
    // With `sorter`, the search runs in `a` taken in that order.
    let sorted = match a.opt(Some(3), "sorter") {
        Some(o) => jops::take(&sorted, &crate::python::array::to_value(&o)?, 0)?,
        None => sorted,
    };
    if let Some(Obj::Str(m)) = a.opt(None, "method") {
        if !["scan", "scan_unrolled", "sort", "compare_all"].contains(&&*m) {
            bail!(ValueError, "Invalid method for searchsorted: {m}");
        }
    }
    if sorted.ndim() != 1 {
        bail!(ValueError, "a should be 1-dimensional");
    }
    Ok(Obj::Array(searchsorted(&sorted, &v, right)?))
}

/// The insertion indices of `v` into the sorted 1-D `sorted`, int32.
fn searchsorted(sorted: &Value, v: &Value, right: bool) -> Result<Value> {
    let dtype = sorted.dtype().promote(v.dtype());
    let (s, v) = (jops::convert(sorted, dtype)?, jops::convert(v, dtype)?);
    let n = s.shape()[0];
    let mut col = vec![n];
    col.extend(std::iter::repeat_n(1, v.ndim()));
    let s = jops::reshape(&s, &col)?;
    let v = jops::expand_dims(&v, 0)?;
    // left: how many sorted elements lie before v; right: how many not after.
    let below = match right {
        false => sort_lt(&s, &v)?,
        true => not(&sort_lt(&v, &s)?)?,
    };
    let below = jops::convert(&below, DType::I32)?;
    let below = match below.shape() == v.shape() && n != 1 {
        true => below,
        false => {
            let mut full = vec![n];
            full.extend(v.shape().into_iter().skip(1));
            jops::broadcast_to(&below, &full)?
        }
    };
    reduce(ReduceOp::Sum, &below, Some(&[0]), false)
}

/// `digitize(x, bins, right=False)`: the bin of each value, for
/// increasing or decreasing bins.
fn digitize(a: &Args) -> Result<Obj> {
    let x = arr(a, 0, "x", "digitize")?;
    let bins = arr(a, 1, "bins", "digitize")?;
    let right = super::compose::flag(a, Some(2), "right", false)?;
    if bins.ndim() != 1 {
        bail!(
            ValueError,
            "digitize: bins must be a 1-dimensional array; got bins={}",
            crate::ir::fmt_shape(&bins.shape())
        );
    }
    let n = bins.shape()[0];
    if n == 0 {
        return Ok(Obj::Array(jops::zeros_like(&jops::convert(
            &x,
            DType::I32,
        )?)));
    }
    // side='left' when right=True, as NumPy's digitize defines the bins.
    let side_right = !right;
    let first = jops::slice(&bins, &[0], &[1], &[1])?;
    let last = jops::slice(&bins, &[n - 1], &[n], &[1])?;
    let increasing = jops::reshape(&jops::greater_equal(&last, &first)?, &[])?;
    let up = searchsorted(&bins, &x, side_right)?;
    let reversed = jops::rev(&bins, &[0])?;
    let down = jops::sub(
        &jops::scalar(n as f64, DType::I32),
        &searchsorted(&reversed, &x, side_right)?,
    )?;
    Ok(Obj::Array(where_v(&increasing, &up, &down)?))
}

/// `bincount(x, weights=None, minlength=0, *, length=None)`: counts (or
/// summed weights) of each non-negative integer; negative values count as
/// 0, values past `length` are dropped.
fn bincount(a: &Args) -> Result<Obj> {
    let x = arr(a, 0, "x", "bincount")?;
    if !x.dtype().is_int() {
        bail!(
            TypeError,
            "x argument to bincount must have an integer type."
        );
    }
    if x.ndim() != 1 {
        bail!(ValueError, "only 1-dimensional input supported.");
    }
    let minlength = opt_int(a, Some(2), "minlength")?.unwrap_or(0);
    if minlength < 0 {
        bail!(
            ValueError,
            "minlength must not be negative, got {minlength}"
        );
    }
    let length = match a.opt(None, "length") {
        Some(Obj::Array(v)) => concrete_int(
            &v,
            "The error occurred because of argument 'length' of jnp.bincount.",
        )?,
        Some(o) => crate::python::builtins::to_int(&o)?,
        None => {
            let c = x.concrete_for(Conversion::Concrete(
                "The error occurred because of argument 'x' of jnp.bincount. To avoid this \
                 error, pass a static `length` argument."
                    .into(),
            ))?;
            let most = c.to_f64_vec().into_iter().fold(-1.0f64, f64::max);
            minlength.max(most as i64 + 1)
        }
    };
    let weights = match a.opt(Some(1), "weights") {
        Some(w) => crate::python::array::to_value(&w)?,
        None => jops::scalar(1.0, DType::I32),
    };
    Ok(Obj::Array(scatter_counts(
        &x,
        &weights,
        length.max(0) as usize,
    )?))
}

fn concrete_int(v: &Value, detail: &str) -> Result<i64> {
    let c = v.concrete_for(Conversion::Concrete(detail.into()))?;
    Ok(c.get_f64(0) as i64)
}

/// Adds each weight into its bin of `length` bins.
fn scatter_counts(x: &Value, weights: &Value, length: usize) -> Result<Value> {
    let weights = match weights.aval().weak {
        true => jops::astype(weights, weights.dtype())?,
        false => weights.clone(),
    };
    let n = x.shape()[0];
    let w = jops::broadcast_to(&weights, &[n])?;
    if length == 0 || n == 0 {
        return Ok(Value::Concrete(crate::array::Array::zeros(
            &[length],
            w.dtype(),
        )));
    }
    let idx = jops::maximum(
        &jops::convert(x, DType::I32)?,
        &jops::scalar(0.0, DType::I32),
    )?;
    let kept = jops::less(&idx, &jops::scalar(length as f64, DType::I32))?;
    let w = where_v(&kept, &w, &jops::scalar(0.0, w.dtype()))?;
    crate::trace::bind1(
        crate::primitives::Prim::ScatterAdd {
            axis: 0,
            shape: vec![length],
        },
        &[idx, w],
    )
}
