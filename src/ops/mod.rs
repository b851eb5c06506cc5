//! The operations a program calls (jnp and lax), on [`Value`]s.
//!
//! Each is a thin layer over [`bind`](crate::trace::bind): it validates and normalises arguments
//! (negative axes, keepdims, Python-scalar promotion) and emits primitives. The
//! same functions compute eagerly on concrete arrays and record equations under
//! a trace, and the differentiation rules are written with them.

pub mod jitted;
pub mod parallel;

use crate::array::{Array, BinaryOp, DType, ReduceOp, UnaryOp};
use crate::bail;
use crate::error::Result;
use crate::primitives::Prim;
use crate::trace::{bind1, Value};

pub use jitted::{jitted, jitted1};
pub use parallel::*;

/// A scalar constant of `dtype`.
pub fn scalar(v: f64, dtype: DType) -> Value {
    Value::Concrete(Array::full(&[], v, dtype))
}

/// Zeros of `v`'s shape and dtype.
pub fn zeros_like(v: &Value) -> Value {
    Value::Concrete(Array::zeros(&v.shape(), v.dtype()))
}

/// `out` placed where the concrete `like` is, as `jnp.full_like` and its
/// family place their results outside a trace; under a trace the
/// placement is the trace's business and `out` is returned as it is.
pub fn placed_like(out: Value, like: &Value) -> Value {
    match (out, like) {
        (Value::Concrete(o), Value::Concrete(x)) if x.placement().is_some() => {
            Value::Concrete(o.with_placement(x.placement_rc()))
        }
        (out, _) => out,
    }
}

/// Resolves a possibly negative axis against `ndim`, or an error naming both.
pub fn norm_axis(axis: i64, ndim: usize) -> Result<usize> {
    let n = ndim as i64;
    if axis < -n || axis >= n {
        bail!(
            ValueError,
            "axis {axis} is out of bounds for array of dimension {ndim}"
        );
    }
    Ok(if axis < 0 {
        (axis + n) as usize
    } else {
        axis as usize
    })
}

/// An elementwise function of one operand.
pub fn unary(op: UnaryOp, x: &Value) -> Result<Value> {
    bind1(Prim::Unary(op), std::slice::from_ref(x))
}

/// An elementwise function of two operands, with NumPy broadcasting.
pub fn binary(op: BinaryOp, x: &Value, y: &Value) -> Result<Value> {
    let (x, y) = promote_ranks(x, y)?;
    let (x, y) = promote_dtypes(op, x, y)?;
    bind1(Prim::Binary(op), &[x, y])
}

/// Two operands of an arithmetic or comparison operation of one dtype, as
/// jax.numpy hands them to lax: under a trace a traced operand of another
/// dtype is converted by an equation (`convert_element_type[new_dtype=float32
/// weak_type=True]` for an int array meeting a Python float), a concrete one
/// at once (a literal of the right type); computing eagerly, the operation
/// promotes by itself.
fn promote_dtypes(op: BinaryOp, x: Value, y: Value) -> Result<(Value, Value)> {
    use BinaryOp::*;
    let arithmetic = matches!(
        op,
        Add | Sub | Mul | Max | Min | Eq | Ne | Lt | Le | Gt | Ge
    );
    if !arithmetic || x.dtype() == y.dtype() || !crate::trace::tracing() {
        return Ok((x, y));
    }
    let (ax, ay) = (x.aval(), y.aval());
    let target = ax.dtype.promote_weak(ax.weak, ay.dtype, ay.weak);
    let weak = crate::primitives::weak::promoted(&ax, &ay);
    let to = |v: Value| -> Result<Value> {
        if v.dtype() == target {
            return Ok(v);
        }
        match v {
            Value::Concrete(_) => crate::trace::untraced(|| convert_weak(&v, target, weak)),
            traced => convert_weak(&traced, target, weak),
        }
    };
    Ok((to(x)?, to(y)?))
}

