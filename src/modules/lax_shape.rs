//! `jax.lax`'s shape functions: `transpose`, `reshape`, `rev`, `squeeze`,
//! `expand_dims`, `concatenate`, `split`, `collapse`, `broadcast_to_rank`,
//! `broadcast_shapes`, the iotas, `full`/`full_like`/`empty` and the
//! one-axis dynamic slicing helpers.
//!
//! They are the engine's structural operations under lax's stricter
//! contracts: explicit permutations and dimensions, no dtype promotion,
//! scalar fill values. `split` and `collapse` are static slices and a
//! reshape, as JAX writes them; `empty` gives zeros, one of the values an
//! uninitialised buffer may hold.

use crate::array::{shape_tuple, Array, DType};
use crate::bail;
use crate::error::Result;
use crate::ops as jops;
use crate::python::array::to_value;
use crate::python::builtins::to_int;
use crate::python::ops::{iterate, truthy};
use crate::python::value::{Args, Obj};
use crate::trace::Value;

use super::lax_structural::ints;
use super::Builder;

/// Adds the functions to `b`.
pub(super) fn register(b: &mut Builder) {
    b.func("transpose", |_, a| transpose(&a));
    b.func("reshape", |_, a| reshape(&a));
    b.func("rev", |_, a| {
        let x = operand(&a, "rev")?;
        let o = a.req(Some(1), "dimensions", "rev")?;
        let given = iterate(&o)?
            .iter()
            .map(to_int)
            .collect::<Result<Vec<_>>>()?;
        if given.iter().any(|&d| d < 0) {
            bail!(
                TypeError,
                "rev dimensions must have every element be nonnegative, got {}.",
                crate::python::format::repr_of(&Obj::tuple(
                    given.into_iter().map(Obj::Int).collect()
                ))
            );
        }
        let dims = axes(&o, x.ndim())?;
        Ok(Obj::Array(jops::rev(&x, &dims)?))
    });
    b.func("squeeze", |_, a| squeeze(&a));
    b.func("expand_dims", |_, a| {
        let x = to_value(&a.req(Some(0), "array", "expand_dims")?)?;
        let dims = iterate(&a.req(Some(1), "dimensions", "expand_dims")?)?
            .iter()
            .map(to_int)
            .collect::<Result<Vec<_>>>()?;
        Ok(Obj::Array(jops::expand_dims_at(&x, &dims)?))
    });
    b.func("concatenate", |_, a| concatenate(&a));
    b.func("split", |_, a| split(&a));
    b.func("collapse", |_, a| collapse(&a));
    b.func("broadcast_to_rank", |_, a| {
        let x = to_value(&a.req(Some(0), "x", "broadcast_to_rank")?)?;
        let rank = to_int(&a.req(Some(1), "rank", "broadcast_to_rank")?)?;
        let n = x.ndim() as i64;
        if rank < n {
            bail!(ValueError, "Rank must be at least {n}, got {rank}.");
        }
        let mut shape = vec![1; (rank - n) as usize];
        shape.extend(x.shape());
        Ok(Obj::Array(jops::broadcast_to(&x, &shape)?))
    });
    b.func("broadcast_shapes", |_, a| broadcast_shapes(&a));
    b.func("iota", |_, a| {
        let d = super::numpy::dtype_of(&a.req(Some(0), "dtype", "iota")?)?;
        let n = to_int(&a.req(Some(1), "size", "iota")?)?;
        let n = usize::try_from(n).map_err(|_| crate::err!(TypeError, "negative size {n}"))?;
        Ok(Obj::Array(iota(d, &[n], 0)?))
    });
    b.func("broadcasted_iota", |_, a| {
        let d = super::numpy::dtype_of(&a.req(Some(0), "dtype", "broadcasted_iota")?)?;
        let shape = ints(&a.req(Some(1), "shape", "broadcasted_iota")?)?;
        let dim = to_int(&a.req(Some(2), "dimension", "broadcasted_iota")?)?;
        let dim = jops::norm_axis(dim, shape.len())?;
        Ok(Obj::Array(iota(d, &shape, dim)?))
    });
    b.func("full", |_, a| {
        scalar_fill(&a, "full")?;
        super::numpy::full(&a)
    });
    b.func("full_like", |_, a| {
        scalar_fill(&a, "full_like")?;
        super::numpy::like(&a, None, "full_like")
    });
    b.func("empty", |_, a| {
        let shape = match a.req(Some(0), "shape", "empty")? {
            o @ (Obj::Tuple(_) | Obj::List(_)) => ints(&o)?,
            o => vec![usize::try_from(to_int(&o)?).unwrap_or(0)],
        };
        let d = super::numpy::dtype_of(&a.req(Some(1), "dtype", "empty")?)?;
        Ok(Obj::Array(Value::Concrete(Array::full(&shape, 0.0, d))))
    });
    register_dynamic(b);
}

