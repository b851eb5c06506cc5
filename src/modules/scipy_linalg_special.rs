//! The structured matrices of `jax.scipy.linalg`: `toeplitz`, `hankel`,
//! `circulant`, `block_diag`, `fiedler`, `companion`, `leslie`, `hilbert`,
//! `helmert` and `hadamard`. Each is JAX's construction: entries gathered
//! from the inputs by index (so exact), or JAX's arithmetic in its order.
//! Batched inputs (JAX vectorizes over leading axes) refuse by name.

use crate::array::{Array, DType};
use crate::bail;
use crate::error::Result;
use crate::ops;
use crate::primitives::linalg::conj;
use crate::python::array::to_value;
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};
use crate::trace::Value;

use super::Builder;

/// A 1-D operand (a scalar becomes one element, as `atleast_1d`).
fn vector(a: &Args, i: usize, name: &str, func: &str) -> Result<Value> {
    let v = batched(a, i, name, func)?;
    if v.ndim() > 1 {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.scipy.linalg.{func} on batched inputs"
        );
    }
    Ok(v)
}

/// An operand of at least one axis: a batch of vectors along the last.
fn batched(a: &Args, i: usize, name: &str, func: &str) -> Result<Value> {
    let v = to_value(&a.req(Some(i), name, func)?)?;
    if v.ndim() == 0 {
        return ops::reshape(&v, &[1]);
    }
    Ok(v)
}

/// An index matrix `[rows, cols]` with entries `f(i, j)`.
fn index(rows: usize, cols: usize, f: impl Fn(usize, usize) -> usize) -> Result<Value> {
    let data: Vec<i32> = (0..rows * cols)
        .map(|k| f(k / cols, k % cols) as i32)
        .collect();
    Ok(Value::Concrete(Array::from_i32(&[rows, cols], data)?))
}

/// Two values promoted to one dtype (weak Python numbers yield).
fn promote2(x: Value, y: Value) -> Result<(Value, Value)> {
    let (ax, ay) = (x.aval(), y.aval());
    let d = ax.dtype.promote_weak(ax.weak, ay.dtype, ay.weak);
    Ok((ops::convert(&x, d)?, ops::convert(&y, d)?))
}

/// A gathered matrix as JAX's convolution of one-hot patches leaves it:
/// the sum with zero products turns a negative zero into a positive one.
fn as_patches(x: Value) -> Result<Value> {
    if x.dtype().is_inexact() {
        ops::add(&x, &ops::zeros_like(&x))
    } else {
        Ok(x)
    }
}

fn empty(rows: usize, cols: usize, d: DType) -> Value {
    Value::Concrete(Array::full(&[rows, cols], 0.0, d))
}

/// `toeplitz(c, r=None)`: `T[i, j] = c[i - j]` on and below the diagonal,
/// `r[j - i]` above it; `r` defaults to `conj(c)`.
fn toeplitz(_: &mut Interp, a: Args) -> Result<Obj> {
    let c = vector(&a, 0, "c", "toeplitz")?;
    let r = match a.opt(Some(1), "r") {
        None | Some(Obj::None) => conj(&c)?,
        Some(_) => vector(&a, 1, "r", "toeplitz")?,
    };
    let (c, r) = promote2(c, r)?;
    let (m, n) = (c.shape()[0], r.shape()[0]);
    if m == 0 || n == 0 {
        return Ok(Obj::Array(empty(m, n, c.dtype())));
    }
    let elems = ops::concatenate(&[ops::rev(&c, &[0])?, ops::slice(&r, &[1], &[n], &[1])?], 0)?;
    Ok(Obj::Array(ops::take(
        &elems,
        &index(m, n, |i, j| m - 1 - i + j)?,
        0,
    )?))
}

/// `hankel(c, r=None)`: `H[i, j] = c[i + j]`, continued by `r[1:]`; `r`
/// defaults to zeros.
fn hankel(_: &mut Interp, a: Args) -> Result<Obj> {
    let c = to_value(&a.req(Some(0), "c", "hankel")?)?;
    if c.ndim() == 0 {
        bail!(
            ValueError,
            "hankel: c must be at least 1-dimensional, got a scalar."
        );
    }
    let c = vector(&a, 0, "c", "hankel")?;
    let r = match a.opt(Some(1), "r") {
        None | Some(Obj::None) => ops::zeros_like(&c),
        Some(o) => {
            if to_value(&o)?.ndim() == 0 {
                bail!(
                    ValueError,
                    "hankel: r must be at least 1-dimensional, got a scalar."
                );
            }
            vector(&a, 1, "r", "hankel")?
        }
    };
    let (c, r) = promote2(c, r)?;
    let (m, n) = (c.shape()[0], r.shape()[0]);
    if m == 0 || n == 0 {
        return Ok(Obj::Array(empty(m, n, c.dtype())));
    }
    let v = ops::concatenate(&[c, ops::slice(&r, &[1], &[n], &[1])?], 0)?;
    Ok(Obj::Array(as_patches(ops::take(
        &v,
        &index(m, n, |i, j| i + j)?,
        0,
    )?)?))
}

