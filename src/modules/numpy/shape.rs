//! Shape functions: reshaping, transposing, joining, splitting, flipping
//! and taking, and `shape`/`ndim`/`size`.

use crate::array::DType;
use crate::bail;
use crate::error::Result;
use crate::ops as jops;
use crate::python::array::{reshape_value, to_value};
use crate::python::builtins::to_int;
use crate::python::ops::iterate;
use crate::python::value::{Args, Obj};
use crate::trace::Value;

use super::super::Builder;
use super::{arr, axes_arg, shape_of};

/// Adds the shape functions to `b`.
pub(super) fn register(b: &mut Builder) {
    b.func("reshape", |_, a| reshape(&a));
    b.func("ravel", |_, a| {
        let x = arr(&a, 0, "a", "ravel")?;
        let fortran = order(&a, "ravel")?;
        let x = if fortran { reversed_axes(&x)? } else { x };
        Ok(Obj::Array(reshape_value(&x, &[-1])?))
    });
    b.func("transpose", |_, a| transpose(&a));
    b.func("swapaxes", |_, a| swapaxes(&a));
    b.func("moveaxis", |_, a| moveaxis(&a));
    b.func("expand_dims", |_, a| {
        let x = arr(&a, 0, "a", "expand_dims")?;
        a.req(Some(1), "axis", "expand_dims")?;
        let axes = axes_arg(&a, Some(1))?.unwrap_or_default();
        Ok(Obj::Array(jops::expand_dims_at(&x, &axes)?))
    });
    b.func("squeeze", |_, a| {
        let x = arr(&a, 0, "a", "squeeze")?;
        let axes = axes_arg(&a, Some(1))?;
        Ok(Obj::Array(jops::squeeze(&x, axes.as_deref())?))
    });
    b.func("broadcast_to", |_, a| {
        let x = arr(&a, 0, "array", "broadcast_to")?;
        let s = shape_of(&a.req(Some(1), "shape", "broadcast_to")?)?;
        Ok(Obj::Array(jops::broadcast_to(&x, &s)?))
    });
    b.func("concatenate", |_, a| concatenate(&a));
    b.func("stack", |_, a| stack(&a));
    b.func("hstack", |_, a| hstack(&a));
    b.func("vstack", |_, a| vstack(&a));
    b.func("flip", |_, a| flip(&a));
    b.func("rot90", |_, a| rot90(&a));
    b.func("take", |_, a| take(&a));
    b.func("split", |_, a| {
        super::joining::split_fn(&a, "split", None, false)
    });
    b.func("pad", pad);
    b.func("tile", |_, a| tile(&a));
    b.func("roll", |_, a| roll(&a));
    register_queries(b);
}

/// `shape`, `ndim` and `size` of an array.
fn register_queries(b: &mut Builder) {
    b.func("shape", |_, a| {
        let x = arr(&a, 0, "a", "shape")?;
        Ok(Obj::tuple(
            x.shape().iter().map(|&d| Obj::Int(d as i64)).collect(),
        ))
    });
    b.func("ndim", |_, a| {
        Ok(Obj::Int(arr(&a, 0, "a", "ndim")?.ndim() as i64))
    });
    b.func("size", |_, a| {
        let shape = arr(&a, 0, "a", "size")?.shape();
        let axes = match axes_arg(&a, Some(1))? {
            Some(v) => v
                .iter()
                .map(|&d| jops::norm_axis(d, shape.len()))
                .collect::<Result<Vec<_>>>()?,
            None => (0..shape.len()).collect(),
        };
        Ok(Obj::Int(
            axes.iter().map(|&d| shape[d]).product::<usize>() as i64
        ))
    });
}

