//! jnp functions that take Python functions and build their result with
//! `jax.vmap` and `lax.switch`, as JAX writes them: `piecewise`,
//! `apply_along_axis`, `apply_over_axes` and `fromfunction`. Because the
//! maps are real `vmap`s, the given functions see one element (or one 1-D
//! slice) at a time and work under `jit`, `grad` and an outer `vmap`.

use crate::bail;
use crate::error::Result;
use crate::python::interp::Interp;
use crate::python::ops::{getattr, iterate};
use crate::python::value::{Args, Obj};

use super::super::Builder;
use super::composed::{call, item, jnp, lib_function, method, slice};

/// Adds the functions to `b`.
pub(super) fn register(b: &mut Builder) {
    b.func("piecewise", piecewise);
    b.func("apply_along_axis", apply_along_axis);
    b.func("apply_over_axes", apply_over_axes);
    b.func("fromfunction", fromfunction);
}

/// `jax.vmap(f, in_axes=..., out_axes=...)`.
fn vmap(interp: &mut Interp, f: Obj, in_axes: Obj, out_axes: Obj) -> Result<Obj> {
    let vmap = lib_function(interp, "jax", "vmap")?;
    let kw = vec![("in_axes".into(), in_axes), ("out_axes".into(), out_axes)];
    interp.call(&vmap, Args::with(vec![f], kw))
}

/// An array argument that must not be a list or tuple (`ensure_arraylike`).
fn arraylike(o: Obj, func: &str, pos: usize) -> Result<Obj> {
    if matches!(o, Obj::List(_) | Obj::Tuple(_)) {
        bail!(
            TypeError,
            "{func} requires ndarray or scalar arguments, got <class '{}'> at position {pos}.",
            o.type_name()
        );
    }
    Ok(o)
}

/// `piecewise(x, condlist, funclist, *args, **kw)`: at each element, the
/// function (or constant) of the last true condition, or of the default
/// (the extra last entry of `funclist`, else 0); every result is cast to
/// `x`'s dtype.
fn piecewise(interp: &mut Interp, a: Args) -> Result<Obj> {
    a.read_all();
    let x = arraylike(a.req(Some(0), "x", "piecewise")?, "piecewise", 0)?;
    let condlist = a.req(Some(1), "condlist", "piecewise")?;
    let mut funcs = iterate(&a.req(Some(2), "funclist", "piecewise")?)?;
    let nc = crate::python::builtins::len_of(&condlist)?;
    let nf = funcs.len() as i64;
    if nf == nc + 1 {
        funcs.rotate_right(1);
    } else if nf == nc {
        funcs.insert(0, Obj::Int(0));
    } else {
        bail!(
            ValueError,
            "with {nc} condition(s), either {nc} or {} functions are expected; got {nf}",
            nc + 1
        );
    }
    // JAX passes the extra arguments through `jit`: the functions see
    // them as arrays.
    let extra: Vec<Obj> = a
        .pos
        .iter()
        .skip(3)
        .map(|o| call(interp, "asarray", vec![o.clone()], vec![]))
        .collect::<Result<_>>()?;
    let kw: Vec<(String, Obj)> =
        a.kw.iter()
            .filter(|(k, _)| !["x", "condlist", "funclist"].contains(&k.as_str()))
            .map(|(k, o)| Ok((k.clone(), call(interp, "asarray", vec![o.clone()], vec![])?)))
            .collect::<Result<_>>()?;
    let x = call(interp, "asarray", vec![x], vec![])?;
    let bools = Obj::DType(crate::array::DType::Bool);
    let conds = call(interp, "asarray", vec![condlist], vec![("dtype", bools)])?;
    // The index of the last true condition (0 for none): the first place
    // the running count of true conditions reaches its maximum.
    let first = item(interp, &conds, slice(None, Some(1)))?;
    let zero = call(interp, "zeros_like", vec![first], vec![])?;
    let stacked = call(
        interp,
        "concatenate",
        vec![Obj::list(vec![zero, conds])],
        vec![],
    )?;
    let counts = call(interp, "cumsum", vec![stacked, Obj::Int(0)], vec![])?;
    let indices = call(interp, "argmax", vec![counts, Obj::Int(0)], vec![])?;
    let dtype = getattr(interp, &x, "dtype")?;
    let branches = funcs
        .into_iter()
        .map(|f| branch(f, dtype.clone(), extra.clone(), kw.clone()))
        .collect();
    let switch = lib_function(interp, "jax.lax", "switch")?;
    let excluded = Obj::tuple(vec![Obj::Int(1)]);
    let mapped = call(
        interp,
        "vectorize",
        vec![switch],
        vec![("excluded", excluded)],
    )?;
    interp.call(&mapped, Args::new(vec![indices, Obj::list(branches), x]))
}

