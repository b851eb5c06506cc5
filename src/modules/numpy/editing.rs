//! Functions that return an array with elements put in, replaced or
//! removed, composed as JAX composes them: `insert`, `delete`, `put`,
//! `put_along_axis`, `place` and `fill_diagonal`, plus `copy` and
//! `empty_like`.
//!
//! JAX arrays are immutable, so the NumPy functions that write in place
//! (`put`, `put_along_axis`, `place`, `fill_diagonal`) raise unless given
//! `inplace=False`, with JAX's messages. Every write is an `.at[...]`
//! scatter.

use crate::bail;
use crate::error::Result;
use crate::python::array::to_value;
use crate::python::builtins::to_int;
use crate::python::interp::Interp;
use crate::python::ops::getattr;
use crate::python::value::{Args, Obj};

use super::super::Builder;
use super::compose::flag;
use super::composed::{call, item, jnp, method, slice};

/// Adds the functions to `b`.
pub(super) fn register(b: &mut Builder) {
    b.func("insert", insert);
    b.func("delete", delete);
    b.func("put", put);
    b.func("put_along_axis", put_along_axis);
    b.func("place", place);
    b.func("fill_diagonal", fill_diagonal);
    b.func("copy", |i, a| {
        let x = arraylike(&a, 0, "a", "copy")?;
        jnp(i, "array", vec![x])
    });
    b.func("empty_like", |i, a| {
        let x = a.req(Some(0), "prototype", "empty_like")?;
        let dtype = a.get(Some(1), "dtype").unwrap_or(Obj::None);
        let shape = a.get(Some(2), "shape").unwrap_or(Obj::None);
        call(
            i,
            "zeros_like",
            vec![x],
            vec![("dtype", dtype), ("shape", shape)],
        )
    });
}

/// An array argument, refusing lists as `ensure_arraylike` does.
fn arraylike(a: &Args, i: usize, name: &str, func: &str) -> Result<Obj> {
    let o = super::composed::arraylike_arg(a, i, name, func)?;
    Ok(Obj::Array(to_value(&o)?))
}

fn shape(o: &Obj) -> Result<Vec<usize>> {
    Ok(to_value(o)?.shape())
}

/// Refuses an in-place write, as JAX does unless `inplace=False`.
fn not_inplace(a: &Args, index: Option<usize>, func: &str) -> Result<()> {
    if flag(a, index, "inplace", true)? {
        let gap = if func == "put_along_axis" { "" } else { " " };
        bail!(
            ValueError,
            "jax.numpy.{func} cannot modify arrays in-place, because JAX arrays{gap}are \
             immutable. Pass inplace=False to instead return an updated array."
        );
    }
    Ok(())
}

/// `x.at[index].set(values, mode=mode)`.
fn at_set(
    interp: &mut Interp,
    x: &Obj,
    index: Obj,
    values: Obj,
    mode: Option<&str>,
) -> Result<Obj> {
    let at = getattr(interp, x, "at")?;
    let slot = item(interp, &at, index)?;
    let f = getattr(interp, &slot, "set")?;
    let kw = match mode {
        Some(m) => vec![("mode".to_string(), Obj::str(m))],
        None => vec![],
    };
    interp.call(&f, Args::with(vec![values], kw))
}

/// A flat array repeated (and cut) to `size` elements.
fn tile_to_size(interp: &mut Interp, v: Obj, size: usize) -> Result<Obj> {
    let n = shape(&v)?[0];
    let v = match n < size {
        true => jnp(interp, "tile", vec![v, Obj::Int(size.div_ceil(n) as i64)])?,
        false => v,
    };
    match n == size {
        true => Ok(v),
        false => item(interp, &v, slice(None, Some(size as i64))),
    }
}

/// `index` with `axis` full slices in front.
fn along(axis: usize, index: Obj) -> Obj {
    let mut items = vec![slice(None, None); axis];
    items.push(index);
    Obj::tuple(items)
}

/// The array (flattened when `axis` is None) and the normalised axis.
fn with_axis(interp: &mut Interp, x: Obj, axis: Option<Obj>) -> Result<(Obj, usize)> {
    let (x, axis) = match axis {
        None => (jnp(interp, "ravel", vec![x])?, 0),
        Some(a) => (x, to_int(&a)?),
    };
    let axis = crate::ops::norm_axis(axis, shape(&x)?.len())?;
    Ok((x, axis))
}