fn reshape(a: &Args) -> Result<Obj> {
    let x = arr(a, 0, "a", "reshape")?;
    let s = a.req(Some(1), "shape", "reshape")?;
    // A number stands for the one-dimension list JAX makes of it.
    let (items, given) = match &s {
        Obj::Tuple(_) | Obj::List(_) => (iterate(&s)?, s.clone()),
        o => (vec![o.clone()], Obj::list(vec![o.clone()])),
    };
    crate::python::array::concrete_shape(&items, &given)?;
    let dims: Vec<i64> = items.iter().map(to_int).collect::<Result<_>>()?;
    if order(a, "reshape")? {
        // Column-major: the reversed shape filled from the reversed axes.
        let rev: Vec<i64> = dims.iter().rev().copied().collect();
        let y = reshape_value(&reversed_axes(&x)?, &rev)?;
        return Ok(Obj::Array(reversed_axes(&y)?));
    }
    Ok(Obj::Array(reshape_value(&x, &dims)?))
}

/// Whether `order=` asks for column-major ('F') rather than row-major
/// ('C') order, with JAX's errors for the others.
fn order(a: &Args, func: &str) -> Result<bool> {
    let index = if func == "reshape" { 2 } else { 1 };
    let o = match a.opt(Some(index), "order") {
        None => return Ok(false),
        Some(o) => o,
    };
    let text = crate::python::format::str_of(&o);
    match text.as_str() {
        "C" => Ok(false),
        "F" => Ok(true),
        "K" if func == "ravel" => {
            crate::bail!(NotImplementedError, "Ravel not implemented for order='K'.")
        }
        "A" => crate::bail!(
            NotImplementedError,
            "np.reshape order=A is not implemented."
        ),
        other => crate::bail!(
            ValueError,
            "Unexpected value for 'order' argument: {other}."
        ),
    }
}

fn reversed_axes(x: &Value) -> Result<Value> {
    let perm: Vec<usize> = (0..x.ndim()).rev().collect();
    jops::transpose(x, &perm)
}

fn transpose(a: &Args) -> Result<Obj> {
    let x = arr(a, 0, "a", "transpose")?;
    let perm: Vec<usize> = match a.opt(Some(1), "axes") {
        Some(p) => iterate(&p)?
            .iter()
            .map(|o| to_int(o).and_then(|i| jops::norm_axis(i, x.ndim())))
            .collect::<Result<_>>()?,
        None => (0..x.ndim()).rev().collect(),
    };
    Ok(Obj::Array(jops::transpose(&x, &perm)?))
}

fn swapaxes(a: &Args) -> Result<Obj> {
    let x = arr(a, 0, "a", "swapaxes")?;
    let p = jops::norm_axis(to_int(&a.req(Some(1), "axis1", "swapaxes")?)?, x.ndim())?;
    let q = jops::norm_axis(to_int(&a.req(Some(2), "axis2", "swapaxes")?)?, x.ndim())?;
    let mut perm: Vec<usize> = (0..x.ndim()).collect();
    perm.swap(p, q);
    Ok(Obj::Array(jops::transpose(&x, &perm)?))
}

/// `moveaxis(a, source, destination)`, each an axis or a sequence of
/// them: the other axes keep their order, and the moved ones are placed
/// at their destinations in increasing order, as JAX builds the transpose.
fn moveaxis(a: &Args) -> Result<Obj> {
    let x = arr(a, 0, "a", "moveaxis")?;
    let axes = |i: usize, name: &str| -> Result<Vec<usize>> {
        let o = a.req(Some(i), name, "moveaxis")?;
        let raw = match o {
            Obj::Tuple(_) | Obj::List(_) => {
                iterate(&o)?.iter().map(to_int).collect::<Result<_>>()?
            }
            other => vec![to_int(&other)?],
        };
        raw.into_iter()
            .map(|ax| jops::norm_axis(ax, x.ndim()))
            .collect()
    };
    let (src, dst) = (axes(1, "source")?, axes(2, "destination")?);
    if src.len() != dst.len() {
        bail!(
            ValueError,
            "Inconsistent number of elements: {} vs {}",
            src.len(),
            dst.len()
        );
    }
    let mut perm: Vec<usize> = (0..x.ndim()).filter(|i| !src.contains(i)).collect();
    let mut moves: Vec<(usize, usize)> = dst.into_iter().zip(src).collect();
    moves.sort_unstable();
    for (d, s) in moves {
        if d > perm.len() {
            bail!(ValueError, "repeated axis");
        }
        perm.insert(d, s);
    }
    Ok(Obj::Array(jops::transpose(&x, &perm)?))
}

