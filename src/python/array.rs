//! Arrays in the interpreter: conversion from Python objects, weak typing of
//! Python scalars, NumPy indexing, `x.at[...]` updates and array attributes.

use std::cell::RefCell;
use std::rc::Rc;

use crate::array::{Array, BinaryOp, DType, C64};
use crate::error::Result;
use crate::primitives::placement_slicing::Picked;
use crate::trace::{Conversion, Value};
use crate::{bail, ops as jops};

use super::interp::Interp;
use super::ops::slice_indices;
use super::value::{Args, Module, Obj};

/// Most elements one array may hold.
pub const MAX_ELEMENTS: usize = crate::array::MAX_ELEMENTS;

/// Fails when an array of `n` elements would exceed the allocation limit.
pub fn check_size(n: usize) -> Result<()> {
    check_shape(&[n])
}

/// Fails with a `MemoryError` naming the shape and its bytes when an array
/// of `shape` would exceed the allocation limit, computing its size without
/// overflow.
pub fn check_shape(shape: &[usize]) -> Result<()> {
    crate::array::check_alloc(shape, DType::F32)
}

/// The shape of nested lists, read along their first items. Each level is
/// a level of native recursion, so a list that holds itself ends in
/// `RecursionError`, as it does in JAX.
fn nested_shape(o: &Obj, shape: &mut Vec<usize>) -> Result<()> {
    match o {
        Obj::List(_) | Obj::Tuple(_) => {
            let _level = super::depth::enter()?;
            let items = super::ops::iterate(o)?;
            shape.push(items.len());
            if let Some(first) = items.first() {
                nested_shape(first, shape)?;
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

fn flatten_numbers(
    o: &Obj,
    depth: usize,
    shape: &[usize],
    out: &mut Vec<(f64, f64)>,
    dtype: &mut DType,
) -> Result<()> {
    match o {
        Obj::List(_) | Obj::Tuple(_) => {
            let _level = super::depth::enter()?;
            let items = super::ops::iterate(o)?;
            if depth >= shape.len() || items.len() != shape[depth] {
                bail!(
                    ValueError,
                    "setting an array element with a sequence. The requested array has an inhomogeneous shape after {depth} dimensions"
                );
            }
            for it in &items {
                flatten_numbers(it, depth + 1, shape, out, dtype)?;
            }
            Ok(())
        }
        _ => {
            if depth != shape.len() {
                bail!(
                    ValueError,
                    "setting an array element with a sequence. The requested array has an inhomogeneous shape after {depth} dimensions"
                );
            }
            match o {
                Obj::Bool(b) => out.push((*b as i64 as f64, 0.0)),
                Obj::Int(i) => {
                    *dtype = dtype.promote(DType::I32);
                    out.push((*i as f64, 0.0))
                }
                Obj::Float(f) => {
                    *dtype = dtype.promote(DType::F32);
                    out.push((*f, 0.0))
                }
                Obj::Complex(re, im) => {
                    *dtype = DType::C64;
                    out.push((*re, *im))
                }
                other => bail!(
                    TypeError,
                    "cannot convert {} to an array element",
                    other.type_name()
                ),
            }
            Ok(())
        }
    }
}

fn contains_array(o: &Obj) -> bool {
    // Past the depth limit the overflow is noted, and raised when the
    // expression ends (see `depth::take_overflow`).
    let Some(_level) = super::depth::try_enter("") else {
        return false;
    };
    match o {
        Obj::Array(_) => true,
        Obj::List(l) => l.borrow().iter().any(contains_array),
        Obj::Tuple(t) => t.iter().any(contains_array),
        Obj::Lib(l) => l.array(o).is_some(),
        _ => false,
    }
}

/// A Python number as a weakly typed scalar of `dtype`, as JAX converts a
/// Python `int` or `float` it meets as an operand or an argument.
pub fn weak_scalar(v: f64, dtype: DType) -> Value {
    Value::Concrete(Array::full(&[], v, dtype).with_weak(true))
}

/// Converts a Python object (array, number, nested list) to an array value,
/// with JAX's default dtypes: float32, int32 and bool. Python `int` and
/// `float` become weakly typed scalars; `bool` is strongly typed, and so is
/// an array built from a list.
pub fn to_value(o: &Obj) -> Result<Value> {
    match o {
        Obj::Array(v) => Ok(v.clone()),
        Obj::Bool(b) => Ok(Value::Concrete(Array::scalar_bool(*b))),
        Obj::Int(i) => Ok(weak_scalar(*i as f64, DType::I32)),
        Obj::Float(f) => Ok(weak_scalar(*f, DType::F32)),
        Obj::Complex(re, im) => Ok(Value::Concrete(complex_scalar(*re, *im).with_weak(true))),
        Obj::List(_) | Obj::Tuple(_) if contains_array(o) => {
            let items = super::ops::iterate(o)?;
            let vals: Vec<Value> = items.iter().map(to_value).collect::<Result<_>>()?;
            let dtype = vals.iter().map(|v| v.dtype()).max().unwrap_or(DType::F32);
            // Each element becomes strongly typed and gains the leading
            // axis before the next one is looked at, as JAX converts them
            // (a jaxpr shows each element's pair of equations in turn).
            let first = vals[0].shape();
            if let Some(v) = vals.iter().find(|v| v.shape() != first) {
                bail!(
                    ValueError,
                    "All input arrays must have the same shape: got {first:?} and {:?}",
                    v.shape()
                );
            }
            let rows: Vec<Value> = vals
                .iter()
                .map(|v| {
                    let v = match v {
                        Value::Concrete(a) if a.dtype() == dtype => {
                            Value::Concrete(a.clone().with_weak(false))
                        }
                        v => jops::convert_weak(v, dtype, false)?,
                    };
                    jops::expand_dims(&v, 0)
                })
                .collect::<Result<_>>()?;
            jops::concatenate(&rows, 0)
        }
        Obj::List(_) | Obj::Tuple(_) => {
            let mut shape = vec![];
            nested_shape(o, &mut shape)?;
            let mut data = vec![];
            let mut dtype = DType::Bool;
            flatten_numbers(o, 0, &shape, &mut data, &mut dtype)?;
            if data.is_empty() {
                dtype = DType::F32;
            }
            check_size(data.len())?;
            if dtype == DType::C64 {
                let z: Vec<C64> = data
                    .iter()
                    .map(|&(re, im)| C64::new(re as f32, im as f32))
                    .collect();
                return Ok(Value::Concrete(Array::from_buffer(
                    &shape,
                    crate::array::Buffer::C64(z.into()),
                )?));
            }
            let data: Vec<f64> = data.iter().map(|p| p.0).collect();
            Ok(Value::Concrete(from_f64(&shape, &data, dtype)?))
        }
        // A library object standing for an array (a NumPy array, an
        // `nnx.Variable`) converts to the array it holds now.
        other => match other.behaviour().and_then(|b| b.array(other)) {
            Some(a) => to_value(&a),
            // The transformations that carry typed keys (jit, vmap, the
            // loops) take their key data before this; elsewhere, such as
            // jnp operations on keys, shardlab has no key dtype.
            None if other.type_name() == "PRNGKeyArray" => bail!(
                NotImplementedError,
                "not supported by shardlab yet: typed PRNG keys (jax.random.key) as array values here"
            ),
            None => bail!(
                TypeError,
                "Value {} with type {} is not a valid JAX type",
                super::format::repr_of(other),
                other.type_name()
            ),
        },
    }
}

/// A 0-d complex64 array.
pub fn complex_scalar(re: f64, im: f64) -> Array {
    Array::scalar_c64(C64::new(re as f32, im as f32))
}

/// An array of `dtype` from f64 data.
pub fn from_f64(shape: &[usize], data: &[f64], dtype: DType) -> Result<Array> {
    if dtype.is_float() && dtype.is_narrow() {
        // Rounded from the double, as NumPy converts a Python float.
        let rounded: Vec<f64> = data
            .iter()
            .map(|&x| crate::array::narrow::round_float(x, dtype))
            .collect();
        return Ok(from_f64(shape, &rounded, DType::F32)?.fit(dtype));
    }
    if dtype.is_narrow() {
        let ints: Vec<i32> = data.iter().map(|&x| x as i64 as i32).collect();
        return Ok(Array::from_i32(shape, ints)?.fit(dtype));
    }
    match dtype {
        DType::F32 => Array::from_f32(shape, data.iter().map(|&x| x as f32).collect()),
        DType::I32 => Array::from_i32(shape, data.iter().map(|&x| x as i32).collect()),
        DType::U32 => Array::from_u32(shape, data.iter().map(|&x| x as i64 as u32).collect()),
        DType::Bool => Array::from_bool(shape, data.iter().map(|&x| x != 0.0).collect()),
        DType::C64 => Array::from_buffer(
            shape,
            crate::array::Buffer::C64(data.iter().map(|&x| C64::real(x as f32)).collect()),
        ),
        narrow => bail!(RuntimeError, "{} is held in a wider buffer", narrow.name()),
    }
}

/// The two operands of a binary operation, with Python scalars weakly typed:
/// they take the array's dtype (`x * 2` stays float32), except that a float
/// scalar with an integer array gives float32.
pub fn weak_pair(a: &Obj, b: &Obj) -> Result<(Value, Value)> {
    // A Python bool is strongly typed but of the lowest kind: the result
    // takes the array's dtype and, with it, its weak bit.
    // A Python number that gives way to a strong array is converted to its
    // dtype, strongly, as jnp's promotion converts it: in a jaxpr it is then
    // a float32 constant (`0.10000000149011612:f32[]`), not the number.
    fn weak(s: &Obj, other: &Value) -> Option<Value> {
        let dtype = other.dtype();
        let strong_other = !other.aval().weak;
        match s {
            Obj::Float(f) if strong_other && dtype >= DType::F32 => {
                Some(Value::Concrete(Array::full(&[], *f, DType::F32)))
            }
            Obj::Float(f) => Some(weak_scalar(*f, DType::F32)),
            Obj::Int(i) if strong_other && dtype != DType::Bool => {
                Some(Value::Concrete(Array::full(&[], *i as f64, dtype)))
            }
            Obj::Int(i) => Some(weak_scalar(
                *i as f64,
                if dtype == DType::Bool {
                    DType::I32
                } else {
                    dtype
                },
            )),
            Obj::Bool(b) => Some(Value::Concrete(
                Array::full(&[], *b as i64 as f64, dtype).with_weak(other.aval().weak),
            )),
            _ => None,
        }
    }
    let (x, y) = match (a, b) {
        (Obj::Array(x), Obj::Array(y)) => (x.clone(), y.clone()),
        (Obj::Array(x), s) => (x.clone(), weak(s, x).map_or_else(|| to_value(s), Ok)?),
        (s, Obj::Array(y)) => (weak(s, y).map_or_else(|| to_value(s), Ok)?, y.clone()),
        _ => (to_value(a)?, to_value(b)?),
    };
    Ok((x, y))
}

/// [`weak_pair`] for elementwise operations: the shapes must broadcast.
pub fn operand_pair(a: &Obj, b: &Obj) -> Result<(Value, Value)> {
    let (x, y) = weak_pair(a, b)?;
    // jnp broadcasts before lax sees the operands, and reports a mismatch as
    // a ValueError naming both shapes.
    let (sx, sy) = (x.shape(), y.shape());
    if crate::array::broadcast_shapes(&sx, &sy).is_err() {
        bail!(
            ValueError,
            "Incompatible shapes for broadcasting: shapes=[{}, {}]",
            crate::ir::fmt_shape(&sx),
            crate::ir::fmt_shape(&sy)
        );
    }
    Ok((x, y))
}

/// The operands of the elementwise `op`. Operands of the same rank go to lax
/// unchanged, which rejects shapes that do not broadcast with a TypeError
/// naming the primitive; operands of different ranks are broadcast by jnp
/// first, which raises the ValueError of [`operand_pair`].
pub fn binary_operands(op: BinaryOp, a: &Obj, b: &Obj) -> Result<(Value, Value)> {
    let (x, y) = weak_pair(a, b)?;
    let (sx, sy) = (x.shape(), y.shape());
    if sx.len() == sy.len() && crate::array::broadcast_shapes(&sx, &sy).is_err() {
        // JAX's floor division starts with `rem` for floats and `div` for
        // integers, and its shape error names that primitive.
        let prim = match op {
            BinaryOp::FloorDiv if x.dtype().is_float() => "rem",
            BinaryOp::FloorDiv => "div",
            other => crate::primitives::elementwise::binary_name(other),
        };
        bail!(
            TypeError,
            "{prim} got incompatible shapes for broadcasting: {}, {}.",
            crate::ir::fmt_shape(&sx),
            crate::ir::fmt_shape(&sy)
        );
    }
    operand_pair(&Obj::Array(x), &Obj::Array(y))
}

/// The operands of the elementwise `op` as `jax.numpy` promotes them: a
/// traced operand whose dtype or weak type differs from the promoted one is
/// converted first (a `convert_element_type` in the jaxpr, as JAX records
/// it); constants are left for the primitive to promote.
pub fn jnp_operands(op: BinaryOp, a: &Obj, b: &Obj) -> Result<(Value, Value)> {
    let (x, y) = binary_operands(op, a, b)?;
    if op == BinaryOp::Pow {
        return Ok((x, y));
    }
    let (ax, ay) = (x.aval(), y.aval());
    let dtype = ax.dtype.promote_weak(ax.weak, ay.dtype, ay.weak);
    let weak = crate::primitives::weak::promoted(&ax, &ay);
    let promote = |v: Value, t: &crate::ir::Aval| -> Result<Value> {
        match v {
            Value::Traced(_) if t.dtype != dtype || t.weak != weak => {
                jops::convert_weak(&v, dtype, weak)
            }
            // A weak int constant meeting uint32 becomes a uint32 constant
            // (`add a 1:u32[]`), which the primitive's own promotion would
            // not give.
            Value::Concrete(_) if t.dtype == DType::I32 && dtype == DType::U32 => {
                jops::convert_weak(&v, dtype, false)
            }
            v => Ok(v),
        }
    };
    Ok((promote(x, &ax)?, promote(y, &ay)?))
}

/// `x[i]` along the first axis (for iteration).
pub fn index_first(x: &Value, i: i64) -> Result<Value> {
    array_getitem(x, &Obj::Int(i))
}

/// One entry of an indexing key, classified.
pub(super) enum Idx {
    Int(i64),
    Dynamic(Value),
    Slice(Rc<[Obj; 3]>),
    NewAxis,
    Ellipsis,
    Take(Value),
    /// A concrete boolean mask over `dims` axes, as the flat positions
    /// (row-major over those axes) where it is true.
    Mask {
        dims: Vec<usize>,
        at: Value,
    },
}

impl Idx {
    /// How many axes of the indexed array this index consumes.
    fn consumes(&self) -> usize {
        match self {
            Idx::NewAxis | Idx::Ellipsis => 0,
            Idx::Mask { dims, .. } => dims.len(),
            _ => 1,
        }
    }
}

/// A boolean array index: JAX turns it into the positions where it is
/// true, which needs its value; a traced mask would give an array whose
/// shape depends on data, so JAX refuses it while tracing.
fn mask_index(v: &Value) -> Result<Idx> {
    let dims = v.shape();
    if dims.is_empty() {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: indexing with a 0-dimensional boolean array"
        );
    }
    let Ok(mask) = v.concrete_for(Conversion::Array) else {
        bail!(
            NonConcreteBooleanIndexError,
            "Array boolean indices must be concrete; got bool[{}]\n\nSee https://docs.jax.dev/en/latest/errors.html#jax.errors.NonConcreteBooleanIndexError",
            dims.iter().map(usize::to_string).collect::<Vec<_>>().join(",")
        );
    };
    let at: Vec<i32> = mask
        .to_f64_vec()
        .iter()
        .enumerate()
        .filter(|(_, &b)| b != 0.0)
        .map(|(k, _)| k as i32)
        .collect();
    let n = at.len();
    Ok(Idx::Mask {
        dims,
        at: Value::Concrete(Array::from_i32(&[n], at)?),
    })
}

fn classify(k: &Obj) -> Result<Idx> {
    Ok(match k {
        Obj::Int(i) => Idx::Int(*i),
        Obj::Bool(b) => Idx::Int(*b as i64),
        Obj::Slice(s) => Idx::Slice(s.clone()),
        Obj::None => Idx::NewAxis,
        Obj::Ellipsis => Idx::Ellipsis,
        Obj::Array(v) => {
            if v.dtype() == DType::Bool {
                return mask_index(v);
            }
            if v.dtype().is_float() {
                bail!(
                    IndexError,
                    "Indexer must have integer or boolean type, got indexer with type float32 at position 0, indexer value {}",
                    super::format::str_of(k)
                );
            }
            if v.shape().is_empty() {
                match v {
                    Value::Concrete(a) => Idx::Int(a.get_f64(0) as i64),
                    Value::Traced(_) => Idx::Dynamic(v.clone()),
                }
            } else {
                Idx::Take(v.clone())
            }
        }
        Obj::List(_) => Idx::Take(to_value(k)?),
        // A NumPy array indexes as the array it holds.
        other if other.behaviour().and_then(|b| b.array(other)).is_some() => {
            classify(&Obj::Array(to_value(other)?))?
        }
        other => bail!(
            IndexError,
            "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or boolean arrays are valid indices, got {}",
            other.type_name()
        ),
    })
}

/// NumPy basic and integer-array indexing: `x[key]`.
pub fn array_getitem(x: &Value, key: &Obj) -> Result<Value> {
    let items: Vec<Obj> = match key {
        Obj::Tuple(t) => t.to_vec(),
        other => vec![other.clone()],
    };
    let mut idx: Vec<Idx> = items.iter().map(classify).collect::<Result<_>>()?;
    let consuming: usize = idx.iter().map(Idx::consumes).sum();
    let ndim = x.ndim();
    check_masks(&idx, &x.shape())?;
    if consuming > ndim {
        bail!(
            IndexError,
            "Too many indices: {ndim}-dimensional array indexed with {consuming} regular indices."
        );
    }
    let full = || Idx::Slice(Rc::new([Obj::None, Obj::None, Obj::None]));
    match idx.iter().position(|i| matches!(i, Idx::Ellipsis)) {
        Some(p) => {
            idx.remove(p);
            for _ in 0..ndim - consuming {
                idx.insert(p, full());
            }
        }
        None => {
            for _ in 0..ndim - consuming {
                idx.push(full());
            }
        }
    }
    if let Value::Concrete(a) = x {
        crate::primitives::placement_slicing::check_eager_index(a, &picked_dims(&idx, a.shape())?)?;
    }
    if let Some(out) = super::advanced_index::combined(x, &idx)? {
        return Ok(out);
    }
    let mut cur = x.clone();
    let mut ax = 0usize;
    for i in idx {
        (cur, ax) = apply_index(cur, ax, i)?;
    }
    Ok(cur)
}

/// How a key (its ellipsis expanded) uses each dimension of an array of
/// `shape`, for JAX's sharding rule of indexing (see
/// [`crate::primitives::placement_slicing::check_eager_index`]).
fn picked_dims(idx: &[Idx], shape: &[usize]) -> Result<Vec<Picked>> {
    let mut dims = vec![];
    for i in idx {
        let n = shape.get(dims.len()).copied().unwrap_or(0);
        match i {
            Idx::NewAxis | Idx::Ellipsis => {}
            Idx::Int(_) | Idx::Dynamic(_) => dims.push(Picked::Part(vec![])),
            Idx::Slice(s) => {
                let (start, stop, step) = slice_indices(s, n)?;
                let len = if step > 0 {
                    (stop - start).max(0) as usize
                } else {
                    (start - stop).max(0) as usize
                };
                dims.push(match (step.abs() == 1 && len == n, step) {
                    (true, _) => Picked::Whole,
                    (false, 1) => Picked::Part(vec![]),
                    _ => Picked::Part(vec![len.div_ceil(step.unsigned_abs() as usize)]),
                });
            }
            Idx::Take(v) => dims.push(Picked::Part(v.shape())),
            Idx::Mask { dims: masked, at } => {
                dims.push(Picked::Part(at.shape()));
                dims.extend((1..masked.len()).map(|_| Picked::Part(vec![])));
            }
        }
    }
    Ok(dims)
}

/// Applies one basic index at axis `ax`, giving the array and the axis the
/// next index applies to.
fn apply_index(cur: Value, ax: usize, i: Idx) -> Result<(Value, usize)> {
    let shape = cur.shape();
    Ok(match i {
        Idx::Int(i) => {
            let n = shape[ax] as i64;
            let j = if i < 0 { i + n } else { i };
            if n == 0 {
                bail!(
                    IndexError,
                    "index {i} is out of bounds for axis {ax} with size {n}"
                );
            }
            if (0..n).contains(&j) {
                let one = slice_axis(&cur, ax, j as usize, j as usize + 1, 1)?;
                return Ok((jops::squeeze(&one, Some(&[ax as i64]))?, ax));
            }
            // Past either end JAX slices at the index as given, which
            // clamps it (and which checkify's index checks see).
            let at = jops::scalar(j as f64, DType::I32);
            let one = jops::dynamic_slice_in_dim(&cur, &at, 1, ax as i64)?;
            (jops::squeeze(&one, Some(&[ax as i64]))?, ax)
        }
        Idx::Dynamic(v) => {
            // A negative index counts from the end, as in JAX.
            let n = jops::scalar(shape[ax] as f64, v.dtype());
            let negative = jops::binary(BinaryOp::Lt, &v, &jops::zeros_like(&v))?;
            let v = jops::select(&negative, &jops::binary(BinaryOp::Add, &v, &n)?, &v)?;
            let one = jops::dynamic_slice_in_dim(&cur, &v, 1, ax as i64)?;
            (jops::squeeze(&one, Some(&[ax as i64]))?, ax)
        }
        Idx::Slice(s) => (slice_strided(&cur, ax, &s)?, ax + 1),
        Idx::NewAxis => (jops::expand_dims(&cur, ax as i64)?, ax + 1),
        Idx::Take(v) => (jops::take(&cur, &v, ax as i64)?, ax + v.ndim()),
        Idx::Mask { dims, at } => {
            // The masked axes become one axis of their flat positions.
            let mut merged = shape[..ax].to_vec();
            merged.push(dims.iter().product());
            merged.extend_from_slice(&shape[ax + dims.len()..]);
            let flat = jops::reshape(&cur, &merged)?;
            (jops::take(&flat, &at, ax as i64)?, ax + 1)
        }
        Idx::Ellipsis => (cur, ax),
    })
}

/// `x[..., a:b:c, ...]` along axis `ax`; a negative step reverses the axis
/// and slices forward.
fn slice_strided(cur: &Value, ax: usize, s: &[Obj; 3]) -> Result<Value> {
    let n = cur.shape()[ax];
    let (start, stop, step) = slice_indices(s, n)?;
    if step > 0 {
        let stop = stop.max(start);
        return slice_axis(cur, ax, start as usize, stop as usize, step as usize);
    }
    let count = if start > stop {
        ((start - stop - 1) / -step + 1) as usize
    } else {
        0
    };
    let reversed = jops::rev(cur, &[ax])?;
    let s2 = (n as i64 - 1 - start).max(0) as usize;
    let lim = if count == 0 {
        s2
    } else {
        s2 + (count - 1) * (-step) as usize + 1
    };
    slice_axis(&reversed, ax, s2, lim, (-step) as usize)
}

/// NumPy's check that a boolean mask has the shape of the axes it indexes.
fn check_masks(idx: &[Idx], shape: &[usize]) -> Result<()> {
    let mut ax = 0usize;
    for (pos, i) in idx.iter().enumerate() {
        if let Idx::Mask { dims, .. } = i {
            let expected = shape.get(ax..ax + dims.len()).unwrap_or(&[]);
            if expected != dims.as_slice() {
                let got: Vec<String> = dims.iter().map(usize::to_string).collect();
                let got = match got.len() {
                    1 => format!("({},)", got[0]),
                    _ => format!("({})", got.join(", ")),
                };
                let want: Vec<String> = expected.iter().map(usize::to_string).collect();
                bail!(
                    IndexError,
                    "boolean index did not match shape of indexed array in index {pos}: got {got}, expected [{}]",
                    want.join(", ")
                );
            }
        }
        if matches!(i, Idx::Ellipsis) {
            // The axes after an ellipsis are the last ones.
            let after: usize = idx[pos + 1..].iter().map(Idx::consumes).sum();
            ax = shape.len().saturating_sub(after);
        }
        ax += i.consumes();
    }
    Ok(())
}

fn slice_axis(x: &Value, ax: usize, start: usize, stop: usize, step: usize) -> Result<Value> {
    let shape = x.shape();
    let mut starts = vec![0; shape.len()];
    let mut limits = shape.clone();
    let mut strides = vec![1; shape.len()];
    starts[ax] = start;
    limits[ax] = stop;
    strides[ax] = step;
    jops::slice(x, &starts, &limits, &strides)
}

/// `key` with every array in it concrete, or None when some part of it is
/// traced (or a boolean mask is, which raises JAX's error).
fn concrete_key(key: &Obj) -> Result<Option<Obj>> {
    let items: Vec<Obj> = match key {
        Obj::Tuple(t) => t.to_vec(),
        other => vec![other.clone()],
    };
    let mut out = Vec::with_capacity(items.len());
    for item in &items {
        match item {
            Obj::Array(v) if v.dtype() == DType::Bool => {
                if let Idx::Mask { .. } = mask_index(v)? {
                    let a = v.concrete_for(Conversion::Array)?.clone();
                    out.push(Obj::Array(Value::Concrete(a)));
                }
            }
            Obj::Array(v @ Value::Traced(_)) => match v.concrete_for(Conversion::Array) {
                Ok(a) => out.push(Obj::Array(Value::Concrete(a.clone()))),
                Err(_) => return Ok(None),
            },
            other => out.push(other.clone()),
        }
    }
    Ok(Some(match key {
        Obj::Tuple(_) => Obj::tuple(out),
        _ => out.remove(0),
    }))
}

/// JAX's refusal of a list as a whole index (`x[[1, 2]]`), which NumPy
/// once read as a tuple of indices.
pub fn refuse_list_key(key: &Obj) -> Result<()> {
    if matches!(key, Obj::List(_)) {
        bail!(
            TypeError,
            "Using a non-tuple sequence for multidimensional indexing is not allowed; use `arr[array(seq)]` instead of `arr[seq]`. See https://github.com/jax-ml/jax/issues/4564 for more information."
        );
    }
    Ok(())
}

/// Item assignment on an array, which JAX forbids.
pub fn array_setitem() -> Result<()> {
    bail!(
        TypeError,
        "JAX arrays are immutable and do not support in-place item assignment. Instead of x[idx] = y, use x = x.at[idx].set(y) or another .at[] method: https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html"
    )
}

/// `x.at[idx].set/add/multiply/get(v)`, for indices without traced parts:
/// the selected positions are found on a concrete position array, then the
/// update is a gather of the broadcast values and a select.
pub fn at_update(x: &Value, idx: &Obj, v: &Obj, how: &str) -> Result<Value> {
    at_update_in(x, idx, v, how, &Args::default())
}

/// JAX's `wrap_negative_indices` (True by default). False is followed where
/// negative indices then fall outside, with mode 'fill' or 'drop' on a
/// concrete index; clipping them, or a traced index, is refused.
fn wrap_negative(a: &Args, key: &Option<Obj>, mode: super::index_modes::Mode) -> Result<bool> {
    let wrap = match a.get(None, "wrap_negative_indices") {
        Some(o) => super::ops::truthy(&o, "wrap_negative_indices")?,
        None => true,
    };
    if !wrap && (key.is_none() || mode != super::index_modes::Mode::FillOrDrop) {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: x.at[...](wrap_negative_indices=False) with a traced index or mode='clip'"
        );
    }
    Ok(wrap)
}

/// `x.at[idx].how(v, mode=..., fill_value=...)`: out-of-bounds indices as
/// `mode` says (see [`super::index_modes`]).
pub fn at_update_in(x: &Value, idx: &Obj, v: &Obj, how: &str, a: &Args) -> Result<Value> {
    use super::index_modes::{extend, fill_value, mode_of, sentinel_key, Mode};
    refuse_list_key(idx)?;
    let mode = mode_of(a, how)?;
    let shape = x.shape();
    let key = concrete_key(idx)?;
    let wrap = wrap_negative(a, &key, mode)?;
    let outside = match (&key, mode) {
        (Some(k), Mode::FillOrDrop) => sentinel_key(k, &shape, wrap)?,
        (None, Mode::FillOrDrop) if how == "get" && a.get(None, "mode").is_some() => bail!(
            NotImplementedError,
            "not supported by shardlab yet: x.at[...].get(mode='fill') with a traced index"
        ),
        _ => None,
    };
    if how == "get" {
        return match outside {
            Some((key, dims)) => {
                let fill = fill_value(a, x.dtype())?;
                array_getitem(&extend(x, &dims, &fill)?, &key)
            }
            None => array_getitem(x, idx),
        };
    }
    if outside.is_none() {
        if let Some(out) = dynamic_at_update(x, idx, v, how)? {
            return Ok(out);
        }
    }
    let picked = picked_positions(&shape, idx, &key, &outside)?;
    // The values broadcast against the selected positions, not against x.
    let (xv, vv) = weak_pair(&Obj::Array(x.clone()), v)?;
    let vv = jops::convert(&vv, xv.dtype())?;
    let vv = jops::broadcast_to(&vv, picked.shape())?;
    let flat_v = jops::reshape(&vv, &[picked.size()])?;
    // Integer sums do not depend on their order: one scatter-add.
    if how == "add" && !xv.dtype().is_inexact() {
        if let Some(out) = super::advanced_index::add_repeated(&xv, &picked, &flat_v)? {
            return Ok(out);
        }
    }
    scatter_picked(&xv, &shape, &picked, &flat_v, how)
}

/// The flat position in `x` (of `shape`) of every element `idx` selects, in
/// selection order. A traced index fails here with JAX's error; a concrete
/// one (masks included) picks its positions on the host even while tracing.
/// Indices outside the array pick position -1, and their updates are
/// dropped.
fn picked_positions(
    shape: &[usize],
    idx: &Obj,
    key: &Option<Obj>,
    outside: &Option<(Obj, Vec<usize>)>,
) -> Result<Array> {
    let size: usize = shape.iter().product();
    let positions = Value::Concrete(Array::from_i32(shape, (0..size as i32).collect())?);
    let picked = match (outside, key) {
        (Some((key, dims)), _) => crate::trace::untraced(|| {
            let none = jops::scalar(-1.0, DType::I32);
            array_getitem(&super::index_modes::extend(&positions, dims, &none)?, key)
        })?,
        (None, Some(key)) => crate::trace::untraced(|| array_getitem(&positions, key))?,
        (None, None) => array_getitem(&positions, idx)?,
    };
    Ok(picked.concrete("x.at[idx] with a traced index")?.clone())
}

/// Combines `flat_v[k]` into `xv` (of `shape`) at position `picked[k]` by
/// `how`, position -1 skipped. A position picked more than once takes its
/// updates one after another in selection order, as XLA's scatter applies
/// them (`((x + u1) + u2)`, whose float rounding differs from
/// `x + (u1 + u2)`); for `set` the last one stays.
fn scatter_picked(
    xv: &Value,
    shape: &[usize],
    picked: &Array,
    flat_v: &Value,
    how: &str,
) -> Result<Value> {
    let size: usize = shape.iter().product();
    if picked.size() == 0 {
        return Ok(xv.clone());
    }
    // rounds[r][p]: the update that is position p's (r+1)-th, if any.
    let mut rounds: Vec<Vec<Option<i32>>> = vec![];
    let mut count = vec![0usize; size];
    for (k, p) in picked.to_f64_vec().into_iter().enumerate() {
        if p < 0.0 {
            continue;
        }
        let p = p as usize;
        let r = if how == "set" { 0 } else { count[p] };
        count[p] += 1;
        if rounds.len() <= r {
            rounds.push(vec![None; size]);
        }
        rounds[r][p] = Some(k as i32);
    }
    let mut x = xv.clone();
    for round in rounds {
        let mask: Vec<bool> = round.iter().map(Option::is_some).collect();
        let src: Vec<i32> = round.iter().map(|k| k.unwrap_or(0)).collect();
        let gathered = jops::take(flat_v, &Value::Concrete(Array::from_i32(&[size], src)?), 0)?;
        let gathered = jops::reshape(&gathered, shape)?;
        let mask = Value::Concrete(Array::from_bool(shape, mask)?);
        let updated = combine(how, &x, gathered)?;
        x = jops::select(&mask, &updated, &x)?;
    }
    Ok(x)
}

/// `old` updated with `new` by `how` (`set`, `add`, `multiply`, ...).
fn combine(how: &str, old: &Value, new: Value) -> Result<Value> {
    Ok(match how {
        "set" => new,
        "add" => jops::add(old, &new)?,
        "subtract" => jops::binary(crate::array::BinaryOp::Sub, old, &new)?,
        "multiply" | "mul" => jops::mul(old, &new)?,
        "min" => jops::minimum(old, &new)?,
        "max" => jops::maximum(old, &new)?,
        other => bail!(
            NotImplementedError,
            "not supported by shardlab yet: x.at[...].{other}"
        ),
    })
}

/// `x.at[i, j, ...].set/add/...(v)` where the index is integers (some of
/// them traced scalars) over leading dimensions, then whole dimensions: a
/// dynamic slice of the block, the update, and a dynamic update slice. An
/// index out of range drops the update, as JAX's scatter does. None for
/// any other index.
fn dynamic_at_update(x: &Value, idx: &Obj, v: &Obj, how: &str) -> Result<Option<Value>> {
    let items: Vec<Obj> = match idx {
        Obj::Tuple(t) => t.to_vec(),
        other => vec![other.clone()],
    };
    let shape = x.shape();
    if items.len() > shape.len() {
        return Ok(None);
    }
    let mut starts = vec![];
    let mut any_traced = false;
    for k in &items {
        match classify(k)? {
            Idx::Dynamic(i) => {
                any_traced = true;
                starts.push(i);
            }
            Idx::Int(i) => starts.push(jops::scalar(i as f64, DType::I32)),
            _ => return Ok(None),
        }
    }
    if !any_traced {
        return Ok(None);
    }
    let zero = jops::scalar(0.0, DType::I32);
    let mut in_bounds: Option<Value> = None;
    for (d, s) in starts.iter_mut().enumerate() {
        let n = jops::scalar(shape[d] as f64, DType::I32);
        let i = jops::convert(s, DType::I32)?;
        let negative = jops::binary(BinaryOp::Lt, &i, &zero)?;
        let i = jops::select(&negative, &jops::add(&i, &n)?, &i)?;
        let ok = jops::binary(
            BinaryOp::And,
            &jops::binary(BinaryOp::Ge, &i, &zero)?,
            &jops::binary(BinaryOp::Lt, &i, &n)?,
        )?;
        in_bounds = Some(match in_bounds {
            Some(prev) => jops::binary(BinaryOp::And, &prev, &ok)?,
            None => ok,
        });
        *s = i;
    }
    starts.resize(shape.len(), zero);
    let mut block = shape.clone();
    block[..items.len()].fill(1);
    let (xv, vv) = weak_pair(&Obj::Array(x.clone()), v)?;
    let vv = jops::convert(&vv, xv.dtype())?;
    let vv = jops::broadcast_to(&vv, &shape[items.len()..])?;
    let vv = jops::reshape(&vv, &block)?;
    let old = jops::dynamic_slice(&xv, &starts, &block)?;
    let new = combine(how, &old, vv)?;
    let updated = jops::dynamic_update_slice(&xv, &new, &starts)?;
    match in_bounds {
        Some(ok) => Ok(Some(jops::select(&ok, &updated, &xv)?)),
        None => Ok(Some(updated)),
    }
}

fn method(
    name: &str,
    x: &Value,
    f: impl Fn(&mut Interp, &Value, Args) -> Result<Obj> + 'static,
) -> Obj {
    let x = x.clone();
    Obj::native(name, move |i, a| f(i, &x, a))
}

fn jnp_method(interp: &mut Interp, x: &Value, jnp_name: &str) -> Result<Obj> {
    let jnp = interp.import("jax.numpy")?;
    let f = super::ops::getattr(interp, &jnp, jnp_name)?;
    Ok(Obj::Method(Rc::new((Obj::Array(x.clone()), f))))
}

fn shape_args(a: &Args) -> Result<Vec<i64>> {
    // JAX's message shows the shape as the method read it: a sequence as
    // given, one number as a list of it, several as their tuple.
    let (items, given) = if a.pos.len() == 1 && matches!(a.pos[0], Obj::Tuple(_) | Obj::List(_)) {
        (super::ops::iterate(&a.pos[0])?, a.pos[0].clone())
    } else if a.pos.is_empty() {
        match a.get(None, "shape") {
            Some(s) => (super::ops::iterate(&s)?, s),
            None => (vec![], Obj::tuple(vec![])),
        }
    } else if a.pos.len() == 1 {
        (a.pos.clone(), Obj::list(a.pos.clone()))
    } else {
        (a.pos.clone(), Obj::tuple(a.pos.clone()))
    };
    concrete_shape(&items, &given)?;
    items.iter().map(super::builtins::to_int).collect()
}

/// JAX's TypeError for a shape holding a traced value (`jnp.zeros((n,))`
/// with `n` traced by jit); `given` is the shape as JAX shows it (the
/// sequence the function was given, or the one it made of a number).
pub fn concrete_shape(items: &[Obj], given: &Obj) -> Result<()> {
    let traced: Vec<&crate::trace::Tracer> = items
        .iter()
        .filter_map(|o| match o {
            Obj::Array(Value::Traced(t)) if t.known.is_none() => Some(t),
            _ => None,
        })
        .collect();
    if traced.is_empty() {
        if items.iter().all(integer_like) {
            return Ok(());
        }
        bail!(
            TypeError,
            "Shapes must be 1D sequences of concrete values of integer type, got {}.",
            super::format::repr_of(given)
        );
    }
    // Each traced dimension says where it came from, as in JAX.
    let origins: String = traced
        .iter()
        .map(|t| crate::trace::origin_text(t))
        .collect();
    bail!(
        TypeError,
        "Shapes must be 1D sequences of concrete values of integer type, got {}.\nIf using \
         `jit`, try using `static_argnums` or applying `jit` to smaller subfunctions.{origins}",
        super::format::repr_of(given)
    )
}

/// Whether a dimension is an integer JAX takes as one: a Python or NumPy
/// integer, or a 0-d integer array.
fn integer_like(o: &Obj) -> bool {
    match o {
        Obj::Int(_) | Obj::Bool(_) => true,
        Obj::Array(v) => v.shape().is_empty() && v.dtype().is_int(),
        Obj::Lib(_) => matches!(o.lib_scalar(), Some(Obj::Int(_) | Obj::Bool(_))),
        _ => false,
    }
}

/// `x.reshape(...)` and `jnp.reshape(x, shape)`.
pub fn reshape_value(x: &Value, requested: &[i64]) -> Result<Value> {
    let shape = jops::infer_shape(requested, x.shape().iter().product(), &x.shape())?;
    jops::reshape(x, &shape)
}

/// An attribute of an array.
pub fn array_attr(interp: &mut Interp, x: &Value, name: &str) -> Result<Obj> {
    if let Value::Concrete(a) = x {
        if let Some(o) = deletion_attr(a, name)? {
            return Ok(o);
        }
    }
    let shape = x.shape();
    Ok(match name {
        "shape" => Obj::tuple(shape.iter().map(|&d| Obj::Int(d as i64)).collect()),
        "ndim" => Obj::Int(shape.len() as i64),
        "size" => Obj::Int(shape.iter().product::<usize>() as i64),
        "dtype" => Obj::DType(x.dtype()),
        "itemsize" => Obj::Int(x.dtype().itemsize() as i64),
        "nbytes" => Obj::Int((x.dtype().itemsize() * shape.iter().product::<usize>()) as i64),
        "weak_type" => Obj::Bool(x.aval().weak),
        "T" => {
            let perm: Vec<usize> = (0..shape.len()).rev().collect();
            Obj::Array(jops::transpose(x, &perm)?)
        }
        "mT" => {
            if shape.len() < 2 {
                crate::bail!(
                    ValueError,
                    "x must be at least two-dimensional for matrix_transpose; got ndim={}",
                    shape.len()
                );
            }
            let mut perm: Vec<usize> = (0..shape.len()).collect();
            perm.swap(shape.len() - 2, shape.len() - 1);
            Obj::Array(jops::transpose(x, &perm)?)
        }
        "sum" | "mean" | "max" | "min" | "prod" | "argmax" | "argmin" | "any" | "all"
        | "squeeze" | "astype" | "clip" | "swapaxes" | "var" | "std" | "cumsum" | "dot"
        | "round" | "conj" | "conjugate" => jnp_method(interp, x, name)?,
        "real" | "imag" => {
            let f = jnp_method(interp, x, name)?;
            interp.call(&f, Args::new(vec![]))?
        }
        "reshape" => method("reshape", x, |_, x, a| {
            Ok(Obj::Array(reshape_value(x, &shape_args(&a)?)?))
        }),
        "transpose" => method("transpose", x, |_, x, a| {
            let mut perm: Vec<usize> = shape_args(&a)?.iter().map(|&p| p as usize).collect();
            if perm.is_empty() {
                perm = (0..x.ndim()).rev().collect();
            }
            Ok(Obj::Array(jops::transpose(x, &perm)?))
        }),
        "flatten" | "ravel" => method(name, x, |_, x, _| Ok(Obj::Array(reshape_value(x, &[-1])?))),
        "item" => method("item", x, |_, x, _| item(x)),
        "tolist" => method("tolist", x, |_, x, _| {
            let detail = match x {
                Value::Traced(t) => format!(
                    "The tolist() method was called on traced array with shape {}.",
                    t.shape_text()
                ),
                Value::Concrete(_) => String::new(),
            };
            tolist(x.concrete_for(Conversion::Concrete(detail))?)
        }),
        // A copy is a new array (donating one leaves the other alive).
        "copy" => method(name, x, |_, x, _| {
            Ok(Obj::Array(match x {
                Value::Concrete(a) => Value::Concrete(a.with_own_buffer()),
                traced => traced.clone(),
            }))
        }),
        "block_until_ready" => method(name, x, |_, x, _| Ok(Obj::Array(x.clone()))),
        "at" => index_update_ref(x),
        _ => {
            if let Value::Concrete(a) = x {
                let library = interp.library.clone();
                if let Some(o) = library.array_attr(interp, a, name)? {
                    return Ok(o);
                }
            }
            let type_name = Obj::Array(x.clone()).type_name();
            return Err(interp.library.missing_object_attr(&type_name, name));
        }
    })
}

/// `x.delete()`, `x.is_deleted()`, and what a deleted array still answers:
/// its shape and dtype are known without its data, and everything else
/// raises JAX's errors.
fn deletion_attr(a: &Array, name: &str) -> Result<Option<Obj>> {
    use crate::trace::deleted;
    match name {
        "delete" => {
            let a = a.clone();
            return Ok(Some(Obj::native("delete", move |_, _| {
                deleted::delete(&a);
                Ok(Obj::None)
            })));
        }
        "is_deleted" => {
            let a = a.clone();
            return Ok(Some(Obj::native("is_deleted", move |_, _| {
                Ok(Obj::Bool(deleted::is_deleted(&a)))
            })));
        }
        "shape" | "ndim" | "size" | "dtype" | "itemsize" | "nbytes" | "weak_type" | "sharding"
        | "at" => return Ok(None),
        _ => {}
    }
    if name == "block_until_ready" && deleted::is_deleted(a) {
        return Ok(Some(Obj::native("block_until_ready", |_, _| {
            crate::bail!(
                JaxRuntimeError,
                "INVALID_ARGUMENT: BlockHostUntilReady() called on deleted or donated buffer"
            )
        })));
    }
    deleted::check(a)?;
    Ok(None)
}

/// `x.item()`: the one element of a concrete array as a Python scalar.
fn item(x: &Value) -> Result<Obj> {
    let a = x.concrete_for(Conversion::Concrete(
        "This occurred in the item() method of jax.Array".into(),
    ))?;
    if a.size() != 1 {
        bail!(
            ValueError,
            "can only convert an array of size 1 to a Python scalar"
        );
    }
    Ok(scalar_obj(a, 0))
}

/// `x.at`: indexing it gives the `_IndexUpdateRef` whose `set`, `add`, ...
/// return the updated array.
fn index_update_ref(x: &Value) -> Obj {
    let x = x.clone();
    Obj::native("at", move |_, a| {
        let idx = a.pos.first().cloned().unwrap_or(Obj::None);
        let mut attrs = vec![];
        for how in [
            "set", "add", "subtract", "multiply", "mul", "min", "max", "get",
        ] {
            let (x, idx) = (x.clone(), idx.clone());
            attrs.push((
                how.to_string(),
                Obj::native(how, move |_, a| {
                    let v = a.get(Some(0), "values").unwrap_or(Obj::None);
                    Ok(Obj::Array(at_update_in(&x, &idx, &v, how, &a)?))
                }),
            ));
        }
        Ok(Obj::Module(Rc::new(Module {
            name: "_IndexUpdateRef".into(),
            attrs: RefCell::new(attrs),
        })))
    })
}

/// Element `i` of a concrete array as a Python scalar.
pub fn scalar_obj(a: &Array, i: usize) -> Obj {
    match a.dtype() {
        DType::Bool => Obj::Bool(a.get_f64(i) != 0.0),
        d if d.is_float() => Obj::Float(a.get_f64(i)),
        d if d.is_int() => Obj::Int(a.get_f64(i) as i64),
        DType::C64 => match a.buffer() {
            crate::array::Buffer::C64(d) => Obj::Complex(d[i].re as f64, d[i].im as f64),
            _ => Obj::None,
        },
        _ => Obj::None,
    }
}

/// `x.tolist()`.
pub fn tolist(a: &Array) -> Result<Obj> {
    fn rec(a: &Array, shape: &[usize], offset: usize) -> Obj {
        if shape.is_empty() {
            return scalar_obj(a, offset);
        }
        let inner: usize = shape[1..].iter().product();
        Obj::list(
            (0..shape[0])
                .map(|i| rec(a, &shape[1..], offset + i * inner))
                .collect(),
        )
    }
    Ok(rec(a, a.shape(), 0))
}

/// `jnp.float32(x)` and the other dtypes called as functions.
pub fn cast_to(d: DType, a: Args) -> Result<Obj> {
    let v = to_value_as(&a.req(Some(0), "x", d.name())?, d)?;
    // A conversion of a concrete value is done at once, also inside a
    // traced function: `np.float32(2.5)` there is a number, and a scalar
    // constant enters the program as a float32 literal, not a conversion.
    if let Value::Concrete(_) = v {
        return Ok(Obj::Array(crate::trace::untraced(|| jops::astype(&v, d))?));
    }
    Ok(Obj::Array(jops::astype(&v, d)?))
}

/// Python numbers as an array of the narrow `dtype`: floats rounded from
/// their double value (as NumPy converts them), ints checked against the
/// type's range (`jnp.int8(300)` is an OverflowError, as in NumPy).
fn narrow_value(o: &Obj, dtype: DType) -> Result<Value> {
    let mut shape = vec![];
    let mut data = vec![];
    let mut found = DType::Bool;
    match o {
        Obj::Int(_) | Obj::Bool(_) | Obj::Float(_) => {
            flatten_numbers(o, 0, &[], &mut data, &mut found)?
        }
        Obj::List(_) | Obj::Tuple(_) => {
            nested_shape(o, &mut shape)?;
            flatten_numbers(o, 0, &shape, &mut data, &mut found)?;
        }
        _ => return to_value(o),
    }
    if found == DType::C64 {
        return to_value(o);
    }
    check_size(data.len())?;
    let values: Vec<f64> = data.iter().map(|&(v, _)| v).collect();
    if dtype.is_int() && found != DType::F32 {
        let (lo, hi) = crate::array::narrow::int_bounds(dtype);
        if let Some(v) = values.iter().find(|&&v| v < lo as f64 || v > hi as f64) {
            bail!(
                OverflowError,
                "Python integer {} out of bounds for {}",
                *v as i64,
                dtype.name()
            );
        }
    }
    let values: Vec<f64> = if dtype.is_int() {
        values.iter().map(|v| v.trunc()).collect()
    } else {
        values
    };
    Ok(Value::Concrete(from_f64(&shape, &values, dtype)?))
}

/// [`to_value`] for a requested dtype: Python ints meant for uint32 are
/// taken whole (4000000000 is a uint32, not a saturated int32) and must lie
/// in its range, as NumPy checks them (`jnp.uint32(-1)` is an
/// OverflowError). Anything else converts as [`to_value`] does; the caller
/// casts the result.
pub fn to_value_as(o: &Obj, dtype: DType) -> Result<Value> {
    if dtype.is_narrow() && !contains_array(o) {
        return narrow_value(o, dtype);
    }
    if dtype != DType::U32 || contains_array(o) {
        return to_value(o);
    }
    let mut shape = vec![];
    let mut data = vec![];
    let mut found = DType::Bool;
    match o {
        Obj::Int(_) | Obj::Bool(_) => flatten_numbers(o, 0, &[], &mut data, &mut found)?,
        Obj::List(_) | Obj::Tuple(_) => {
            nested_shape(o, &mut shape)?;
            flatten_numbers(o, 0, &shape, &mut data, &mut found)?;
        }
        _ => return to_value(o),
    }
    if found > DType::I32 {
        return to_value(o);
    }
    check_size(data.len())?;
    let words = data
        .iter()
        .map(|&(v, _)| {
            if !(0.0..=u32::MAX as f64).contains(&v) {
                bail!(OverflowError, "Python integer {v} out of bounds for uint32");
            }
            Ok(v as u32)
        })
        .collect::<Result<Vec<u32>>>()?;
    Ok(Value::Concrete(Array::from_u32(&shape, words)?))
}