/// `put(a, ind, v, mode=None, *, inplace=True)`.
fn put(interp: &mut Interp, a: Args) -> Result<Obj> {
    not_inplace(&a, None, "put")?;
    let x = arraylike(&a, 0, "a", "put")?;
    let ind = arraylike(&a, 1, "ind", "put")?;
    let v = arraylike(&a, 2, "v", "put")?;
    let mut ind = jnp(interp, "ravel", vec![ind])?;
    let v = jnp(interp, "ravel", vec![v])?;
    let size: usize = shape(&x)?.iter().product();
    let n = shape(&ind)?[0];
    if size == 0 || n == 0 || shape(&v)?[0] == 0 {
        return Ok(x);
    }
    let v = tile_to_size(interp, v, n)?;
    let mode = match a.opt(Some(3), "mode") {
        None => "drop",
        Some(Obj::Str(m)) if &*m == "clip" => {
            let hi = Obj::Int(size as i64 - 1);
            ind = jnp(interp, "clip", vec![ind, Obj::Int(0), hi])?;
            "promise_in_bounds"
        }
        Some(Obj::Str(m)) if &*m == "wrap" => {
            ind = jnp(interp, "remainder", vec![ind, Obj::Int(size as i64)])?;
            "promise_in_bounds"
        }
        Some(Obj::Str(m)) if &*m == "raise" => bail!(
            NotImplementedError,
            "The 'raise' mode to jnp.put is not supported."
        ),
        Some(m) => {
            let text = interp.repr(&m)?;
            bail!(
                ValueError,
                "mode should be one of 'wrap' or 'clip'; got mode={text}"
            )
        }
    };
    let dims = getattr(interp, &x, "shape")?;
    let index = jnp(interp, "unravel_index", vec![ind, dims])?;
    at_set(interp, &x, index, v, Some(mode))
}

/// `put_along_axis(arr, indices, values, axis, inplace=True, *,
/// mode=None)`: `values` written where `take_along_axis` would read.
fn put_along_axis(interp: &mut Interp, a: Args) -> Result<Obj> {
    not_inplace(&a, Some(4), "put_along_axis")?;
    let x = arraylike(&a, 0, "arr", "put_along_axis")?;
    let indices = arraylike(&a, 1, "indices", "put_along_axis")?;
    let values = arraylike(&a, 2, "values", "put_along_axis")?;
    let original = shape(&x)?;
    let axis = a.opt(Some(3), "axis");
    let flat = axis.is_none();
    let (x, axis) = with_axis(interp, x, axis)?;
    let (xs, is) = (shape(&x)?, shape(&indices)?);
    if xs.len() != is.len() {
        bail!(
            ValueError,
            "put_along_axis arguments 'arr' and 'indices' must have same ndim. Got arr.ndim={} \
             and indices.ndim={}.",
            xs.len(),
            is.len()
        );
    }
    let dims = Obj::tuple(is.iter().map(|&d| Obj::Int(d as i64)).collect());
    let values = match call(interp, "broadcast_to", vec![values.clone(), dims], vec![]) {
        Ok(v) => v,
        Err(_) => {
            let vs = getattr(interp, &values, "shape")?;
            let vs = interp.repr(&vs)?;
            let ids = getattr(interp, &indices, "shape")?;
            let ids = interp.repr(&ids)?;
            bail!(
                ValueError,
                "put_along_axis argument 'values' must be broadcastable to 'indices'. Got \
                 values.shape={vs} and indices.shape={ids}."
            )
        }
    };
    let mut index = vec![];
    for (d, &n) in xs.iter().enumerate() {
        if d == axis {
            index.push(indices.clone());
            continue;
        }
        let mut grid = vec![Obj::Int(1); xs.len()];
        grid[d] = Obj::Int(n as i64);
        let r = jnp(interp, "arange", vec![Obj::Int(n as i64)])?;
        index.push(method(interp, &r, "reshape", grid)?);
    }
    let mode = a
        .opt(None, "mode")
        .map(|m| crate::python::format::str_of(&m));
    let out = at_set(interp, &x, Obj::tuple(index), values, mode.as_deref())?;
    match flat {
        true => {
            let dims = original.iter().map(|&d| Obj::Int(d as i64)).collect();
            method(interp, &out, "reshape", vec![Obj::tuple(dims)])
        }
        false => Ok(out),
    }
}