/// A sequence of arrays converted to their common dtype, for joining.
fn values_list(o: &Obj) -> Result<Vec<Value>> {
    let items = iterate(o)?;
    let vals: Vec<Value> = items.iter().map(to_value).collect::<Result<_>>()?;
    let dtype = vals.iter().map(|v| v.dtype()).max().unwrap_or(DType::F32);
    vals.iter().map(|v| jops::convert(v, dtype)).collect()
}

/// The `axis` argument of the joining functions, 0 by default.
fn join_axis(a: &Args) -> Result<i64> {
    Ok(a.opt(Some(1), "axis")
        .map(|o| to_int(&o))
        .transpose()?
        .unwrap_or(0))
}

fn concatenate(a: &Args) -> Result<Obj> {
    let xs = values_list(&a.req(Some(0), "arrays", "concatenate")?)?;
    Ok(Obj::Array(jops::concatenate(&xs, join_axis(a)?)?))
}

fn stack(a: &Args) -> Result<Obj> {
    let xs = values_list(&a.req(Some(0), "arrays", "stack")?)?;
    Ok(Obj::Array(jops::stack(&xs, join_axis(a)?)?))
}

/// `hstack`: 1-D arrays join along axis 0, others along axis 1.
fn hstack(a: &Args) -> Result<Obj> {
    // Each piece is made at least 1-D first, so scalars join vectors.
    let xs = values_list(&a.req(Some(0), "tup", "hstack")?)?
        .iter()
        .map(|x| match x.ndim() {
            0 => jops::reshape(x, &[1]),
            _ => Ok(x.clone()),
        })
        .collect::<Result<Vec<Value>>>()?;
    let axis = if xs.first().map(|x| x.ndim()).unwrap_or(1) <= 1 {
        0
    } else {
        1
    };
    Ok(Obj::Array(jops::concatenate(&xs, axis)?))
}

/// `vstack`: 1-D arrays become rows before joining along axis 0.
fn vstack(a: &Args) -> Result<Obj> {
    let xs = values_list(&a.req(Some(0), "tup", "vstack")?)?;
    let xs: Vec<Value> = xs
        .iter()
        .map(|x| {
            if x.ndim() <= 1 {
                reshape_value(x, &[1, -1])
            } else {
                Ok(x.clone())
            }
        })
        .collect::<Result<_>>()?;
    Ok(Obj::Array(jops::concatenate(&xs, 0)?))
}

fn flip(a: &Args) -> Result<Obj> {
    let x = arr(a, 0, "m", "flip")?;
    let axes: Vec<usize> = match axes_arg(a, Some(1))? {
        Some(ax) => ax
            .iter()
            .map(|&i| jops::norm_axis(i, x.ndim()))
            .collect::<Result<_>>()?,
        None => (0..x.ndim()).collect(),
    };
    Ok(Obj::Array(jops::rev(&x, &axes)?))
}

/// `rot90(m, k=1, axes=(0, 1))`: quarter turns from the first axis
/// towards the second, as flips and an exchange of the two axes.
fn rot90(a: &Args) -> Result<Obj> {
    let x = arr(a, 0, "m", "rot90")?;
    if x.ndim() < 2 {
        crate::bail!(
            ValueError,
            "rot90 requires its first argument to have ndim at least two, but got first \
             argument of shape {}, which has ndim {}",
            crate::array::shape_tuple(&x.shape()),
            x.ndim()
        );
    }
    let k = match a.opt(Some(1), "k") {
        Some(o) => crate::python::builtins::to_int(&o)?.rem_euclid(4),
        None => 1,
    };
    let axes: Vec<i64> = match a.opt(Some(2), "axes") {
        Some(o) => crate::python::ops::iterate(&o)?
            .iter()
            .map(crate::python::builtins::to_int)
            .collect::<Result<_>>()?,
        None => vec![0, 1],
    };
    let [ax1, ax2] = axes[..] else {
        crate::bail!(ValueError, "too many values to unpack (expected 2)");
    };
    let (ax1, ax2) = (
        jops::norm_axis(ax1, x.ndim())?,
        jops::norm_axis(ax2, x.ndim())?,
    );
    if ax1 == ax2 {
        crate::bail!(ValueError, "Axes must be different");
    }
    let mut perm: Vec<usize> = (0..x.ndim()).collect();
    perm.swap(ax1, ax2);
    let out = match k {
        0 => x,
        2 => jops::rev(&jops::rev(&x, &[ax1])?, &[ax2])?,
        1 => jops::transpose(&jops::rev(&x, &[ax2])?, &perm)?,
        _ => jops::rev(&jops::transpose(&x, &perm)?, &[ax2])?,
    };
    Ok(Obj::Array(out))
}