/// Two operands of a broadcasting operation at the same rank, as jax.numpy
/// gives them to lax: under a trace, the one of lower rank (not a scalar)
/// gains leading axes of size 1 through a `broadcast_in_dim`, which is what
/// JAX's jaxprs show; computing eagerly, broadcasting needs no equation.
fn promote_ranks(x: &Value, y: &Value) -> Result<(Value, Value)> {
    let (rx, ry) = (x.ndim(), y.ndim());
    if rx == ry || rx == 0 || ry == 0 || !crate::trace::tracing() {
        return Ok((x.clone(), y.clone()));
    }
    let up = |v: &Value, rank: usize| -> Result<Value> {
        let shape = v.shape();
        let off = rank - shape.len();
        let mut to = vec![1; off];
        to.extend_from_slice(&shape);
        broadcast_in_dim(v, &to, &(off..rank).collect::<Vec<_>>())
    };
    Ok(if rx < ry {
        (up(x, ry)?, y.clone())
    } else {
        (x.clone(), up(y, rx)?)
    })
}

macro_rules! binary_fns {
    ($($name:ident => $op:ident),* $(,)?) => {$(
        #[doc = concat!("Elementwise `", stringify!($name), "` with broadcasting.")]
        pub fn $name(x: &Value, y: &Value) -> Result<Value> {
            binary(BinaryOp::$op, x, y)
        }
    )*};
}
binary_fns!(add => Add, sub => Sub, mul => Mul, div => Div, pow => Pow, maximum => Max,
            minimum => Min, equal => Eq, not_equal => Ne, less => Lt, less_equal => Le,
            greater => Gt, greater_equal => Ge);

macro_rules! unary_fns {
    ($($name:ident => $op:ident),* $(,)?) => {$(
        #[doc = concat!("Elementwise `", stringify!($name), "`.")]
        pub fn $name(x: &Value) -> Result<Value> {
            unary(UnaryOp::$op, x)
        }
    )*};
}
unary_fns!(neg => Neg, abs => Abs, sign => Sign, exp => Exp, log => Log, sqrt => Sqrt,
           tanh => Tanh, sin => Sin, cos => Cos, logistic => Logistic);

/// `x * c` for a Python-number `c` (keeps x's dtype, as a weak-typed scalar does).
pub fn mul_scalar(x: &Value, c: f64) -> Result<Value> {
    mul(
        x,
        &Value::Concrete(Array::full(&[], c, x.dtype()).with_weak(true)),
    )
}

/// `x ** n` for a fixed integer.
pub fn integer_pow(x: &Value, n: i32) -> Result<Value> {
    bind1(Prim::IntegerPow(n), std::slice::from_ref(x))
}

/// `lax.clamp(lo, x, hi)`.
pub fn clamp(lo: &Value, x: &Value, hi: &Value) -> Result<Value> {
    bind1(Prim::Clamp, &[lo.clone(), x.clone(), hi.clone()])
}

/// `jnp.where(cond, x, y)`.
pub fn select(cond: &Value, x: &Value, y: &Value) -> Result<Value> {
    bind1(Prim::Select, &[cond.clone(), x.clone(), y.clone()])
}

/// `x` as `dtype` for promotion, weakly typed if `x` is (a Python int
/// promoted to float stays weak); a no-op when the dtype already matches.
pub fn convert(x: &Value, dtype: DType) -> Result<Value> {
    if x.dtype() == dtype {
        return Ok(x.clone());
    }
    refuse_dropping_imag(x, dtype)?;
    bind1(Prim::Convert(dtype, x.aval().weak), std::slice::from_ref(x))
}

/// `x.astype(dtype)`: always strongly typed, so a weak `x` of the same
/// dtype is converted too (only its `weak_type` changes).
pub fn astype(x: &Value, dtype: DType) -> Result<Value> {
    convert_weak(x, dtype, false)
}