fn operand(a: &Args, func: &str) -> Result<Value> {
    to_value(&a.req(Some(0), "operand", func)?)
}

/// Axes of an `ndim`-dimensional array, counted from the end when
/// negative.
fn axes(o: &Obj, ndim: usize) -> Result<Vec<usize>> {
    iterate(o)?
        .iter()
        .map(|i| jops::norm_axis(to_int(i)?, ndim))
        .collect()
}

/// `iota` of `dtype` along `dim` of `shape`, made where the values are
/// known and converted as the dtype holds them.
fn iota(dtype: DType, shape: &[usize], dim: usize) -> Result<Value> {
    if dtype == DType::Bool {
        bail!(
            TypeError,
            "iota does not accept dtype bool. Accepted dtypes are subtypes of integer, floating, complexfloating."
        );
    }
    let i = Value::Concrete(Array::iota(shape, dim, DType::I32)?);
    crate::trace::untraced(|| jops::convert(&i, dtype))
}

/// lax's `full` takes only a scalar fill value.
fn scalar_fill(a: &Args, func: &str) -> Result<()> {
    let v = to_value(&a.req(Some(1), "fill_value", func)?)?;
    if v.ndim() != 0 {
        bail!(
            TypeError,
            "full must be called with scalar fill_value, got fill_value.shape {}.",
            shape_tuple(&v.shape())
        );
    }
    Ok(())
}

fn is_permutation(perm: &[usize], n: usize) -> bool {
    let mut sorted = perm.to_vec();
    sorted.sort_unstable();
    sorted.iter().copied().eq(0..n)
}

/// `lax.transpose(operand, permutation)`.
fn transpose(a: &Args) -> Result<Obj> {
    let x = operand(a, "transpose")?;
    let perm = ints(&a.req(Some(1), "permutation", "transpose")?)?;
    if !is_permutation(&perm, x.ndim()) {
        bail!(
            TypeError,
            "transpose permutation isn't a permutation of operand dimensions, got permutation {} for operand shape {}.",
            shape_tuple(&perm),
            shape_tuple(&x.shape())
        );
    }
    Ok(Obj::Array(jops::transpose(&x, &perm)?))
}

/// `lax.reshape(operand, new_sizes, dimensions=None)`: with `dimensions`
/// the operand is first transposed into that order.
fn reshape(a: &Args) -> Result<Obj> {
    let mut x = operand(a, "reshape")?;
    let sizes = ints(&a.req(Some(1), "new_sizes", "reshape")?)?;
    if let Some(d) = a.opt(Some(2), "dimensions") {
        let perm = ints(&d)?;
        if !is_permutation(&perm, x.ndim()) {
            bail!(
                TypeError,
                "reshape dimensions must be a permutation of operand dimensions, got dimensions {} for shape {}.",
                shape_tuple(&perm),
                shape_tuple(&x.shape())
            );
        }
        x = jops::transpose(&x, &perm)?;
    }
    let (old, new) = (x.shape(), sizes.iter().product::<usize>());
    if old.iter().product::<usize>() != new {
        bail!(
            TypeError,
            "reshape total size must be unchanged, got new_sizes {} (of total size {new}) for shape {} (of total size {}).",
            shape_tuple(&sizes),
            shape_tuple(&old),
            old.iter().product::<usize>()
        );
    }
    Ok(Obj::Array(jops::reshape(&x, &sizes)?))
}

