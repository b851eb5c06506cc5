//! More ways to shape, join and split arrays: `atleast_1d/2d/3d`,
//! `array_split`, `hsplit`, `vsplit`, `dsplit`, `dstack`, `column_stack`,
//! `fliplr`, `flipud`, `unstack`, `append`, `matrix_transpose`,
//! `permute_dims` and `rollaxis`.

use crate::bail;
use crate::error::Result;
use crate::ops as jops;
use crate::python::array::{reshape_value, to_value};
use crate::python::builtins::to_int;
use crate::python::ops::iterate;
use crate::python::value::{Args, Obj};
use crate::trace::Value;

use super::super::Builder;
use super::arr;
use super::compose::{array_list, array_tuple, opt_int};

/// Adds the functions to `b`.
pub(super) fn register(b: &mut Builder) {
    for (name, rank) in [("atleast_1d", 1), ("atleast_2d", 2), ("atleast_3d", 3)] {
        b.func(name, move |_, a| atleast_fn(&a, rank));
    }
    b.func("array_split", |_, a| {
        split_fn(&a, "array_split", None, true)
    });
    b.func("hsplit", |_, a| split_fn(&a, "hsplit", Some(1), false));
    b.func("vsplit", |_, a| split_fn(&a, "vsplit", Some(0), false));
    b.func("dsplit", |_, a| split_fn(&a, "dsplit", Some(2), false));
    b.func("dstack", |_, a| {
        let xs = values(&a.req(Some(0), "tup", "dstack")?)?;
        let xs: Vec<Value> = xs.iter().map(|x| atleast(x, 3)).collect::<Result<_>>()?;
        Ok(Obj::Array(jops::concatenate(&xs, 2)?))
    });
    b.func("column_stack", |_, a| column_stack(&a));
    b.func("fliplr", |_, a| flip_axis(&a, "fliplr", 1));
    b.func("flipud", |_, a| flip_axis(&a, "flipud", 0));
    b.func("unstack", |_, a| unstack(&a));
    b.func("append", |_, a| append(&a));
    b.func("matrix_transpose", |_, a| {
        let x = arr(&a, 0, "x", "matrix_transpose")?;
        let nd = x.ndim();
        if nd < 2 {
            bail!(
                ValueError,
                "x must be at least two-dimensional for matrix_transpose; got ndim={nd}"
            );
        }
        let mut perm: Vec<usize> = (0..nd).collect();
        perm.swap(nd - 2, nd - 1);
        Ok(Obj::Array(jops::transpose(&x, &perm)?))
    });
    b.func("permute_dims", |_, a| permute_dims(&a));
    b.func("rollaxis", |_, a| rollaxis(&a));
}

fn values(o: &Obj) -> Result<Vec<Value>> {
    iterate(o)?.iter().map(to_value).collect()
}

/// `x` with at least `rank` dimensions, as NumPy's `atleast_*d` adds them.
fn atleast(x: &Value, rank: usize) -> Result<Value> {
    let s = x.shape();
    if s.len() >= rank {
        return Ok(x.clone());
    }
    let shape = match (rank, s.len()) {
        (1, _) => vec![1],
        (2, 0) => vec![1, 1],
        (2, _) => vec![1, s[0]],
        (3, 0) => vec![1, 1, 1],
        (3, 1) => vec![1, s[0], 1],
        _ => vec![s[0], s[1], 1],
    };
    jops::reshape(x, &shape)
}

fn atleast_fn(a: &Args, rank: usize) -> Result<Obj> {
    let xs: Vec<Value> = a.pos.iter().map(to_value).collect::<Result<_>>()?;
    let out: Vec<Value> = xs.iter().map(|x| atleast(x, rank)).collect::<Result<_>>()?;
    match out.len() {
        1 => Ok(Obj::Array(out[0].clone())),
        _ => Ok(array_list(out)),
    }
}

/// Where `split`'s pieces begin and end along an axis of `n`: at the given
/// indices (as JAX takes them, neither wrapped nor clipped: pieces of
/// negative size are JAX's ValueError), or in `k` sections (equal ones
/// unless `unequal`, the first `n % k` one longer).
fn split_bounds(sections: &Obj, n: usize, unequal: bool) -> Result<Vec<usize>> {
    if let Obj::List(_) | Obj::Tuple(_) | Obj::Array(_) = sections {
        let mut at = vec![0i64];
        for i in iterate(sections)? {
            at.push(to_int(&i)?);
        }
        at.push(n as i64);
        let sizes: Vec<i64> = at.windows(2).map(|w| w[1] - w[0]).collect();
        if sizes.iter().any(|&d| d < 0) {
            let list: Vec<String> = sizes.iter().map(|d| format!("np.int64({d})")).collect();
            bail!(
                ValueError,
                "Sizes passed to split must be nonnegative, got [{}]",
                list.join(", ")
            );
        }
        return Ok(at.into_iter().map(|b| b as usize).collect());
    }
    let k = to_int(sections)?;
    if k == 0 {
        bail!(ZeroDivisionError, "integer division or modulo by zero");
    }
    if k < 0 {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: split into a negative number of sections"
        );
    }
    let k = k as usize;
    if !unequal && n % k != 0 {
        bail!(
            ValueError,
            "array split does not result in an equal division: rest is {}",
            n % k
        );
    }
    let (size, extra) = (n / k, n % k);
    let mut b = vec![0];
    for i in 0..k {
        b.push(b[i] + size + usize::from(i < extra));
    }
    Ok(b)
}