/// `x.astype(dtype)` where a complex `x` may become real: the conversion
/// keeps the real part, as `convert_element_type` does in JAX.
pub fn astype_dropping_imag(x: &Value, dtype: DType) -> Result<Value> {
    if x.dtype() == dtype && !x.aval().weak {
        return Ok(x.clone());
    }
    bind1(Prim::Convert(dtype, false), std::slice::from_ref(x))
}

/// Promotion never turns a complex value real; a conversion that would
/// (and so drop imaginary parts silently) is an operation shardlab has
/// not modelled at that place.
fn refuse_dropping_imag(x: &Value, dtype: DType) -> Result<()> {
    if x.dtype() == DType::C64 && dtype != DType::C64 {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: complex64 in convert_element_type"
        );
    }
    Ok(())
}

/// `convert_element_type(x, dtype, weak_type)`: a no-op only when both the
/// dtype and the weak bit already match.
pub fn convert_weak(x: &Value, dtype: DType, weak: bool) -> Result<Value> {
    if x.dtype() == dtype && x.aval().weak == weak {
        return Ok(x.clone());
    }
    refuse_dropping_imag(x, dtype)?;
    bind1(Prim::Convert(dtype, weak), std::slice::from_ref(x))
}

fn norm_axes(axes: Option<&[i64]>, ndim: usize) -> Result<Vec<usize>> {
    let mut out = match axes {
        None => (0..ndim).collect(),
        Some(a) => a
            .iter()
            .map(|&x| norm_axis(x, ndim))
            .collect::<Result<Vec<_>>>()?,
    };
    out.sort_unstable();
    if out.windows(2).any(|w| w[0] == w[1]) {
        bail!(
            ValueError,
            "duplicate value in 'axis': {:?}",
            axes.unwrap_or(&[])
        );
    }
    Ok(out)
}

fn keep_dims(x: &Value, shape: &[usize], axes: &[usize]) -> Result<Value> {
    let mut kept = shape.to_vec();
    for &a in axes {
        kept[a] = 1;
    }
    reshape(x, &kept)
}

/// A reduction over `axes` (all when None), as `jnp.sum(x, axis, keepdims)`.
pub fn reduce(op: ReduceOp, x: &Value, axes: Option<&[i64]>, keepdims: bool) -> Result<Value> {
    let shape = x.shape();
    let axes = norm_axes(axes, shape.len())?;
    let r = bind1(
        Prim::Reduce {
            op,
            axes: axes.clone(),
        },
        std::slice::from_ref(x),
    )?;
    if keepdims {
        keep_dims(&r, &shape, &axes)
    } else {
        Ok(r)
    }
}

/// `jnp.sum`.
pub fn sum(x: &Value, axes: Option<&[i64]>, keepdims: bool) -> Result<Value> {
    reduce(ReduceOp::Sum, x, axes, keepdims)
}

/// `jnp.mean`: the sum divided by the number of reduced elements (floats out).
pub fn mean(x: &Value, axes: Option<&[i64]>, keepdims: bool) -> Result<Value> {
    let shape = x.shape();
    let n: usize = norm_axes(axes, shape.len())?
        .iter()
        .map(|&a| shape[a])
        .product();
    // Integers and booleans average as float32; complex64 stays complex;
    // a narrow float averages in float32, rounded back at the end.
    let dtype = if x.dtype() == DType::C64 {
        DType::C64
    } else {
        DType::F32
    };
    let narrow = Some(x.dtype()).filter(|d| d.is_narrow() && d.is_float());
    let x = convert(x, dtype)?;
    let s = sum(&x, axes, keepdims)?;
    let n = scalar(n as f64, dtype);
    // JAX's mean is itself jitted, so its count is a compiled constant,
    // which XLA divides by as a multiplication by its reciprocal: also
    // under eager differentiation, where JAX compiles mean on its own. A
    // staged division by a constant runs that way too (see exec), so there
    // it stays the division JAX's jaxpr shows.
    let m = if crate::trace::all_eager() {
        mul(&s, &div(&scalar(1.0, dtype), &n)?)?
    } else {
        div(&s, &n)?
    };
    match narrow {
        Some(d) => convert(&m, d),
        None => Ok(m),
    }
}

