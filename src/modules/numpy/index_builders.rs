//! Functions that build or apply index arrays: `take_along_axis`,
//! `repeat`, `diag`, `diagonal`, `diagflat`, `diag_indices`,
//! `tril_indices`, `triu_indices`, `indices` and `meshgrid`.
//!
//! Gathers go through shardlab's `take` of a flattened operand (JAX uses
//! one `gather` with batching dimensions: the same elements, another
//! program).

use crate::array::{Array, DType, ReduceOp};
use crate::bail;
use crate::error::Result;
use crate::ops as jops;
use crate::python::array::{reshape_value, to_value};
use crate::python::builtins::to_int;
use crate::python::ops::iterate;
use crate::python::value::{Args, Obj};
use crate::trace::{Conversion, Value};

use super::super::Builder;
use super::compose::{array_list, array_tuple, flag, iota, opt_int, where_v};
use super::{arr, dtype_arg};

/// Adds the index builders to `b`.
pub(super) fn register(b: &mut Builder) {
    b.func("take_along_axis", |_, a| take_along_axis(&a));
    b.func("repeat", |_, a| repeat(&a));
    b.func("diag", |_, a| {
        let v = arr(&a, 0, "v", "diag")?;
        let k = opt_int(&a, Some(1), "k")?.unwrap_or(0);
        Ok(Obj::Array(jops::jitted1("_diag", &[v], |v| {
            diag(&v[0], k)
        })?))
    });
    b.func("diagflat", |_, a| {
        let v = reshape_value(&arr(&a, 0, "v", "diagflat")?, &[-1])?;
        let k = opt_int(&a, Some(1), "k")?.unwrap_or(0);
        Ok(Obj::Array(diag(&v, k)?))
    });
    b.func("diagonal", |_, a| {
        let x = arr(&a, 0, "a", "diagonal")?;
        let offset = opt_int(&a, Some(1), "offset")?.unwrap_or(0);
        let ax1 = opt_int(&a, Some(2), "axis1")?.unwrap_or(0);
        let ax2 = opt_int(&a, Some(3), "axis2")?.unwrap_or(1);
        Ok(Obj::Array(diagonal(&x, offset, ax1, ax2)?))
    });
    b.func("diag_indices", |_, a| diag_indices(&a));
    b.func("tril_indices", |_, a| tri_indices(&a, true, None));
    b.func("triu_indices", |_, a| tri_indices(&a, false, None));
    b.func("tril_indices_from", |_, a| {
        let x = arr(&a, 0, "arr", "tril_indices_from")?;
        tri_indices(&a, true, Some(x.shape()))
    });
    b.func("triu_indices_from", |_, a| {
        let x = arr(&a, 0, "arr", "triu_indices_from")?;
        tri_indices(&a, false, Some(x.shape()))
    });
    b.func("diag_indices_from", |_, a| {
        let x = arr(&a, 0, "arr", "diag_indices_from")?;
        let s = x.shape();
        if s.len() < 2 {
            bail!(ValueError, "input array must be at least 2-d");
        }
        if s.iter().any(|&d| d != s[0]) {
            bail!(
                ValueError,
                "All dimensions of input must be of equal length"
            );
        }
        let range: Vec<i32> = (0..s[0] as i32).collect();
        let out = s
            .iter()
            .map(|_| int_array(range.clone()))
            .collect::<Result<_>>()?;
        Ok(array_tuple(out))
    });
    b.func("tri", |_, a| tri(&a));
    b.func("trace", |_, a| {
        let x = arr(&a, 0, "a", "trace")?;
        let offset = opt_int(&a, Some(1), "offset")?.unwrap_or(0);
        let ax1 = opt_int(&a, Some(2), "axis1")?.unwrap_or(0);
        let ax2 = opt_int(&a, Some(3), "axis2")?.unwrap_or(1);
        let d = diagonal(&x, offset, ax1, ax2)?;
        let d = match dtype_arg(&a, Some(4))? {
            Some(t) => jops::convert(&d, t)?,
            None => d,
        };
        Ok(Obj::Array(jops::reduce(
            ReduceOp::Sum,
            &d,
            Some(&[-1]),
            false,
        )?))
    });
    b.func("indices", |_, a| indices(&a));
    b.func("meshgrid", |_, a| meshgrid(&a));
}