/// `take(a, indices, axis=None, mode=None, fill_value=None)`: without an
/// axis, from the flattened array. Indices in `[-n, n)` count from either
/// end; what lies outside is `fill_value` (by default NaN, the least signed
/// integer, the greatest unsigned one or True) in the default `"fill"`
/// mode, the nearest end in `"clip"` (negative indices too) and taken
/// modulo `n` in `"wrap"`.
fn take(a: &Args) -> Result<Obj> {
    let x = arr(a, 0, "a", "take")?;
    let idx = jops::convert(&arr(a, 1, "indices", "take")?, DType::I32)?;
    // Sortedness and uniqueness are promises that only speed XLA up.
    a.get(None, "unique_indices");
    a.get(None, "indices_are_sorted");
    let (x, axis) = match a.opt(Some(2), "axis") {
        Some(ax) => (x, to_int(&ax)?),
        None => (reshape_value(&x, &[-1])?, 0),
    };
    let ax = jops::norm_axis(axis, x.ndim())?;
    let n = jops::scalar(x.shape()[ax] as f64, DType::I32);
    let mode = a
        .opt(Some(4), "mode")
        .map(|m| crate::python::format::str_of(&m));
    let out = match mode.as_deref() {
        None | Some("fill") => {
            let fill = take_fill(&x, a.opt(None, "fill_value"))?;
            let inside = jops::binary(
                crate::array::BinaryOp::And,
                &jops::greater_equal(&idx, &jops::neg(&n)?)?,
                &jops::less(&idx, &n)?,
            )?;
            let taken = jops::take(&x, &idx, ax as i64)?;
            let shape = taken.shape();
            let mut keep = vec![1usize; ax];
            keep.extend(idx.shape());
            keep.resize(shape.len(), 1);
            let inside = jops::broadcast_to(&jops::reshape(&inside, &keep)?, &shape)?;
            jops::select(&inside, &taken, &jops::broadcast_to(&fill, &shape)?)?
        }
        Some("clip") => {
            let top = jops::sub(&n, &jops::scalar(1.0, DType::I32))?;
            let clipped = jops::clamp(&jops::scalar(0.0, DType::I32), &idx, &top)?;
            jops::take(&x, &clipped, ax as i64)?
        }
        Some("wrap") => {
            let r = jops::binary(crate::array::BinaryOp::Rem, &idx, &n)?;
            let r = jops::binary(crate::array::BinaryOp::Rem, &jops::add(&r, &n)?, &n)?;
            jops::take(&x, &r, ax as i64)?
        }
        Some("raise") => bail!(
            NotImplementedError,
            "The 'raise' mode to jnp.take is not supported."
        ),
        Some(m) => bail!(ValueError, "Invalid mode '{m}' for jnp.take"),
    };
    Ok(Obj::Array(out))
}