/// `circulant(c)`: `C[i, j] = c[(i - j) mod n]`.
fn circulant(_: &mut Interp, a: Args) -> Result<Obj> {
    let c = vector(&a, 0, "c", "circulant")?;
    let n = c.shape()[0];
    Ok(Obj::Array(ops::take(
        &c,
        &index(n, n, |i, j| (i + n - j) % n.max(1))?,
        0,
    )?))
}

/// `fiedler(a)`: `|a[i] - a[j]|`.
fn fiedler(_: &mut Interp, a: Args) -> Result<Obj> {
    let v = vector(&a, 0, "a", "fiedler")?;
    let d = ops::sub(&ops::expand_dims(&v, -1)?, &ops::expand_dims(&v, 0)?)?;
    Ok(Obj::Array(ops::abs(&d)?))
}

/// `v` placed as row 0 of `base` (a square matrix of the same dtype).
fn set_first_row(base: &Value, v: &Value) -> Result<Value> {
    let zero = Value::Concrete(Array::full(&[], 0.0, DType::I32));
    ops::dynamic_update_slice(base, &ops::expand_dims(v, 0)?, &[zero.clone(), zero])
}

/// `companion(a)`: first row `-a[1:] / a[0]`, ones below the diagonal.
fn companion(_: &mut Interp, a: Args) -> Result<Obj> {
    let v = vector(&a, 0, "a", "companion")?;
    let v = ops::convert(&v, v.dtype().max(DType::F32))?;
    let n = v.shape()[0];
    if n < 2 {
        bail!(
            ValueError,
            "The length of `a` along the last axis must be at least 2; got shape {}.",
            crate::array::shape_tuple(&v.shape())
        );
    }
    let head = ops::reshape(&ops::slice(&v, &[0], &[1], &[1])?, &[])?;
    let first = ops::div(&ops::neg(&ops::slice(&v, &[1], &[n], &[1])?)?, &head)?;
    let m = n - 1;
    let eye = Value::Concrete(Array::eye(m, m, -1, first.dtype()));
    Ok(Obj::Array(set_first_row(&eye, &first)?))
}

/// `leslie(f, s)`: first row `f`, `s` below the diagonal.
fn leslie(_: &mut Interp, a: Args) -> Result<Obj> {
    let f = vector(&a, 0, "f", "leslie")?;
    let s = vector(&a, 1, "s", "leslie")?;
    let (nf, ns) = (f.shape()[0], s.shape()[0]);
    if nf < 2 {
        bail!(
            ValueError,
            "The length of f along the last axis must be at least 2; got shape ({nf},)."
        );
    }
    if ns != nf - 1 {
        bail!(
            ValueError,
            "Incorrect lengths for f and s. The length of s along the last axis must be one less \
             than the length of f; got f shape ({nf},) and s shape ({ns},)."
        );
    }
    let (f, s) = promote2(f, s)?;
    // diag(s, -1): s[j] at (j + 1, j), gathered from [0, s...].
    let padded = ops::concatenate(&[ops::zeros_like(&ops::slice(&s, &[0], &[1], &[1])?), s], 0)?;
    let idx = index(nf, nf, |i, j| if i == j + 1 { i } else { 0 })?;
    let sub = ops::take(&padded, &idx, 0)?;
    Ok(Obj::Array(set_first_row(&sub, &f)?))
}

fn size_arg(a: &Args, func: &str) -> Result<i64> {
    crate::python::builtins::to_int(&a.req(Some(0), "n", func)?)
}

/// `hilbert(n)`: `1 / (i + j + 1)`.
fn hilbert(_: &mut Interp, a: Args) -> Result<Obj> {
    let n = size_arg(&a, "hilbert")?.max(0) as usize;
    let col = Value::Concrete(Array::iota(&[n, 1], 0, DType::F32)?);
    let s = ops::add(
        &ops::add(&col, &crate::primitives::linalg::mt(&col)?)?,
        &ops::scalar(1.0, DType::F32),
    )?;
    Ok(Obj::Array(ops::div(&ops::scalar(1.0, DType::F32), &s)?))
}