/// `split` and `array_split(ary, indices_or_sections, axis=0)` (unequal sections
/// allowed) and `hsplit`/`vsplit`/`dsplit` (along their axis, equal).
pub(super) fn split_fn(a: &Args, name: &str, fixed: Option<usize>, unequal: bool) -> Result<Obj> {
    let x = arr(a, 0, "ary", name)?;
    let sections = a.req(Some(1), "indices_or_sections", name)?;
    let axis = match fixed {
        None => jops::norm_axis(opt_int(a, Some(2), "axis")?.unwrap_or(0), x.ndim())?,
        Some(1) if x.ndim() == 1 => 0,
        Some(ax) if ax >= x.ndim() => bail!(IndexError, "tuple index out of range"),
        Some(ax) => ax,
    };
    let n = x.shape()[axis];
    let bounds = split_bounds(&sections, n, unequal)?;
    let mut out = vec![];
    for w in bounds.windows(2) {
        let shape = x.shape();
        let mut starts = vec![0; shape.len()];
        let mut limits = shape.clone();
        starts[axis] = w[0];
        limits[axis] = w[1];
        out.push(jops::slice(&x, &starts, &limits, &vec![1; shape.len()])?);
    }
    Ok(array_list(out))
}

/// `column_stack(tup)`: 1-D arrays become columns.
fn column_stack(a: &Args) -> Result<Obj> {
    let xs = values(&a.req(Some(0), "tup", "column_stack")?)?;
    let cols: Vec<Value> = xs
        .iter()
        .map(|x| match x.ndim() {
            0 => jops::reshape(x, &[1, 1]),
            1 => jops::reshape(x, &[x.shape()[0], 1]),
            _ => Ok(x.clone()),
        })
        .collect::<Result<_>>()?;
    Ok(Obj::Array(jops::concatenate(&cols, 1)?))
}

fn flip_axis(a: &Args, name: &str, axis: usize) -> Result<Obj> {
    let x = arr(a, 0, "m", name)?;
    if x.ndim() <= axis {
        bail!(
            ValueError,
            "{name} requires an array of at least {} dimension{}, got {}",
            axis + 1,
            if axis == 0 { "" } else { "s" },
            x.ndim()
        );
    }
    Ok(Obj::Array(jops::rev(&x, &[axis])?))
}

/// `unstack(x, /, *, axis=0)`: a tuple of the slices along `axis`.
fn unstack(a: &Args) -> Result<Obj> {
    let x = arr(a, 0, "x", "unstack")?;
    if x.ndim() == 0 {
        bail!(
            ValueError,
            "Unstack requires arrays with rank > 0, however a scalar array was passed."
        );
    }
    let axis = jops::norm_axis(opt_int(a, None, "axis")?.unwrap_or(0), x.ndim())?;
    let shape = x.shape();
    let mut out = vec![];
    for i in 0..shape[axis] {
        let mut starts = vec![0; shape.len()];
        let mut limits = shape.clone();
        starts[axis] = i;
        limits[axis] = i + 1;
        let s = jops::slice(&x, &starts, &limits, &vec![1; shape.len()])?;
        out.push(jops::squeeze(&s, Some(&[axis as i64]))?);
    }
    Ok(array_tuple(out))
}

/// `append(arr, values, axis=None)`: flattened when no axis is given.
fn append(a: &Args) -> Result<Obj> {
    let x = arr(a, 0, "arr", "append")?;
    let v = arr(a, 1, "values", "append")?;
    let out = match opt_int(a, Some(2), "axis")? {
        None => {
            let (x, v) = (reshape_value(&x, &[-1])?, reshape_value(&v, &[-1])?);
            concat_promoted(&x, &v, 0)?
        }
        Some(ax) => concat_promoted(&x, &v, ax)?,
    };
    Ok(Obj::Array(out))
}

fn concat_promoted(x: &Value, v: &Value, axis: i64) -> Result<Value> {
    let dtype = x.dtype().promote(v.dtype());
    let (x, v) = (jops::convert(x, dtype)?, jops::convert(v, dtype)?);
    jops::concatenate(&[x, v], axis)
}

/// `permute_dims(a, /, axes)`.
fn permute_dims(a: &Args) -> Result<Obj> {
    let x = arr(a, 0, "a", "permute_dims")?;
    let axes: Vec<usize> = iterate(&a.req(Some(1), "axes", "permute_dims")?)?
        .iter()
        .map(|o| jops::norm_axis(to_int(o)?, x.ndim()))
        .collect::<Result<_>>()?;
    let mut seen = axes.clone();
    seen.sort_unstable();
    if seen != (0..x.ndim()).collect::<Vec<_>>() {
        bail!(ValueError, "axes don't match array");
    }
    Ok(Obj::Array(jops::transpose(&x, &axes)?))
}

/// `rollaxis(a, axis, start=0)`: `axis` moved to stand before `start`.
fn rollaxis(a: &Args) -> Result<Obj> {
    let x = arr(a, 0, "a", "rollaxis")?;
    let nd = x.ndim();
    let axis = jops::norm_axis(to_int(&a.req(Some(1), "axis", "rollaxis")?)?, nd)?;
    let start = opt_int(a, Some(2), "start")?.unwrap_or(0);
    let start = if start < 0 { start + nd as i64 } else { start };
    if start < 0 || start > nd as i64 {
        bail!(
            ValueError,
            "start={start} must satisfy {}<=start<={nd}",
            -(nd as i64)
        );
    }
    let start = start as usize;
    let dst = if axis < start { start - 1 } else { start };
    Ok(Obj::Array(jops::moveaxis(&x, axis, dst)?))
}