/// The value `take_along_axis` gives an index past the axis (`mode='fill'`).
fn fill_for(dtype: DType) -> f64 {
    match dtype {
        DType::Bool => 1.0,
        DType::I32 => i32::MIN as f64,
        DType::U32 => u32::MAX as f64,
        _ => f64::NAN,
    }
}

/// `take_along_axis(arr, indices, axis, mode=None, fill_value=None)`.
fn take_along_axis(a: &Args) -> Result<Obj> {
    let x = arr(a, 0, "arr", "take_along_axis")?;
    let idx = arr(a, 1, "indices", "take_along_axis")?;
    let axis = a.req(Some(2), "axis", "take_along_axis")?;
    if a.opt(Some(3), "mode").is_some() || a.opt(None, "fill_value").is_some() {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.numpy.take_along_axis with mode= or fill_value="
        );
    }
    if !idx.dtype().is_int() {
        bail!(
            TypeError,
            "take_along_axis indices must be of integer type, got {}",
            idx.dtype().name()
        );
    }
    let (x, axis) = match axis {
        Obj::None => {
            if idx.ndim() != 1 {
                bail!(
                    ValueError,
                    "when axis=None, `indices` must have a single dimension."
                );
            }
            (reshape_value(&x, &[-1])?, 0)
        }
        o => (x.clone(), to_int(&o)?),
    };
    if idx.ndim() != x.ndim() {
        bail!(
            ValueError,
            "indices and arr must have the same number of dimensions; {} vs. {}",
            idx.ndim(),
            x.ndim()
        );
    }
    let axis = jops::norm_axis(axis, x.ndim())?;
    let out = jops::jitted1("take_along_axis", &[x, idx], |v| along(&v[0], &v[1], axis))?;
    Ok(Obj::Array(out))
}

/// The gather of `take_along_axis`: the other dimensions broadcast, the
/// indices wrap once from the end and fill past the axis.
pub(super) fn along(x: &Value, idx: &Value, axis: usize) -> Result<Value> {
    let (xs, is) = (x.shape(), idx.shape());
    let n = xs[axis];
    let mut out_shape = vec![];
    for d in 0..xs.len() {
        match d == axis {
            true => out_shape.push(is[d]),
            false => out_shape.push(crate::array::broadcast_shapes(&[xs[d]], &[is[d]])?[0]),
        }
    }
    let mut x_shape = out_shape.clone();
    x_shape[axis] = n;
    let x = jops::broadcast_to(x, &x_shape)?;
    let idx = jops::broadcast_to(&jops::convert(idx, DType::I32)?, &out_shape)?;
    let nv = jops::scalar(n as f64, DType::I32);
    let negative = jops::less(&idx, &jops::scalar(0.0, DType::I32))?;
    let idx = jops::select(&negative, &jops::add(&idx, &nv)?, &idx)?;
    let zero = jops::scalar(0.0, DType::I32);
    let inside = jops::binary(
        crate::array::BinaryOp::And,
        &jops::greater_equal(&idx, &zero)?,
        &jops::less(&idx, &nv)?,
    )?;
    let last = x_shape.len() - 1;
    let xm = jops::moveaxis(&x, axis, last)?;
    let im = jops::moveaxis(&idx, axis, last)?;
    let k = out_shape[axis];
    let rows: usize = xm.shape()[..last].iter().product();
    let flat = jops::reshape(&xm, &[rows * n])?;
    let im2 = jops::reshape(&im, &[rows, k])?;
    let clamped = jops::clamp(
        &zero,
        &im2,
        &jops::scalar(n.max(1) as f64 - 1.0, DType::I32),
    )?;
    let base = jops::mul(&iota(&[rows, k], 0)?, &nv)?;
    let got = jops::take(&flat, &jops::add(&base, &clamped)?, 0)?;
    let mut moved = im.shape();
    moved[last] = k;
    let got = jops::moveaxis(&jops::reshape(&got, &moved)?, last, axis)?;
    where_v(&inside, &got, &jops::scalar(fill_for(x.dtype()), x.dtype()))
}