/// `place(arr, mask, vals, *, inplace=True)`: `vals` (repeated) written
/// in order where `mask` is true.
fn place(interp: &mut Interp, a: Args) -> Result<Obj> {
    let x = arraylike(&a, 0, "arr", "place")?;
    let mask = arraylike(&a, 1, "mask", "place")?;
    let vals = arraylike(&a, 2, "vals", "place")?;
    let vals = jnp(interp, "ravel", vec![vals])?;
    not_inplace(&a, None, "place")?;
    let size: usize = shape(&x)?.iter().product();
    let msize: usize = shape(&mask)?.iter().product();
    if size != msize {
        bail!(ValueError, "place: arr and mask must be the same size");
    }
    if shape(&vals)?[0] == 0 {
        bail!(ValueError, "Cannot place values from an empty array");
    }
    if size == 0 {
        return Ok(x);
    }
    let flat_mask = jnp(interp, "ravel", vec![mask])?;
    let n = Obj::Int(msize as i64);
    let kw = vec![("size", n.clone()), ("fill_value", n)];
    let found = call(interp, "where", vec![flat_mask], kw)?;
    let indices = item(interp, &found, Obj::Int(0))?;
    let vals = tile_to_size(interp, vals, msize)?;
    let flat = jnp(interp, "ravel", vec![x.clone()])?;
    let out = at_set(interp, &flat, indices, vals, Some("drop"))?;
    let dims = getattr(interp, &x, "shape")?;
    method(interp, &out, "reshape", vec![dims])
}

/// `fill_diagonal(a, val, wrap=False, *, inplace=True)`.
fn fill_diagonal(interp: &mut Interp, a: Args) -> Result<Obj> {
    if flag(&a, None, "inplace", true)? {
        bail!(
            NotImplementedError,
            "JAX arrays are immutable, must use inplace=False"
        );
    }
    if flag(&a, Some(2), "wrap", false)? {
        bail!(
            NotImplementedError,
            "wrap=True is not implemented, must use wrap=False"
        );
    }
    let x = arraylike(&a, 0, "a", "fill_diagonal")?;
    let val = arraylike(&a, 1, "val", "fill_diagonal")?;
    let s = shape(&x)?;
    if s.len() < 2 {
        bail!(ValueError, "array must be at least 2-d");
    }
    if s.len() > 2 && s.iter().any(|&d| d != s[0]) {
        bail!(
            ValueError,
            "All dimensions of input must be of equal length"
        );
    }
    let n = s.iter().copied().min().unwrap_or(0);
    let idx = jnp(
        interp,
        "diag_indices",
        vec![Obj::Int(n as i64), Obj::Int(s.len() as i64)],
    )?;
    let val = match shape(&val)?.len() {
        0 => val,
        _ => {
            let flat = jnp(interp, "ravel", vec![val])?;
            tile_to_size(interp, flat, n)?
        }
    };
    at_set(interp, &x, idx, val, None)
}