/// The value `jnp.take` puts where an index lies outside the axis.
fn take_fill(x: &Value, given: Option<Obj>) -> Result<Value> {
    if let Some(f) = given {
        return jops::convert(&to_value(&f)?, x.dtype());
    }
    let d = x.dtype();
    Ok(match d {
        DType::Bool => jops::scalar(1.0, DType::Bool),
        DType::C64 => bail!(
            NotImplementedError,
            "not supported by shardlab yet: jnp.take of complex64 out of bounds"
        ),
        d if d.is_float() => jops::scalar(f64::NAN, d),
        DType::U8 => jops::scalar(u8::MAX as f64, d),
        DType::U16 => jops::scalar(u16::MAX as f64, d),
        DType::U32 => jops::scalar(u32::MAX as f64, d),
        DType::I8 => jops::scalar(i8::MIN as f64, d),
        DType::I16 => jops::scalar(i16::MIN as f64, d),
        _ => jops::scalar(i32::MIN as f64, d),
    })
}

/// `jnp.pad` with `mode='constant'`: `pad_width` as an int, a
/// `(before, after)` pair for every dimension, or one pair per dimension.
fn pad(interp: &mut crate::python::interp::Interp, a: Args) -> Result<Obj> {
    let a = &a;
    let x = arr(a, 0, "array", "pad")?;
    let width = a.req(Some(1), "pad_width", "pad")?;
    let pairs = pad_pairs(&width, x.ndim())?;
    if let Some(mode) = a.opt(Some(2), "mode") {
        if crate::python::builtins::is_callable(&mode) {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: jax.numpy.pad with a function as mode"
            );
        }
        let mode = crate::python::format::str_of(&mode);
        if mode != "constant" && x.ndim() > 0 {
            return super::pad_modes::pad_mode(interp, Obj::Array(x), &pairs, &mode, a);
        }
    }
    let lo: Vec<usize> = pairs.iter().map(|p| p.0).collect();
    let hi: Vec<usize> = pairs.iter().map(|p| p.1).collect();
    let padded = jops::pad(&x, &lo, &hi)?;
    let c = match a.opt(None, "constant_values") {
        None => return Ok(Obj::Array(padded)),
        Some(c) => to_value(&c)?,
    };
    if c.ndim() != 0 {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.numpy.pad with per-dimension constant_values"
        );
    }
    // Where the padding went, the constant: a mask padded the same way.
    let ones = Value::Concrete(crate::array::Array::full(&x.shape(), 1.0, DType::Bool));
    let inside = jops::pad(&ones, &lo, &hi)?;
    let c = jops::convert(&c, x.dtype())?;
    let c = jops::broadcast_to(&c, &padded.shape())?;
    Ok(Obj::Array(jops::select(&inside, &padded, &c)?))
}

/// `pad_width` as one `(before, after)` pair per dimension.
fn pad_pairs(width: &Obj, ndim: usize) -> Result<Vec<(usize, usize)>> {
    let count = |o: &Obj| -> Result<usize> {
        let n = to_int(o)?;
        if n < 0 {
            bail!(ValueError, "index can't contain negative values");
        }
        Ok(n as usize)
    };
    let pair = |o: &Obj| -> Result<(usize, usize)> {
        match o {
            Obj::Tuple(_) | Obj::List(_) => {
                let items = iterate(o)?;
                match items.as_slice() {
                    [n] => Ok((count(n)?, count(n)?)),
                    [lo, hi] => Ok((count(lo)?, count(hi)?)),
                    _ => bail!(ValueError, "pad_width must be a pair (before, after)"),
                }
            }
            n => Ok((count(n)?, count(n)?)),
        }
    };
    let items = match width {
        Obj::Tuple(_) | Obj::List(_) => iterate(width)?,
        n => return Ok(vec![pair(n)?; ndim]),
    };
    let nested = items
        .iter()
        .any(|o| matches!(o, Obj::Tuple(_) | Obj::List(_)));
    if !nested {
        return Ok(vec![pair(width)?; ndim]);
    }
    match items.len() {
        1 => Ok(vec![pair(&items[0])?; ndim]),
        n if n == ndim => items.iter().map(pair).collect(),
        n => bail!(
            ValueError,
            "pad_width has {n} pairs but the array has {ndim} dimensions"
        ),
    }
}