/// `lax.squeeze(array, dimensions)`: each named dimension must have size 1.
fn squeeze(a: &Args) -> Result<Obj> {
    let x = to_value(&a.req(Some(0), "array", "squeeze")?)?;
    let shape = x.shape();
    let dims = axes(&a.req(Some(1), "dimensions", "squeeze")?, shape.len())?;
    if dims.iter().any(|&d| shape[d] != 1) {
        let mut sorted = dims.clone();
        sorted.sort_unstable();
        bail!(
            ValueError,
            "cannot select an axis to squeeze out which has size not equal to one, got shape={} and dimensions={}",
            shape_tuple(&shape),
            shape_tuple(&sorted)
        );
    }
    let dims: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
    Ok(Obj::Array(jops::squeeze(&x, Some(&dims))?))
}

/// `lax.concatenate(operands, dimension)`: operands of one dtype.
fn concatenate(a: &Args) -> Result<Obj> {
    let xs = iterate(&a.req(Some(0), "operands", "concatenate")?)?
        .iter()
        .map(to_value)
        .collect::<Result<Vec<_>>>()?;
    let dim = to_int(&a.req(Some(1), "dimension", "concatenate")?)?;
    let Some(first) = xs.first() else {
        bail!(
            ValueError,
            "concatenate requires a non-empty sequences of arrays"
        );
    };
    if xs.iter().any(|x| x.dtype() != first.dtype()) {
        let names: Vec<&str> = xs.iter().map(|x| x.dtype().name()).collect();
        bail!(
            TypeError,
            "lax.concatenate requires arguments to have the same dtypes, got {}. (Tip: jnp.concatenate is a similar function that does automatic type promotion on inputs).",
            names.join(", ")
        );
    }
    if xs.len() == 1 {
        return Ok(Obj::Array(first.clone()));
    }
    Ok(Obj::Array(jops::concatenate(&xs, dim)?))
}

/// `lax.split(operand, sizes, axis=0)`: consecutive static slices.
fn split(a: &Args) -> Result<Obj> {
    let x = operand(a, "split")?;
    let sizes = ints(&a.req(Some(1), "sizes", "split")?)?;
    let axis = a.opt(Some(2), "axis").map(|o| to_int(&o)).transpose()?;
    let shape = x.shape();
    let axis = jops::norm_axis(axis.unwrap_or(0), shape.len())?;
    if sizes.iter().sum::<usize>() != shape[axis] {
        bail!(
            ValueError,
            "Sum of sizes {} must be equal to dimension {axis} of the operand shape {}",
            sizes.iter().sum::<usize>(),
            shape_tuple(&shape)
        );
    }
    let mut start = 0;
    let mut parts = vec![];
    for s in sizes {
        let mut starts = vec![0; shape.len()];
        let mut limits = shape.clone();
        starts[axis] = start;
        limits[axis] = start + s;
        let part = jops::slice(&x, &starts, &limits, &vec![1; shape.len()])?;
        parts.push(Obj::Array(part));
        start += s;
    }
    Ok(Obj::list(parts))
}