/// `delete(arr, obj, axis=None, *, assume_unique_indices=False)`.
fn delete(interp: &mut Interp, a: Args) -> Result<Obj> {
    let x = arraylike(&a, 0, "arr", "delete")?;
    let obj = a.req(Some(1), "obj", "delete")?;
    let (x, axis) = with_axis(interp, x, a.opt(Some(2), "axis"))?;
    let n = shape(&x)?[axis];
    let mut unique = flag(&a, None, "assume_unique_indices", false)?;
    let single = match obj {
        Obj::Int(k) => Some(k),
        Obj::Bool(b) => Some(b as i64),
        _ => None,
    };
    if let Some(k) = single {
        let k = crate::ops::norm_axis(k, n)? as i64;
        let before = item(interp, &x, along(axis, slice(Some(0), Some(k))))?;
        let after = item(interp, &x, along(axis, slice(Some(k + 1), None)))?;
        let parts = Obj::list(vec![before, after]);
        return jnp(interp, "concatenate", vec![parts, Obj::Int(axis as i64)]);
    }
    let obj = match obj {
        Obj::Slice(_) => {
            unique = true;
            let r = jnp(interp, "arange", vec![Obj::Int(n as i64)])?;
            item(interp, &r, obj)?
        }
        Obj::List(_) | Obj::Tuple(_) => bail!(
            TypeError,
            "delete requires ndarray or scalar arguments, got <class '{}'> at position 1.",
            obj.type_name()
        ),
        other => Obj::Array(to_value(&other)?),
    };
    let v = to_value(&obj)?;
    if v.dtype().is_int() && unique {
        return delete_unique(interp, x, obj, axis, n);
    }
    let crate::trace::Value::Concrete(c) = &v else {
        bail!(
            ConcretizationTypeError,
            "Abstract tracer value encountered where concrete value is expected: 'obj' array \
             argument of jnp.delete()"
        );
    };
    let mut keep = vec![true; n];
    if v.dtype().is_int() {
        for k in 0..c.size() {
            let i = c.get_f64(k) as i64;
            keep[crate::ops::norm_axis(i, n).map_err(|_| {
                crate::err!(
                    IndexError,
                    "index {i} is out of bounds for axis 0 with size {n}"
                )
            })?] = false;
        }
    } else if v.dtype() == crate::array::DType::Bool {
        if c.shape() != [n] {
            bail!(
                ValueError,
                "np.delete(arr, obj): for boolean indices, obj must be one-dimensional with length \
                 matching specified axis."
            );
        }
        for (k, slot) in keep.iter_mut().enumerate() {
            *slot = c.get_f64(k) == 0.0;
        }
    } else {
        bail!(
            ValueError,
            "np.delete(arr, obj): got obj.dtype={}; must be integer or bool.",
            v.dtype().name()
        );
    }
    let mask = Obj::list(keep.into_iter().map(Obj::Bool).collect());
    let mask = jnp(interp, "array", vec![mask])?;
    item(interp, &x, along(axis, mask))
}

/// `delete` of integer indices known to be distinct: the kept positions
/// computed with array operations, so traced indices work.
fn delete_unique(interp: &mut Interp, x: Obj, obj: Obj, axis: usize, n: usize) -> Result<Obj> {
    let i = interp;
    let o = jnp(i, "ravel", vec![obj])?;
    let neg = jnp(i, "less", vec![o.clone(), Obj::Int(0)])?;
    let wrapped = jnp(i, "add", vec![o.clone(), Obj::Int(n as i64)])?;
    let o = jnp(i, "where", vec![neg, wrapped, o])?;
    let o = jnp(i, "clip", vec![o, Obj::Int(0), Obj::Int(n as i64)])?;
    let o = jnp(i, "sort", vec![o])?;
    let m = shape(&o)?[0];
    let dt = getattr(i, &o, "dtype")?;
    let r = call(
        i,
        "arange",
        vec![Obj::Int(m as i64)],
        vec![("dtype", dt.clone())],
    )?;
    let o = jnp(i, "subtract", vec![o, r])?;
    let kept = call(
        i,
        "arange",
        vec![Obj::Int((n - m) as i64)],
        vec![("dtype", dt.clone())],
    )?;
    let row = item(i, &kept, Obj::tuple(vec![Obj::None, slice(None, None)]))?;
    let col = item(i, &o, Obj::tuple(vec![slice(None, None), Obj::None]))?;
    let past = jnp(i, "greater_equal", vec![row, col])?;
    let shift = jnp(i, "sum", vec![past, Obj::Int(0)])?;
    let shift = method(i, &shift, "astype", vec![dt])?;
    let kept = jnp(i, "add", vec![kept, shift])?;
    item(i, &x, along(axis, kept))
}