/// One branch of `piecewise`: the function applied to the element and the
/// extra arguments, or the constant, as `dtype`.
fn branch(f: Obj, dtype: Obj, extra: Vec<Obj>, kw: Vec<(String, Obj)>) -> Obj {
    if !crate::python::builtins::is_callable(&f) {
        return Obj::native("constant", move |i, _| {
            call(i, "array", vec![f.clone()], vec![("dtype", dtype.clone())])
        });
    }
    Obj::native("branch", move |i, c| {
        let mut pos = c.pos;
        pos.extend(extra.iter().cloned());
        let out = i.call(&f, Args::with(pos, kw.clone()))?;
        method(i, &out, "astype", vec![dtype.clone()])
    })
}

/// `apply_along_axis(func1d, axis, arr, *args, **kwargs)`: `func1d` of
/// every 1-D slice along `axis`, by one `vmap` per other dimension; the
/// slices' results take the place of `axis`.
fn apply_along_axis(interp: &mut Interp, a: Args) -> Result<Obj> {
    a.read_all();
    let func1d = a.req(Some(0), "func1d", "apply_along_axis")?;
    let axis = crate::python::builtins::to_int(&a.req(Some(1), "axis", "apply_along_axis")?)?;
    let arr = arraylike(
        a.req(Some(2), "arr", "apply_along_axis")?,
        "apply_along_axis",
        0,
    )?;
    let ndim = crate::python::array::to_value(&arr)?.ndim();
    let axis = crate::ops::norm_axis(axis, ndim)?;
    let extra: Vec<Obj> = a.pos.iter().skip(3).cloned().collect();
    let kw: Vec<(String, Obj)> =
        a.kw.iter()
            .filter(|(k, _)| !["func1d", "axis", "arr"].contains(&k.as_str()))
            .cloned()
            .collect();
    let mut func = Obj::native("func1d", move |i, c| {
        let mut pos = c.pos;
        pos.extend(extra.iter().cloned());
        i.call(&func1d, Args::with(pos, kw.clone()))
    });
    // The slices' axis moved last and every other axis mapped in order;
    // the dimensions after `axis` then move behind the slices' results,
    // where JAX's `out_axes=-1` maps put them.
    for _ in 0..ndim - 1 {
        func = vmap(interp, func, Obj::Int(0), Obj::Int(0))?;
    }
    let moved = jnp(
        interp,
        "moveaxis",
        vec![arr, Obj::Int(axis as i64), Obj::Int(-1)],
    )?;
    let out = interp.call(&func, Args::new(vec![moved]))?;
    let rank = ndim_of(&out)?;
    let k = rank + 1 - ndim;
    let order: Vec<Obj> = (0..axis)
        .chain(ndim - 1..ndim - 1 + k)
        .chain(axis..ndim - 1)
        .map(|d| Obj::Int(d as i64))
        .collect();
    jnp(interp, "transpose", vec![out, Obj::tuple(order)])
}

/// `apply_over_axes(func, a, axes)`: `func(a, axis)` for each axis in
/// turn, a reduced axis put back as size 1.
fn apply_over_axes(interp: &mut Interp, a: Args) -> Result<Obj> {
    let func = a.req(Some(0), "func", "apply_over_axes")?;
    let x = arraylike(
        a.req(Some(1), "a", "apply_over_axes")?,
        "apply_over_axes",
        0,
    )?;
    let mut x = call(interp, "asarray", vec![x], vec![])?;
    for axis in iterate(&a.req(Some(2), "axes", "apply_over_axes")?)? {
        let b = interp.call(&func, Args::new(vec![x.clone(), axis.clone()]))?;
        let (nb, nx) = (ndim_of(&b)?, ndim_of(&x)?);
        x = if nb == nx {
            b
        } else if nb + 1 == nx {
            call(interp, "expand_dims", vec![b, axis], vec![])?
        } else {
            bail!(
                ValueError,
                "function is not returning an array of the correct shape"
            );
        };
    }
    Ok(x)
}

fn ndim_of(o: &Obj) -> Result<usize> {
    Ok(crate::python::array::to_value(o)?.ndim())
}

/// `fromfunction(function, shape, *, dtype=float, **kwargs)`: `function`
/// of the index grids, by one `vmap` per dimension over `arange`s.
fn fromfunction(interp: &mut Interp, a: Args) -> Result<Obj> {
    a.read_all();
    let mut func = a.req(Some(0), "function", "fromfunction")?;
    let shape = super::shape_of(&a.req(Some(1), "shape", "fromfunction")?)?;
    let dtype = a
        .opt(None, "dtype")
        .unwrap_or(Obj::DType(crate::array::DType::F32));
    let n = shape.len();
    for i in 0..n {
        let axes = (0..n)
            .map(|j| match j == n - 1 - i {
                true => Obj::Int(0),
                false => Obj::None,
            })
            .collect();
        func = vmap(interp, func, Obj::tuple(axes), Obj::Int(0))?;
    }
    let grids = shape
        .iter()
        .map(|&s| {
            call(
                interp,
                "arange",
                vec![Obj::Int(s as i64)],
                vec![("dtype", dtype.clone())],
            )
        })
        .collect::<Result<Vec<_>>>()?;
    let kw: Vec<(String, Obj)> =
        a.kw.iter()
            .filter(|(k, _)| !["function", "shape", "dtype"].contains(&k.as_str()))
            .cloned()
            .collect();
    interp.call(&func, Args::with(grids, kw))
}
