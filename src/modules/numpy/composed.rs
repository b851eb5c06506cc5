//! jnp functions that JAX writes with other jnp functions: `concat`,
//! `divmod`, `cumulative_sum`/`cumulative_prod`, `broadcast_arrays`,
//! `array_equiv`, `ediff1d`, `compress`/`extract` and the windows
//! (`bartlett`, `blackman`, `hamming`, `hanning`). Each calls the jnp
//! functions JAX's own composition calls, so the dtypes, errors and
//! staged operations are theirs.

use crate::array::DType;
use crate::bail;
use crate::error::Result;
use crate::python::builtins::to_int;
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};

use super::super::Builder;

/// Adds the functions to `b`.
pub(super) fn register(b: &mut Builder) {
    b.func("concat", concat);
    b.func("divmod", divmod);
    b.func("cumulative_sum", |i, a| cumulative(i, a, "cumulative_sum"));
    b.func("cumulative_prod", |i, a| {
        cumulative(i, a, "cumulative_prod")
    });
    b.func("broadcast_arrays", broadcast_arrays);
    b.func("array_equiv", array_equiv);
    b.func("ediff1d", ediff1d);
    b.func("compress", compress);
    b.func("extract", extract);
    for name in ["bartlett", "blackman", "hamming", "hanning"] {
        b.func(name, move |i, a| window(i, a, name));
    }
}

/// `jnp.NAME(*pos, **kw)`.
pub(in crate::modules) fn call(
    interp: &mut Interp,
    name: &str,
    pos: Vec<Obj>,
    kw: Vec<(&str, Obj)>,
) -> Result<Obj> {
    let f = super::jnp_function(interp, name)?;
    let kw = kw.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    interp.call(&f, Args::with(pos, kw))
}

/// An array argument, refusing lists and tuples as jnp's
/// `ensure_arraylike` does (naming the function and the position).
pub(super) fn arraylike_arg(a: &Args, i: usize, name: &str, func: &str) -> Result<Obj> {
    let o = a.req(Some(i), name, func)?;
    if matches!(o, Obj::List(_) | Obj::Tuple(_)) {
        bail!(
            TypeError,
            "{func} requires ndarray or scalar arguments, got <class '{}'> at position {i}.",
            o.type_name()
        );
    }
    Ok(o)
}

/// `jnp.NAME(*pos)`.
pub(super) fn jnp(interp: &mut Interp, name: &str, pos: Vec<Obj>) -> Result<Obj> {
    call(interp, name, pos, vec![])
}

/// `module.name`, for the jax functions jnp's compositions call
/// (`jax.vmap`, `jax.lax.while_loop`).
pub(super) fn lib_function(interp: &mut Interp, module: &str, name: &str) -> Result<Obj> {
    let m = super::super::import(interp, module)?;
    crate::python::ops::getattr(interp, &m, name)
}

/// The two items of a pair (a tuple or list a function returned).
pub(super) fn pair(o: &Obj) -> Result<(Obj, Obj)> {
    let mut items = crate::python::ops::iterate(o)?.into_iter();
    match (items.next(), items.next()) {
        (Some(a), Some(b)) => Ok((a, b)),
        _ => bail!(ValueError, "not enough values to unpack (expected 2)"),
    }
}

/// `x` as an array of at least `n` dimensions, ones put in front
/// (`jnp.array(x, ndmin=n)`).
pub(super) fn ndmin(x: &Obj, n: usize) -> Result<Obj> {
    let v = crate::python::array::to_value(x)?;
    if v.ndim() >= n {
        return Ok(Obj::Array(v));
    }
    let mut shape = vec![1; n - v.ndim()];
    shape.extend(v.shape());
    Ok(Obj::Array(crate::ops::reshape(&v, &shape)?))
}

/// `x.METHOD(*pos)`.
pub(super) fn method(interp: &mut Interp, x: &Obj, name: &str, pos: Vec<Obj>) -> Result<Obj> {
    let m = crate::python::ops::getattr(interp, x, name)?;
    interp.call(&m, Args::with(pos, vec![]))
}

/// `x[index]`.
pub(super) fn item(interp: &mut Interp, x: &Obj, index: Obj) -> Result<Obj> {
    crate::python::ops::getitem(interp, x, &index)
}

/// The slice `lo:hi`.
pub(super) fn slice(lo: Option<i64>, hi: Option<i64>) -> Obj {
    let bound = |v: Option<i64>| v.map_or(Obj::None, Obj::Int);
    Obj::Slice(std::rc::Rc::new([bound(lo), bound(hi), Obj::None]))
}