/// `jnp.argmax` / `jnp.argmin` along one axis (the flattened array when None).
pub fn arg_reduce(x: &Value, axis: Option<i64>, keepdims: bool, min: bool) -> Result<Value> {
    let (x, axis) = match axis {
        None => (reshape(x, &[x.shape().iter().product()])?, 0),
        Some(a) => (x.clone(), norm_axis(a, x.ndim())?),
    };
    let shape = x.shape();
    let r = bind1(Prim::ArgReduce { min, axis }, &[x])?;
    if keepdims {
        keep_dims(&r, &shape, &[axis])
    } else {
        Ok(r)
    }
}

/// `jnp.reshape` with a fully specified shape (resolve -1 before calling).
pub fn reshape(x: &Value, shape: &[usize]) -> Result<Value> {
    if x.shape() == shape {
        return Ok(x.clone());
    }
    bind1(Prim::Reshape(shape.to_vec()), std::slice::from_ref(x))
}

/// Resolves one -1 in a requested shape against `size` elements.
pub fn infer_shape(requested: &[i64], size: usize, from: &[usize]) -> Result<Vec<usize>> {
    let unknown: Vec<usize> = requested
        .iter()
        .enumerate()
        .filter(|(_, &d)| d == -1)
        .map(|(i, _)| i)
        .collect();
    if unknown.len() > 1 || requested.iter().any(|&d| d < -1) {
        bail!(
            ValueError,
            "can only specify one unknown dimension, got shape {requested:?}"
        );
    }
    let known: usize = requested
        .iter()
        .filter(|&&d| d >= 0)
        .map(|&d| d as usize)
        .product();
    let mut out: Vec<usize> = requested.iter().map(|&d| d.max(0) as usize).collect();
    if let Some(&i) = unknown.first() {
        if known == 0 || size % known != 0 {
            bail!(
                TypeError,
                "cannot reshape array of shape {from:?} (size {size}) into shape {requested:?}"
            );
        }
        out[i] = size / known;
    }
    if out.iter().product::<usize>() != size {
        bail!(
            TypeError,
            "cannot reshape array of shape {from:?} (size {size}) into shape {requested:?} (size {})",
            out.iter().product::<usize>()
        );
    }
    Ok(out)
}

/// `jnp.transpose` with an explicit permutation.
pub fn transpose(x: &Value, perm: &[usize]) -> Result<Value> {
    if perm.iter().enumerate().all(|(i, &p)| i == p) && perm.len() == x.ndim() {
        return Ok(x.clone());
    }
    bind1(Prim::Transpose(perm.to_vec()), std::slice::from_ref(x))
}

/// `jnp.moveaxis` for one axis.
pub fn moveaxis(x: &Value, src: usize, dst: usize) -> Result<Value> {
    let mut perm: Vec<usize> = (0..x.ndim()).filter(|&i| i != src).collect();
    perm.insert(dst, src);
    transpose(x, &perm)
}

/// `lax.broadcast_in_dim`.
pub fn broadcast_in_dim(x: &Value, shape: &[usize], dims: &[usize]) -> Result<Value> {
    if x.shape() == shape {
        return Ok(x.clone());
    }
    bind1(
        Prim::BroadcastInDim {
            shape: shape.to_vec(),
            dims: dims.to_vec(),
        },
        std::slice::from_ref(x),
    )
}

/// `jnp.broadcast_to` with NumPy's rules (trailing alignment).
pub fn broadcast_to(x: &Value, shape: &[usize]) -> Result<Value> {
    let xs = x.shape();
    if xs.len() > shape.len() {
        bail!(
            ValueError,
            "cannot broadcast array of shape {xs:?} to shape {shape:?}"
        );
    }
    let off = shape.len() - xs.len();
    for (i, &d) in xs.iter().enumerate() {
        if d != 1 && d != shape[off + i] {
            bail!(
                ValueError,
                "cannot broadcast array of shape {xs:?} to shape {shape:?}"
            );
        }
    }
    // Squeeze the size-1 dims that grow, then place the rest.
    let keep: Vec<usize> = (0..xs.len()).filter(|&i| xs[i] == shape[off + i]).collect();
    let squeezed = reshape(x, &keep.iter().map(|&i| xs[i]).collect::<Vec<_>>())?;
    broadcast_in_dim(
        &squeezed,
        shape,
        &keep.iter().map(|&i| off + i).collect::<Vec<_>>(),
    )
}