/// `repeat(a, repeats, axis=None, *, total_repeat_length=None)`.
fn repeat(a: &Args) -> Result<Obj> {
    let x = arr(a, 0, "a", "repeat")?;
    let reps = to_value(&a.req(Some(1), "repeats", "repeat")?)?;
    let (x, axis) = match opt_int(a, Some(2), "axis")? {
        None => (reshape_value(&x, &[-1])?, 0),
        Some(ax) => {
            let ax = jops::norm_axis(ax, x.ndim().max(1))?;
            (x, ax)
        }
    };
    let total = opt_int(a, None, "total_repeat_length")?;
    let Some(total) = total else {
        let r = reps.concrete_for(Conversion::Concrete(
            "When jit-compiling jnp.repeat, the total number of repeats must be static. To fix \
             this, either specify a static value for `repeats`, or pass a static value to \
             `total_repeat_length`."
                .into(),
        ))?;
        let counts: Vec<i64> = r.to_f64_vec().iter().map(|&c| c as i64).collect();
        return Ok(Obj::Array(repeat_concrete(
            &x,
            r.ndim() == 0,
            &counts,
            axis,
        )?));
    };
    Ok(Obj::Array(repeat_traced(
        &x,
        &reps,
        axis,
        total.max(0) as usize,
    )?))
}

/// `repeat` with known counts: a broadcast for one count, a gather of
/// each index its count of times otherwise.
fn repeat_concrete(x: &Value, scalar: bool, counts: &[i64], axis: usize) -> Result<Value> {
    if let Some(c) = counts.iter().find(|&&c| c < 0) {
        bail!(
            ValueError,
            "repeats may not contain negative values, got {c}"
        );
    }
    if x.ndim() == 0 {
        return match counts {
            [c] => jops::broadcast_to(x, &[*c as usize]),
            _ => bail!(
                ValueError,
                "`repeat` with a scalar parameter `a` is only implemented for scalar values of \
                 the parameter `repeats`."
            ),
        };
    }
    let shape = x.shape();
    if scalar {
        let c = counts[0] as usize;
        let mut aux = shape.clone();
        aux.insert(axis + 1, c);
        let dims: Vec<usize> = (0..aux.len()).filter(|&d| d != axis + 1).collect();
        let b = jops::broadcast_in_dim(x, &aux, &dims)?;
        let mut out = shape.clone();
        out[axis] *= c;
        return jops::reshape(&b, &out);
    }
    let n = shape[axis];
    let counts: Vec<i64> = match counts.len() {
        1 => vec![counts[0]; n],
        k if k == n => counts.to_vec(),
        k => bail!(
            ValueError,
            "operands could not be broadcast together with remapped shapes [original->remapped]: \
             ({k},) and requested shape ({n},)"
        ),
    };
    let idx: Vec<i32> = counts
        .iter()
        .enumerate()
        .flat_map(|(i, &c)| std::iter::repeat_n(i as i32, c as usize))
        .collect();
    let idx = Value::Concrete(Array::from_i32(&[idx.len()], idx)?);
    jops::take(x, &idx, axis as i64)
}

/// `repeat` with counts known only by their total: element `j` of the
/// result comes from the last index whose run starts at or before `j`.
fn repeat_traced(x: &Value, reps: &Value, axis: usize, total: usize) -> Result<Value> {
    if x.ndim() == 0 {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.numpy.repeat of a scalar with total_repeat_length"
        );
    }
    let n = x.shape()[axis];
    let reps = jops::convert(&reshape_value(reps, &[-1])?, DType::I32)?;
    let reps = jops::broadcast_to(&reps, &[n])?;
    let ends = jops::cumulative(&reps, crate::primitives::CumOp::Sum, 0, false)?;
    let starts = jops::sub(&ends, &reps)?;
    let j = iota(&[total, 1], 0)?;
    let started = jops::less_equal(&jops::reshape(&starts, &[1, n])?, &j)?;
    let count = jops::reduce(
        ReduceOp::Sum,
        &jops::convert(&started, DType::I32)?,
        Some(&[1]),
        false,
    )?;
    let idx = jops::sub(&count, &jops::scalar(1.0, DType::I32))?;
    jops::take(x, &idx, axis as i64)
}