/// `concat(arrays, /, *, axis=0)`: the Array API's name for `concatenate`.
fn concat(interp: &mut Interp, a: Args) -> Result<Obj> {
    let arrays = a.req(Some(0), "arrays", "concat")?;
    let axis = a.opt(None, "axis").unwrap_or(Obj::Int(0));
    call(interp, "concatenate", vec![arrays], vec![("axis", axis)])
}

/// `divmod(x1, x2)`: `(floor_divide, remainder)` of the promoted operands.
fn divmod(interp: &mut Interp, a: Args) -> Result<Obj> {
    let x = a.req(Some(0), "x1", "divmod")?;
    let y = a.req(Some(1), "x2", "divmod")?;
    let q = call(interp, "floor_divide", vec![x.clone(), y.clone()], vec![])?;
    let r = call(interp, "remainder", vec![x, y], vec![])?;
    Ok(Obj::tuple(vec![q, r]))
}

/// `cumulative_sum`/`cumulative_prod(x, /, *, axis=None, dtype=None,
/// include_initial=False)`: `cumsum`/`cumprod`, with the identity put in
/// front along `axis` when asked.
fn cumulative(interp: &mut Interp, a: Args, name: &str) -> Result<Obj> {
    let x = super::arr(&a, 0, "x", name)?;
    let what = if name == "cumulative_sum" {
        "sum"
    } else {
        "product"
    };
    if x.ndim() == 0 {
        bail!(
            ValueError,
            "The input must be non-scalar to take a cumulative {what}, however a scalar value \
             or scalar array was given."
        );
    }
    let axis = match a.opt(None, "axis") {
        Some(o) => to_int(&o)?,
        None if x.ndim() > 1 => bail!(
            ValueError,
            "The input array has rank {}, however axis was not set to an explicit value. The \
             axis argument is only optional for one-dimensional arrays.",
            x.ndim()
        ),
        None => 0,
    };
    let axis = crate::ops::norm_axis(axis, x.ndim())? as i64;
    let dtype = a.opt(None, "dtype").unwrap_or(Obj::None);
    let initial = match a.opt(None, "include_initial") {
        Some(o) => crate::python::ops::truthy(&o, "include_initial")?,
        None => false,
    };
    let scan = if name == "cumulative_sum" {
        "cumsum"
    } else {
        "cumprod"
    };
    let kw = vec![("axis", Obj::Int(axis)), ("dtype", dtype)];
    let out = call(interp, scan, vec![Obj::Array(x.clone())], kw)?;
    if !initial {
        return Ok(out);
    }
    let Obj::Array(v) = &out else {
        bail!(TypeError, "{scan} returned a non-array");
    };
    let mut shape = x.shape();
    shape[axis as usize] = 1;
    let unit = if name == "cumulative_sum" { 0.0 } else { 1.0 };
    let first = crate::ops::broadcast_to(&crate::ops::scalar(unit, v.dtype()), &shape)?;
    let parts = Obj::list(vec![Obj::Array(first), out.clone()]);
    call(
        interp,
        "concatenate",
        vec![parts],
        vec![("axis", Obj::Int(axis))],
    )
}