/// Sums `x` down to `shape`, undoing a NumPy broadcast: the cotangent rule of
/// every broadcasting operation.
pub fn sum_to_shape(x: &Value, shape: &[usize]) -> Result<Value> {
    let xs = x.shape();
    if xs == shape {
        return Ok(x.clone());
    }
    let off = xs.len() - shape.len();
    let axes: Vec<i64> = (0..xs.len())
        .filter(|&i| i < off || (shape[i - off] == 1 && xs[i] != 1))
        .map(|i| i as i64)
        .collect();
    let s = sum(x, Some(&axes), false)?;
    reshape(&s, shape)
}

/// `jnp.expand_dims` at one position.
pub fn expand_dims(x: &Value, axis: i64) -> Result<Value> {
    expand_dims_at(x, &[axis])
}

/// `jnp.expand_dims(x, axes)`: size-1 axes at each of `axes`, counted in
/// the result's dimensions (NumPy's rule), none repeated.
pub fn expand_dims_at(x: &Value, axes: &[i64]) -> Result<Value> {
    let old = x.shape();
    let rank = old.len() + axes.len();
    let mut new: Vec<usize> = axes
        .iter()
        .map(|&a| norm_axis(a, rank))
        .collect::<Result<_>>()?;
    new.sort_unstable();
    if new.windows(2).any(|w| w[0] == w[1]) {
        bail!(ValueError, "repeated axis");
    }
    let kept: Vec<usize> = (0..rank).filter(|d| !new.contains(d)).collect();
    let mut shape = vec![1; rank];
    for (&d, &n) in kept.iter().zip(&old) {
        shape[d] = n;
    }
    // JAX adds the axes with a broadcast_in_dim, which a jaxpr shows.
    if crate::trace::tracing() {
        return broadcast_in_dim(x, &shape, &kept);
    }
    reshape(x, &shape)
}

/// `jnp.squeeze` of the given axes (all size-1 axes when None).
pub fn squeeze(x: &Value, axes: Option<&[i64]>) -> Result<Value> {
    let shape = x.shape();
    let axes: Vec<usize> = match axes {
        None => (0..shape.len()).filter(|&i| shape[i] == 1).collect(),
        Some(a) => a
            .iter()
            .map(|&i| norm_axis(i, shape.len()))
            .collect::<Result<_>>()?,
    };
    for &a in &axes {
        if shape[a] != 1 {
            bail!(
                ValueError,
                "cannot select an axis to squeeze out which has size not equal to one: \
                 axis {a} of shape {shape:?} has size {}",
                shape[a]
            );
        }
    }
    let new: Vec<usize> = (0..shape.len())
        .filter(|i| !axes.contains(i))
        .map(|i| shape[i])
        .collect();
    reshape(x, &new)
}

/// `jnp.concatenate` along `axis`.
pub fn concatenate(xs: &[Value], axis: i64) -> Result<Value> {
    if xs.is_empty() {
        bail!(ValueError, "Need at least one array to concatenate.");
    }
    let axis = norm_axis(axis, xs[0].ndim())?;
    if xs.len() == 1 {
        return Ok(xs[0].clone());
    }
    let dtype = xs.iter().map(|x| x.dtype()).max().unwrap_or(DType::F32);
    let xs: Vec<Value> = xs
        .iter()
        .map(|x| convert(x, dtype))
        .collect::<Result<_>>()?;
    bind1(Prim::Concatenate(axis), &xs)
}