/// `diag(v, k)`: a 1-D `v` on the `k`-th diagonal of a square matrix, or
/// the `k`-th diagonal of a matrix.
fn diag(v: &Value, k: i64) -> Result<Value> {
    match v.ndim() {
        1 => {
            let n = v.shape()[0] + k.unsigned_abs() as usize;
            let lo = (-k).max(0) as usize;
            let hi = k.max(0) as usize;
            let padded = jops::pad(v, &[lo], &[hi])?;
            let rows = iota(&[n, n], 0)?;
            let cols = iota(&[n, n], 1)?;
            let on = jops::equal(
                &jops::add(&rows, &jops::scalar(k as f64, DType::I32))?,
                &cols,
            )?;
            let col = jops::reshape(&padded, &[n, 1])?;
            where_v(&on, &col, &jops::scalar(0.0, v.dtype()))
        }
        2 => diagonal(v, k, 0, 1),
        _ => bail!(ValueError, "diag input must be 1d or 2d"),
    }
}

/// `diagonal(a, offset, axis1, axis2)`: the diagonal as the last axis.
fn diagonal(x: &Value, offset: i64, ax1: i64, ax2: i64) -> Result<Value> {
    let nd = x.ndim();
    if nd < 2 {
        bail!(
            ValueError,
            "diagonal requires an array of at least two dimensions."
        );
    }
    let (a1, a2) = (jops::norm_axis(ax1, nd)?, jops::norm_axis(ax2, nd)?);
    if a1 == a2 {
        bail!(ValueError, "axis1 and axis2 must not be equal.");
    }
    let mut perm: Vec<usize> = (0..nd).filter(|&d| d != a1 && d != a2).collect();
    perm.extend([a1, a2]);
    let t = jops::transpose(x, &perm)?;
    let shape = t.shape();
    let (n, m) = (shape[nd - 2] as i64, shape[nd - 1] as i64);
    let (r0, c0) = ((-offset).max(0), offset.max(0));
    let len = (n - r0).min(m - c0).max(0) as usize;
    let idx: Vec<i32> = (0..len as i64)
        .map(|i| ((r0 + i) * m + c0 + i) as i32)
        .collect();
    let mut flat = shape[..nd - 2].to_vec();
    flat.push((n * m) as usize);
    let t = jops::reshape(&t, &flat)?;
    let idx = Value::Concrete(Array::from_i32(&[len], idx)?);
    jops::take(&t, &idx, (nd - 2) as i64)
}

fn int_array(data: Vec<i32>) -> Result<Value> {
    Ok(Value::Concrete(Array::from_i32(&[data.len()], data)?))
}

/// `diag_indices(n, ndim=2)`.
fn diag_indices(a: &Args) -> Result<Obj> {
    let n = to_int(&a.req(Some(0), "n", "diag_indices")?)?;
    let ndim = opt_int(a, Some(1), "ndim")?.unwrap_or(2);
    if n < 0 {
        bail!(
            ValueError,
            "n argument to diag_indices must be nonnegative, got {n}"
        );
    }
    if ndim < 0 {
        bail!(
            ValueError,
            "ndim argument to diag_indices must be nonnegative, got {ndim}"
        );
    }
    let range: Vec<i32> = (0..n as i32).collect();
    let out = (0..ndim)
        .map(|_| int_array(range.clone()))
        .collect::<Result<_>>()?;
    Ok(array_tuple(out))
}

/// `tril_indices(n, k=0, m=None)` and `triu_indices`, or their `_from`
/// forms given the array's shape.
fn tri_indices(a: &Args, lower: bool, from: Option<Vec<usize>>) -> Result<Obj> {
    let (n, k, m) = match from {
        Some(shape) => {
            if shape.len() != 2 {
                bail!(ValueError, "Only 2-D inputs are accepted");
            }
            let k = opt_int(a, Some(1), "k")?.unwrap_or(0);
            (shape[0] as i64, k, shape[1] as i64)
        }
        None => {
            let name = if lower {
                "tril_indices"
            } else {
                "triu_indices"
            };
            let n = to_int(&a.req(Some(0), "n", name)?)?;
            let k = opt_int(a, Some(1), "k")?.unwrap_or(0);
            (n, k, opt_int(a, Some(2), "m")?.unwrap_or(n))
        }
    };
    let (mut rows, mut cols) = (vec![], vec![]);
    for i in 0..n.max(0) {
        for j in 0..m.max(0) {
            if (lower && j - i <= k) || (!lower && j - i >= k) {
                rows.push(i as i32);
                cols.push(j as i32);
            }
        }
    }
    Ok(array_tuple(vec![int_array(rows)?, int_array(cols)?]))
}