/// `broadcast_arrays(*args)`: each argument broadcast to the common shape,
/// as a list.
fn broadcast_arrays(interp: &mut Interp, a: Args) -> Result<Obj> {
    let values = a
        .pos
        .iter()
        .map(crate::python::array::to_value)
        .collect::<Result<Vec<_>>>()?;
    let mut shape: Vec<usize> = vec![];
    for v in &values {
        shape = crate::array::broadcast::broadcast_shapes(&shape, &v.shape())?;
    }
    let dims = Obj::tuple(shape.iter().map(|&d| Obj::Int(d as i64)).collect());
    let out = values
        .into_iter()
        .map(|v| match v.shape() == shape {
            true => Ok(Obj::Array(v)),
            false => call(
                interp,
                "broadcast_to",
                vec![Obj::Array(v), dims.clone()],
                vec![],
            ),
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Obj::list(out))
}

/// `array_equiv(a1, a2)`: `all(a1 == a2)`. JAX means to answer False for
/// shapes that do not broadcast, but its `equal` raises a TypeError first,
/// and so does this.
fn array_equiv(interp: &mut Interp, a: Args) -> Result<Obj> {
    let x = super::arr(&a, 0, "a1", "array_equiv")?;
    let y = super::arr(&a, 1, "a2", "array_equiv")?;
    let eq = call(interp, "equal", vec![Obj::Array(x), Obj::Array(y)], vec![])?;
    call(interp, "all", vec![eq], vec![])
}

/// `ediff1d(ary, to_end=None, to_begin=None)`: the differences of the
/// flattened array, with `to_begin`/`to_end` (cast to its dtype) around.
fn ediff1d(interp: &mut Interp, a: Args) -> Result<Obj> {
    let x = super::arr(&a, 0, "ary", "ediff1d")?;
    let dtype = Obj::DType(x.dtype());
    let flat = call(interp, "ravel", vec![Obj::Array(x)], vec![])?;
    let hi = item(interp, &flat, slice(Some(1), None))?;
    let lo = item(interp, &flat, slice(None, Some(-1)))?;
    let mut parts = vec![call(interp, "subtract", vec![hi, lo], vec![])?];
    for (k, name) in [(2, "to_begin"), (1, "to_end")] {
        let Some(extra) = a.opt(Some(k), name) else {
            continue;
        };
        let extra = Obj::Array(crate::python::array::to_value(&extra)?);
        let cast = method(interp, &extra, "astype", vec![dtype.clone()])?;
        let flat = call(interp, "ravel", vec![cast], vec![])?;
        match name {
            "to_begin" => parts.insert(0, flat),
            _ => parts.push(flat),
        }
    }
    match parts.len() {
        1 => Ok(parts.remove(0)),
        _ => call(interp, "concatenate", vec![Obj::list(parts)], vec![]),
    }
}

/// `extract(condition, arr, *, size=None, fill_value=0)`: `compress` of
/// both flattened.
fn extract(interp: &mut Interp, a: Args) -> Result<Obj> {
    let c = a.req(Some(0), "condition", "extract")?;
    let x = a.req(Some(1), "arr", "extract")?;
    let c = call(interp, "ravel", vec![c], vec![])?;
    let x = call(interp, "ravel", vec![x], vec![])?;
    let mut kw = vec![];
    for name in ["size", "fill_value"] {
        if let Some(v) = a.opt(None, name) {
            kw.push((name, v));
        }
    }
    compress_values(interp, c, x, None, kw)
}

/// `compress(condition, a, axis=None, *, size=None, fill_value=0)`.
fn compress(interp: &mut Interp, a: Args) -> Result<Obj> {
    let c = a.req(Some(0), "condition", "compress")?;
    let x = a.req(Some(1), "a", "compress")?;
    let axis = a.opt(Some(2), "axis").map(|o| to_int(&o)).transpose()?;
    let mut kw = vec![];
    for name in ["size", "fill_value"] {
        if let Some(v) = a.opt(None, name) {
            kw.push((name, v));
        }
    }
    compress_values(interp, c, x, axis, kw)
}

/// The rows of `x` (along `axis`, or of the flattened array) where the
/// bool `c` is true; with `size`, the first `size` of them, then rows of
/// `fill_value`.
fn compress_values(
    interp: &mut Interp,
    c: Obj,
    x: Obj,
    axis: Option<i64>,
    kw: Vec<(&str, Obj)>,
) -> Result<Obj> {
    let c = crate::python::array::to_value(&c)?;
    if c.ndim() != 1 {
        bail!(ValueError, "condition must be a 1D array");
    }
    let c = Obj::Array(crate::ops::convert(&c, DType::Bool)?);
    let x = Obj::Array(crate::python::array::to_value(&x)?);
    let (x, axis) = match axis {
        None => (call(interp, "ravel", vec![x], vec![])?, 0),
        Some(ax) => (
            call(
                interp,
                "moveaxis",
                vec![x, Obj::Int(ax), Obj::Int(0)],
                vec![],
            )?,
            ax,
        ),
    };
    let n = shape_of(&x)[0] as i64;
    let (c, extra) = (
        item(interp, &c, slice(None, Some(n)))?,
        item(interp, &c, slice(Some(n), None))?,
    );
    let x = item(interp, &x, slice(None, Some(shape_of(&c)[0] as i64)))?;
    let size = kw
        .iter()
        .find(|(k, _)| *k == "size")
        .map(|(_, v)| v.clone());
    let result = match size {
        None | Some(Obj::None) => {
            let any = call(interp, "any", vec![extra], vec![])?;
            if crate::python::ops::truthy(&any, "any")? {
                bail!(
                    ValueError,
                    "condition contains entries that are out of bounds"
                );
            }
            item(interp, &x, c)?
        }
        Some(size) => sized(interp, x, c, to_int(&size)?, &kw)?,
    };
    call(
        interp,
        "moveaxis",
        vec![result, Obj::Int(0), Obj::Int(axis)],
        vec![],
    )
}

/// The `size=` form of `compress`: every row not kept becomes `fill_value`,
/// a stable descending sort of the condition puts the kept rows first.
fn sized(interp: &mut Interp, x: Obj, c: Obj, size: i64, kw: &[(&str, Obj)]) -> Result<Obj> {
    let shape = shape_of(&x);
    let n = shape[0] as i64;
    if !(0..=n).contains(&size) {
        bail!(
            ValueError,
            "size must be positive and not greater than the size of the array axis; got \
             size={size} for a.shape[axis]={n}"
        );
    }
    let fill = kw
        .iter()
        .find(|(k, _)| *k == "fill_value")
        .map_or(Obj::Int(0), |(_, v)| v.clone());
    let dtype = match &x {
        Obj::Array(v) => v.dtype(),
        _ => DType::F32,
    };
    let fill = call(
        interp,
        "array",
        vec![fill],
        vec![("dtype", Obj::DType(dtype))],
    )?;
    let axes: Vec<Obj> = (1..shape.len() as i64).map(Obj::Int).collect();
    let mask = call(
        interp,
        "expand_dims",
        vec![c.clone(), Obj::tuple(axes)],
        vec![],
    )?;
    let x = call(interp, "where", vec![mask, x, fill], vec![])?;
    let kw = vec![("stable", Obj::Bool(true)), ("descending", Obj::Bool(true))];
    let order = call(interp, "argsort", vec![c], kw)?;
    let rows = item(interp, &x, order)?;
    item(interp, &rows, slice(None, Some(size)))
}

/// The shape of an array result (jnp functions return arrays).
fn shape_of(x: &Obj) -> Vec<usize> {
    match x {
        Obj::Array(v) => v.shape(),
        _ => vec![0],
    }
}

/// The windows of length `M`: one cosine sum (or the triangle) of
/// `n = iota(M)` in float32; `M <= 1` gives ones.
fn window(interp: &mut Interp, a: Args, name: &str) -> Result<Obj> {
    let m = to_int(&a.req(Some(0), "M", name)?)?;
    if m <= 1 {
        let shape = Obj::tuple(vec![Obj::Int(m.max(0))]);
        return call(
            interp,
            "ones",
            vec![shape],
            vec![("dtype", Obj::DType(DType::F32))],
        );
    }
    let n = crate::array::Array::iota(&[m as usize], 0, DType::F32)?;
    let n = Obj::Array(crate::trace::Value::Concrete(n));
    let pi = std::f64::consts::PI;
    let last = Obj::Int(m - 1);
    let bin = |interp: &mut Interp, op: &str, x: Obj, y: Obj| call(interp, op, vec![x, y], vec![]);
    // cos(k * pi * n / (M - 1)), grouped as JAX groups it.
    let cos = |interp: &mut Interp, k: f64| -> Result<Obj> {
        let t = bin(interp, "multiply", Obj::Float(k * pi), n.clone())?;
        let t = bin(interp, "true_divide", t, last.clone())?;
        call(interp, "cos", vec![t], vec![])
    };
    match name {
        "bartlett" => {
            let t = bin(interp, "multiply", Obj::Int(2), n.clone())?;
            let t = bin(interp, "add", t, Obj::Int(1))?;
            let t = bin(interp, "subtract", t, Obj::Int(m))?;
            let t = call(interp, "abs", vec![t], vec![])?;
            let t = bin(interp, "true_divide", t, last.clone())?;
            bin(interp, "subtract", Obj::Int(1), t)
        }
        "blackman" => {
            let c2 = cos(interp, 2.0)?;
            let t = bin(interp, "multiply", Obj::Float(0.5), c2)?;
            let t = bin(interp, "subtract", Obj::Float(0.42), t)?;
            let c4 = cos(interp, 4.0)?;
            let u = bin(interp, "multiply", Obj::Float(0.08), c4)?;
            bin(interp, "add", t, u)
        }
        "hamming" => {
            let c2 = cos(interp, 2.0)?;
            let t = bin(interp, "multiply", Obj::Float(0.46), c2)?;
            bin(interp, "subtract", Obj::Float(0.54), t)
        }
        _ => {
            let c2 = cos(interp, 2.0)?;
            let t = bin(interp, "subtract", Obj::Int(1), c2)?;
            bin(interp, "multiply", Obj::Float(0.5), t)
        }
    }
}

/// `lax.slice_in_dim(x, lo, hi, axis=axis)`.
pub(super) fn in_dim(
    interp: &mut Interp,
    x: &Obj,
    lo: Option<i64>,
    hi: Option<i64>,
    axis: usize,
) -> Result<Obj> {
    let mut index = vec![slice(None, None); axis];
    index.push(slice(lo, hi));
    item(interp, x, Obj::tuple(index))
}