/// `insert(arr, obj, values, axis=None)`: `values` put before the
/// positions `obj` names, by scattering both into a larger array.
fn insert(interp: &mut Interp, a: Args) -> Result<Obj> {
    let i = interp;
    let x = arraylike(&a, 0, "arr", "insert")?;
    let obj = a.req(Some(1), "obj", "insert")?;
    let values = arraylike(&a, 2, "values", "insert")?;
    let (x, axis) = with_axis(i, x, a.opt(Some(3), "axis"))?;
    let xs = shape(&x)?;
    let n_input = xs[axis] as i64;
    let mut indices = match &obj {
        Obj::Slice(_) => {
            let r = jnp(i, "arange", vec![Obj::Int(n_input)])?;
            item(i, &r, obj.clone())?
        }
        Obj::List(_) | Obj::Tuple(_) => bail!(
            TypeError,
            "insert requires ndarray or scalar arguments, got <class '{}'> at position 1.",
            obj.type_name()
        ),
        _ => jnp(i, "asarray", vec![obj.clone()])?,
    };
    let iv = to_value(&indices)?;
    if iv.ndim() > 1 {
        let text = crate::python::format::str_of(&obj);
        bail!(
            ValueError,
            "jnp.insert(): obj must be a slice, a one-dimensional array, or a scalar; got {text}"
        );
    }
    if !iv.dtype().is_int() {
        let text = crate::python::format::str_of(&obj);
        bail!(
            ValueError,
            "jnp.insert(): index array must be integer typed; got {text}"
        );
    }
    let dt = Obj::DType(to_value(&x)?.dtype());
    let values = call(i, "array", vec![values], vec![("dtype", dt)])?;
    let mut values = super::composed::ndmin(&values, xs.len())?;
    if iv.shape().iter().product::<usize>() == 1 {
        let flat = jnp(i, "ravel", vec![indices.clone()])?;
        let index = item(i, &flat, Obj::Int(0))?;
        if iv.ndim() == 0 {
            values = jnp(
                i,
                "moveaxis",
                vec![values, Obj::Int(0), Obj::Int(axis as i64)],
            )?;
        }
        let count = Obj::Int(shape(&values)?[axis] as i64);
        indices = jnp(i, "full", vec![count, index])?;
    }
    scatter_insert(i, x, axis, indices, values)
}

/// Writes `values` at the shifted `indices` along `axis` of a grown array
/// and the original elements everywhere else.
fn scatter_insert(i: &mut Interp, x: Obj, axis: usize, indices: Obj, values: Obj) -> Result<Obj> {
    let xs = shape(&x)?;
    let n_input = xs[axis];
    let vn = shape(&values)?[axis];
    let inn = shape(&indices)?[0];
    let n_insert = match (inn, vn) {
        (a, b) if a == b || b == 1 => a,
        (1, b) => b,
        _ => bail!(
            ValueError,
            "Incompatible shapes for broadcasting: shapes=[({inn},), ({vn},)]"
        ),
    };
    let mut out_shape: Vec<Obj> = xs.iter().map(|&d| Obj::Int(d as i64)).collect();
    out_shape[axis] = Obj::Int((n_input + n_insert) as i64);
    let out = call(
        i,
        "zeros_like",
        vec![x.clone()],
        vec![("shape", Obj::tuple(out_shape))],
    )?;
    let neg = jnp(i, "less", vec![indices.clone(), Obj::Int(0)])?;
    let wrapped = jnp(i, "add", vec![indices.clone(), Obj::Int(n_input as i64)])?;
    let idx = jnp(i, "where", vec![neg, wrapped, indices])?;
    let idx = jnp(i, "clip", vec![idx, Obj::Int(0), Obj::Int(n_input as i64)])?;
    let order = jnp(i, "argsort", vec![idx.clone()])?;
    let dt = getattr(i, &idx, "dtype")?;
    let steps = call(
        i,
        "arange",
        vec![Obj::Int(n_insert as i64)],
        vec![("dtype", dt)],
    )?;
    let at = getattr(i, &idx, "at")?;
    let slot = item(i, &at, order)?;
    let values_ind = method(i, &slot, "add", vec![steps])?;
    let total = Obj::Int((n_input + n_insert) as i64);
    let bools = Obj::DType(crate::array::DType::Bool);
    let ones = call(i, "ones", vec![total], vec![("dtype", bools)])?;
    let mask = at_set(i, &ones, values_ind.clone(), Obj::Bool(false), None)?;
    let kw = vec![("size", Obj::Int(n_input as i64))];
    let found = call(i, "where", vec![mask], kw)?;
    let arr_ind = item(i, &found, Obj::Int(0))?;
    let out = at_set(i, &out, along(axis, values_ind), values, None)?;
    at_set(i, &out, along(axis, arr_ind), x, None)
}