/// `jnp.stack` along a new `axis`.
pub fn stack(xs: &[Value], axis: i64) -> Result<Value> {
    if xs.is_empty() {
        bail!(ValueError, "Need at least one array to stack.");
    }
    let a = norm_axis(axis, xs[0].ndim() + 1)?;
    let shape0 = xs[0].shape();
    for x in xs {
        if x.shape() != shape0 {
            bail!(
                ValueError,
                "All input arrays must have the same shape: got {shape0:?} and {:?}",
                x.shape()
            );
        }
    }
    let expanded: Vec<Value> = xs
        .iter()
        .map(|x| expand_dims(x, a as i64))
        .collect::<Result<_>>()?;
    concatenate(&expanded, a as i64)
}

/// `lax.slice`.
pub fn slice(x: &Value, starts: &[usize], limits: &[usize], strides: &[usize]) -> Result<Value> {
    if starts.iter().all(|&s| s == 0)
        && limits == x.shape().as_slice()
        && strides.iter().all(|&s| s == 1)
    {
        return Ok(x.clone());
    }
    bind1(
        Prim::Slice {
            starts: starts.to_vec(),
            limits: limits.to_vec(),
            strides: strides.to_vec(),
        },
        std::slice::from_ref(x),
    )
}

/// `lax.dynamic_slice`: start indices are scalar values (clamped into range).
pub fn dynamic_slice(x: &Value, starts: &[Value], sizes: &[usize]) -> Result<Value> {
    let mut ins = vec![x.clone()];
    ins.extend(
        starts
            .iter()
            .map(|s| convert(s, DType::I32))
            .collect::<Result<Vec<_>>>()?,
    );
    bind1(Prim::DynamicSlice(sizes.to_vec()), &ins)
}

/// `lax.dynamic_update_slice`.
pub fn dynamic_update_slice(x: &Value, update: &Value, starts: &[Value]) -> Result<Value> {
    let mut ins = vec![x.clone(), convert(update, x.dtype())?];
    ins.extend(
        starts
            .iter()
            .map(|s| convert(s, DType::I32))
            .collect::<Result<Vec<_>>>()?,
    );
    bind1(Prim::DynamicUpdateSlice, &ins)
}

/// `lax.dynamic_slice_in_dim`.
pub fn dynamic_slice_in_dim(x: &Value, start: &Value, size: usize, axis: i64) -> Result<Value> {
    let shape = x.shape();
    let axis = norm_axis(axis, shape.len())?;
    let zero = scalar(0.0, DType::I32);
    let starts: Vec<Value> = (0..shape.len())
        .map(|i| {
            if i == axis {
                start.clone()
            } else {
                zero.clone()
            }
        })
        .collect();
    let mut sizes = shape.clone();
    sizes[axis] = size;
    dynamic_slice(x, &starts, &sizes)
}

/// `lax.pad` with zeros (no interior padding).
pub fn pad(x: &Value, lo: &[usize], hi: &[usize]) -> Result<Value> {
    bind1(
        Prim::Pad {
            lo: lo.to_vec(),
            hi: hi.to_vec(),
        },
        std::slice::from_ref(x),
    )
}

/// `lax.stop_gradient`: `x`, through which no derivative flows.
pub fn stop_gradient(x: &Value) -> Result<Value> {
    bind1(Prim::StopGradient, std::slice::from_ref(x))
}

/// A cumulative reduction along `axis`, as `lax.cumsum(x, axis, reverse)`
/// (the axis must be non-negative, as lax requires).
pub fn cumulative(
    x: &Value,
    op: crate::primitives::CumOp,
    axis: usize,
    reverse: bool,
) -> Result<Value> {
    bind1(
        Prim::Cumulative { op, axis, reverse },
        std::slice::from_ref(x),
    )
}

/// `lax.rev`.
pub fn rev(x: &Value, axes: &[usize]) -> Result<Value> {
    bind1(Prim::Rev(axes.to_vec()), std::slice::from_ref(x))
}