/// `helmert(n, full=False)`: row `k` (from 1) holds `1 / sqrt(k (k + 1))`
/// in its first `k` places and `-k / sqrt(k (k + 1))` in place `k`; the
/// full matrix starts with the row `1 / sqrt(n)`.
fn helmert(_: &mut Interp, a: Args) -> Result<Obj> {
    let n = size_arg(&a, "helmert")?;
    if n < 1 {
        bail!(ValueError, "n must be a positive integer; got {n}.");
    }
    let n = n as usize;
    let f = DType::F32;
    let i = Value::Concrete(Array::iota(&[n - 1, 1], 0, DType::I32)?);
    let j = Value::Concrete(Array::iota(&[1, n], 1, DType::I32)?);
    let k = ops::add(&i, &ops::scalar(1.0, DType::I32))?;
    let kf = ops::convert(&k, f)?;
    let denom = ops::sqrt(&ops::mul(&kf, &ops::add(&kf, &ops::scalar(1.0, f))?)?)?;
    let shape = [n - 1, n];
    let wide = |v: &Value| ops::broadcast_to(v, &shape);
    let inner = ops::select(
        &wide(&ops::equal(&j, &k)?)?,
        &wide(&ops::div(&ops::neg(&kf)?, &denom)?)?,
        &wide(&ops::zeros_like(&denom))?,
    )?;
    let h = ops::select(
        &wide(&ops::less_equal(&j, &i)?)?,
        &wide(&ops::div(&ops::scalar(1.0, f), &denom)?)?,
        &inner,
    )?;
    if !super::linalg::flag(&a, Some(1), "full", false)? {
        return Ok(Obj::Array(h));
    }
    let root = ops::sqrt(&ops::scalar(n as f64, f))?;
    let first = ops::broadcast_to(&ops::div(&ops::scalar(1.0, f), &root)?, &[1, n])?;
    Ok(Obj::Array(ops::concatenate(&[first, h], 0)?))
}

/// `hadamard(n, dtype=int)`: `[[H, H], [H, -H]]` from `[[1]]`, `log2 n`
/// times.
fn hadamard(_: &mut Interp, a: Args) -> Result<Obj> {
    let n = size_arg(&a, "hadamard")?;
    if n < 1 || (n & (n - 1)) != 0 {
        bail!(ValueError, "n must be a positive power of 2; got {n}.");
    }
    let d = match a.opt(Some(1), "dtype") {
        Some(o) => super::numpy::dtype_of(&o)?,
        None => DType::I32,
    };
    let mut h = Value::Concrete(Array::full(&[1, 1], 1.0, d));
    while h.shape()[0] < n as usize {
        let top = ops::concatenate(&[h.clone(), h.clone()], 1)?;
        let bottom = ops::concatenate(&[h.clone(), ops::neg(&h)?], 1)?;
        h = ops::concatenate(&[top, bottom], 0)?;
    }
    Ok(Obj::Array(h))
}

/// `block_diag(*arrs)`: the operands (promoted to one dtype, each at least
/// 2-D) down the diagonal, zeros elsewhere.
fn block_diag(_: &mut Interp, a: Args) -> Result<Obj> {
    let mut vals: Vec<Value> = a.pos.iter().map(to_value).collect::<Result<_>>()?;
    if vals.is_empty() {
        vals.push(empty(1, 0, DType::F32));
    }
    let mut dtype = vals[0].dtype();
    let mut weak = vals[0].aval().weak;
    for v in &vals[1..] {
        let av = v.aval();
        (dtype, weak) = dtype.join(weak, av.dtype, av.weak);
    }
    if let Some(k) = vals.iter().position(|v| v.ndim() > 2) {
        bail!(
            ValueError,
            "Arguments to jax.scipy.linalg.block_diag must have at most 2 dimensions, got {} at \
             argument {k}.",
            crate::python::format::repr_of(&Obj::Array(vals[k].clone()))
        );
    }
    let two_d: Vec<Value> = vals
        .iter()
        .map(|v| {
            let v = ops::convert(v, dtype)?;
            match v.ndim() {
                0 => ops::reshape(&v, &[1, 1]),
                1 => ops::reshape(&v, &[1, v.shape()[0]]),
                _ => Ok(v),
            }
        })
        .collect::<Result<_>>()?;
    let total: usize = two_d.iter().map(|v| v.shape()[1]).sum();
    let mut col = 0;
    let mut rows = vec![];
    for v in &two_d {
        let cols = v.shape()[1];
        rows.push(ops::pad(v, &[0, col], &[0, total - cols - col])?);
        col += cols;
    }
    Ok(Obj::Array(ops::concatenate(&rows, 0)?))
}

/// Adds the structured matrices to `jax.scipy.linalg`.
pub fn register(b: &mut Builder) {
    b.func("toeplitz", toeplitz);
    b.func("hankel", hankel);
    b.func("circulant", circulant);
    b.func("fiedler", fiedler);
    b.func("companion", companion);
    b.func("leslie", leslie);
    b.func("hilbert", hilbert);
    b.func("helmert", helmert);
    b.func("hadamard", hadamard);
    b.func("block_diag", block_diag);
}