/// `lax.collapse(operand, start_dimension, stop_dimension=None)`, the
/// dimensions read as a Python slice reads them.
fn collapse(a: &Args) -> Result<Obj> {
    let x = operand(a, "collapse")?;
    let shape = x.shape();
    let n = shape.len() as i64;
    let bound = |o: Option<Obj>, default: i64| -> Result<usize> {
        let i = match o {
            Some(Obj::None) | None => default,
            Some(o) => to_int(&o)?,
        };
        Ok((if i < 0 { i + n } else { i }).clamp(0, n) as usize)
    };
    let lo = bound(a.opt(Some(1), "start_dimension"), 0)?;
    let hi = bound(a.opt(Some(2), "stop_dimension"), n)?;
    if hi < lo {
        bail!(
            ValueError,
            "Invalid dimension range passed to collapse: {}[{}:{}]",
            shape_tuple(&shape),
            crate::python::format::repr_of(&a.req(Some(1), "start_dimension", "collapse")?),
            crate::python::format::repr_of(&a.opt(Some(2), "stop_dimension").unwrap_or(Obj::None))
        );
    }
    let mut out = shape[..lo].to_vec();
    out.push(shape[lo..hi].iter().product());
    out.extend(&shape[hi..]);
    Ok(Obj::Array(jops::reshape(&x, &out)?))
}

/// `lax.broadcast_shapes(*shapes)`: NumPy's rule, as a tuple.
fn broadcast_shapes(a: &Args) -> Result<Obj> {
    let mut out: Vec<usize> = vec![];
    let shapes = a.pos.iter().map(ints).collect::<Result<Vec<_>>>()?;
    for s in &shapes {
        out = crate::array::broadcast_shapes(&out, s).map_err(|_| {
            let all: Vec<String> = shapes.iter().map(|s| shape_tuple(s)).collect();
            crate::err!(
                ValueError,
                "Incompatible shapes for broadcasting: shapes=[{}]",
                all.join(", ")
            )
        })?;
    }
    Ok(Obj::tuple(
        out.into_iter().map(|d| Obj::Int(d as i64)).collect(),
    ))
}

/// `dynamic_index_in_dim`, `dynamic_update_slice_in_dim` and
/// `dynamic_update_index_in_dim`.
fn register_dynamic(b: &mut Builder) {
    b.func("dynamic_index_in_dim", |_, a| {
        let f = "dynamic_index_in_dim";
        let x = operand(&a, f)?;
        let index = index_arg(&a.req(Some(1), "index", f)?)?;
        let axis = a.opt(Some(2), "axis").map(|o| to_int(&o)).transpose()?;
        let axis = jops::norm_axis(axis.unwrap_or(0), x.ndim())?;
        let keepdims = match a.opt(Some(3), "keepdims") {
            Some(o) => truthy(&o, "keepdims")?,
            None => true,
        };
        let y = jops::dynamic_slice_in_dim(&x, &index, 1, axis as i64)?;
        if keepdims {
            return Ok(Obj::Array(y));
        }
        let mut shape = x.shape();
        shape.remove(axis);
        Ok(Obj::Array(jops::reshape(&y, &shape)?))
    });
    for (name, index_name) in [
        ("dynamic_update_slice_in_dim", "start_index"),
        ("dynamic_update_index_in_dim", "index"),
    ] {
        b.func(name, move |_, a| {
            let x = operand(&a, name)?;
            let mut u = to_value(&a.req(Some(1), "update", name)?)?;
            let index = index_arg(&a.req(Some(2), index_name, name)?)?;
            let axis = to_int(&a.req(Some(3), "axis", name)?)?;
            let axis = jops::norm_axis(axis, x.ndim())?;
            if name == "dynamic_update_index_in_dim" && u.ndim() + 1 == x.ndim() {
                u = jops::expand_dims(&u, axis as i64)?;
            }
            let mut starts = vec![jops::scalar(0.0, DType::I32); x.ndim()];
            starts[axis] = index;
            Ok(Obj::Array(jops::dynamic_update_slice(&x, &u, &starts)?))
        });
    }
}

/// A start index as an int32 scalar, negative ones counted from the end
/// by the slicing operation.
fn index_arg(o: &Obj) -> Result<Value> {
    jops::convert(&to_value(o)?, DType::I32)
}