/// Integer-array indexing along `axis`: `jnp.take(x, idx, axis)`.
pub fn take(x: &Value, indices: &Value, axis: i64) -> Result<Value> {
    let axis = norm_axis(axis, x.ndim())?;
    bind1(
        Prim::Take(axis),
        &[x.clone(), convert(indices, DType::I32)?],
    )
}

/// `lax.dot_general`.
pub fn dot_general(
    x: &Value,
    y: &Value,
    contracting: (&[usize], &[usize]),
    batch: (&[usize], &[usize]),
) -> Result<Value> {
    dot_general_to(x, y, contracting, batch, None)
}

/// [`dot_general`] with the result's sharding given (`out_sharding=`).
pub fn dot_general_to(
    x: &Value,
    y: &Value,
    contracting: (&[usize], &[usize]),
    batch: (&[usize], &[usize]),
    out_sharding: Option<std::sync::Arc<crate::sharding::NamedSharding>>,
) -> Result<Value> {
    let dtype = x.dtype().promote(y.dtype());
    bind1(
        Prim::DotGeneral {
            contracting: (contracting.0.to_vec(), contracting.1.to_vec()),
            batch: (batch.0.to_vec(), batch.1.to_vec()),
            out_sharding,
        },
        &[convert(x, dtype)?, convert(y, dtype)?],
    )
}

/// `jnp.matmul` (the `@` operator): 1-D operands and batch broadcasting.
pub fn matmul(x: &Value, y: &Value) -> Result<Value> {
    let (xs, ys) = (x.shape(), y.shape());
    if xs.is_empty() || ys.is_empty() {
        bail!(
            ValueError,
            "matmul: inputs must be at least 1-D, got shapes {xs:?} and {ys:?}"
        );
    }
    // With a vector and no batch dimensions JAX contracts directly, as
    // its jaxprs show (`dot_general` of f32[5,4] and f32[4] gives f32[5]).
    if xs.len() <= 2 && ys.len() <= 2 && (xs.len() == 1 || ys.len() == 1) {
        let (ka, kb) = (xs[xs.len() - 1], ys[0]);
        if ka != kb {
            bail!(
                TypeError,
                "dot_general requires contracting dimensions to have the same shape, got \
                 ({ka},) and ({kb},): matmul of shapes {xs:?} and {ys:?}"
            );
        }
        return dot_general(x, y, (&[xs.len() - 1], &[0]), (&[], &[]));
    }
    let x2 = if xs.len() == 1 {
        expand_dims(x, 0)?
    } else {
        x.clone()
    };
    let y2 = if ys.len() == 1 {
        expand_dims(y, 1)?
    } else {
        y.clone()
    };
    let (a, b) = (x2.shape(), y2.shape());
    let (ka, kb) = (a[a.len() - 1], b[b.len() - 2]);
    if ka != kb {
        bail!(
            TypeError,
            "dot_general requires contracting dimensions to have the same shape, got ({ka},) \
             and ({kb},): matmul of shapes {xs:?} and {ys:?}"
        );
    }
    // Broadcast the batch dimensions, then contract with explicit batch dims.
    let batch = crate::array::broadcast_shapes(&a[..a.len() - 2], &b[..b.len() - 2])?;
    let nb = batch.len();
    let mut full_a = batch.clone();
    full_a.extend_from_slice(&a[a.len() - 2..]);
    let mut full_b = batch.clone();
    full_b.extend_from_slice(&b[b.len() - 2..]);
    let xa = broadcast_to(&x2, &full_a)?;
    let yb = broadcast_to(&y2, &full_b)?;
    let bd: Vec<usize> = (0..nb).collect();
    let r = dot_general(&xa, &yb, (&[nb + 1], &[nb]), (&bd, &bd))?;
    let mut shape = r.shape();
    if ys.len() == 1 {
        shape.pop();
    }
    if xs.len() == 1 {
        shape.remove(shape.len() - if ys.len() == 1 { 1 } else { 2 });
    }
    reshape(&r, &shape)
}