/// `indices(dimensions, dtype=int32, sparse=False)`.
fn indices(a: &Args) -> Result<Obj> {
    let dims: Vec<usize> = iterate(&a.req(Some(0), "dimensions", "indices")?)?
        .iter()
        .map(|o| to_int(o).map(|d| d.max(0) as usize))
        .collect::<Result<_>>()?;
    let dtype = dtype_arg(a, Some(1))?.unwrap_or(DType::I32);
    let sparse = flag(a, Some(2), "sparse", false)?;
    let mut out = vec![];
    for d in 0..dims.len() {
        let v = if sparse {
            let mut s = vec![1; dims.len()];
            s[d] = dims[d];
            iota(&s, d)?
        } else {
            iota(&dims, d)?
        };
        out.push(jops::convert(&v, dtype)?);
    }
    if sparse {
        return Ok(array_tuple(out));
    }
    if out.is_empty() {
        return Ok(Obj::Array(Value::Concrete(Array::zeros(&[0], dtype))));
    }
    Ok(Obj::Array(jops::stack(&out, 0)?))
}

/// `meshgrid(*xi, copy=True, sparse=False, indexing='xy')`: a list of
/// arrays, each 1-D input spread along its own axis (the first two axes
/// swapped for `'xy'`).
fn meshgrid(a: &Args) -> Result<Obj> {
    let xs: Vec<Value> = a.pos.iter().map(to_value).collect::<Result<_>>()?;
    let sparse = flag(a, None, "sparse", false)?;
    let xy = match a.opt(None, "indexing") {
        None => true,
        Some(Obj::Str(s)) if &*s == "xy" => true,
        Some(Obj::Str(s)) if &*s == "ij" => false,
        Some(_) => bail!(ValueError, "Valid values for indexing are 'xy' and 'ij'."),
    };
    for x in &xs {
        if x.ndim() != 1 {
            bail!(
                ValueError,
                "Arguments to jax.numpy.meshgrid must be 1D, got shape {}",
                crate::array::shape_tuple(&x.shape())
            );
        }
    }
    let lens: Vec<usize> = xs.iter().map(|x| x.shape()[0]).collect();
    let axis_of = |i: usize| match (xy && lens.len() > 1, i) {
        (true, 0) => 1,
        (true, 1) => 0,
        _ => i,
    };
    let mut shape: Vec<usize> = (0..lens.len()).map(|d| lens[axis_of(d)]).collect();
    if shape.is_empty() {
        shape = vec![];
    }
    let mut out = vec![];
    for (i, x) in xs.iter().enumerate() {
        let d = axis_of(i);
        let mut s = vec![1; lens.len()];
        s[d] = lens[i];
        let v = jops::reshape(x, &s)?;
        out.push(if sparse {
            v
        } else {
            jops::broadcast_to(&v, &shape)?
        });
    }
    Ok(array_list(out))
}

/// `tri(N, M=None, k=0, dtype=float32)`: ones on and below the `k`-th
/// diagonal.
fn tri(a: &Args) -> Result<Obj> {
    let n = to_int(&a.req(Some(0), "N", "tri")?)?.max(0) as usize;
    let m = opt_int(a, Some(1), "M")?.map_or(n, |m| m.max(0) as usize);
    let k = opt_int(a, Some(2), "k")?.unwrap_or(0);
    let dtype = dtype_arg(a, Some(3))?.unwrap_or(DType::F32);
    let rows = jops::add(&iota(&[n, m], 0)?, &jops::scalar(k as f64, DType::I32))?;
    let below = jops::greater_equal(&rows, &iota(&[n, m], 1)?)?;
    Ok(Obj::Array(jops::convert(&below, dtype)?))
}