/// `jnp.roll(a, shift, axis=None)` with static shifts: along each axis the
/// last `shift` elements move to the front, by slicing and concatenating
/// as JAX does; with no axis the flattened array rolls.
fn roll(a: &Args) -> Result<Obj> {
    let x = arr(a, 0, "a", "roll")?;
    let ints = |o: &Obj| -> Result<Vec<i64>> {
        match o {
            Obj::Tuple(_) | Obj::List(_) => iterate(o)?.iter().map(to_int).collect(),
            Obj::Array(Value::Traced(_)) => bail!(
                NotImplementedError,
                "not supported by shardlab yet: jnp.roll with a traced shift"
            ),
            n => Ok(vec![to_int(n)?]),
        }
    };
    let shifts = ints(&a.req(Some(1), "shift", "roll")?)?;
    let axis = a.get(Some(2), "axis").filter(|o| !matches!(o, Obj::None));
    let Some(axis) = axis else {
        let flat = jops::reshape(&x, &[x.shape().iter().product()])?;
        let rolled = roll_axes(&flat, &[0], &shifts)?;
        return Ok(Obj::Array(jops::reshape(&rolled, &x.shape())?));
    };
    let axes = ints(&axis)?;
    Ok(Obj::Array(roll_axes(&x, &axes, &shifts)?))
}

pub(super) fn roll_axes(x: &Value, axes: &[i64], shifts: &[i64]) -> Result<Value> {
    let n = axes.len().max(shifts.len());
    if (axes.len() != n && axes.len() != 1) || (shifts.len() != n && shifts.len() != 1) {
        bail!(
            ValueError,
            "shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is between arg 0 with shape ({},) and arg 1 with shape ({},).",
            axes.len(),
            shifts.len()
        );
    }
    let mut y = x.clone();
    for k in 0..n {
        let ndim = y.ndim() as i64;
        let ax = axes[k.min(axes.len() - 1)];
        if ax < -ndim || ax >= ndim {
            bail!(
                ValueError,
                "axis {ax} is out of bounds for array of dimension {ndim}"
            );
        }
        let ax = ax.rem_euclid(ndim) as usize;
        let size = y.shape()[ax] as i64;
        if size == 0 {
            continue;
        }
        let i = (-shifts[k.min(shifts.len() - 1)]).rem_euclid(size) as usize;
        let shape = y.shape();
        let part = |from: usize, to: usize| {
            let mut starts = vec![0; shape.len()];
            let mut limits = shape.clone();
            starts[ax] = from;
            limits[ax] = to;
            jops::slice(&y, &starts, &limits, &vec![1; shape.len()])
        };
        let (tail, head) = (part(i, shape[ax])?, part(0, i)?);
        y = jops::concatenate(&[tail, head], ax as i64)?;
    }
    Ok(y)
}

/// `jnp.tile`: the array repeated `reps` times along each dimension
/// (leading dimensions added to whichever is shorter).
fn tile(a: &Args) -> Result<Obj> {
    let x = arr(a, 0, "A", "tile")?;
    let reps = a.req(Some(1), "reps", "tile")?;
    let reps: Vec<i64> = match &reps {
        Obj::Tuple(_) | Obj::List(_) => {
            iterate(&reps)?.iter().map(to_int).collect::<Result<_>>()?
        }
        n => vec![to_int(n)?],
    };
    let ndim = reps.len().max(x.ndim());
    let mut shape = vec![1; ndim - x.ndim()];
    shape.extend(x.shape());
    let mut y = jops::reshape(&x, &shape)?;
    let mut reps = reps;
    while reps.len() < ndim {
        reps.insert(0, 1);
    }
    for (d, &r) in reps.iter().enumerate() {
        if r <= 0 {
            let shape = y.shape();
            let mut limits = shape.clone();
            limits[d] = 0;
            y = jops::slice(&y, &vec![0; shape.len()], &limits, &vec![1; shape.len()])?;
            continue;
        }
        let copies = vec![y.clone(); r as usize];
        y = jops::concatenate(&copies, d as i64)?;
    }
    Ok(Obj::Array(y))
}
