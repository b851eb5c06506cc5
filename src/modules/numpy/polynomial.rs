//! `jnp.polyadd` and `jnp.polysub`: coefficient arrays (highest power
//! first) added with the shorter one aligned to the end of the longer, as
//! JAX's `longer.at[-n:].add(shorter)` does (the shorter one broadcast to
//! the slice it lands on, so a 2-D array adds to its last rows).
//! `jnp.polyder` and `jnp.polyint` multiply or divide the (float)
//! coefficients by falling factorials, integer-valued and so exact in
//! float32 (below 2^24), as JAX's products of `arange`s are.

use crate::bail;
use crate::error::Result;
use crate::ops as jops;
use crate::python::array::to_value;
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};
use crate::trace::Value;

use super::super::Builder;

/// Adds `polyadd` and `polysub` to `b`.
pub(super) fn register(b: &mut Builder) {
    b.func("polyadd", |_, a| {
        let (x, y) = operands(&a, "polyadd")?;
        Ok(Obj::Array(polyadd(&x, &y)?))
    });
    b.func("polysub", |_, a| {
        let (x, y) = operands(&a, "polysub")?;
        Ok(Obj::Array(polyadd(&x, &jops::neg(&y)?)?))
    });
    b.func("polyder", polyder);
    b.func("polyint", polyint);
}

/// A 1-D coefficient array as float (`promote_dtypes_inexact`).
fn coefficients(o: &Obj, func: &str) -> Result<Value> {
    if matches!(o, Obj::List(_) | Obj::Tuple(_)) {
        bail!(
            TypeError,
            "{func} requires ndarray or scalar arguments, got <class '{}'> at position 0.",
            o.type_name()
        );
    }
    let p = crate::python::array::to_value(o)?;
    // A narrow float (bfloat16) stays as it is.
    let p = match p.dtype().is_float() {
        true => p,
        false => super::compose::to_inexact(&p)?,
    };
    if p.ndim() != 1 {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.numpy.{func} of a {}-d coefficient array",
            p.ndim()
        );
    }
    Ok(p)
}

/// The order `m` (a concrete int).
fn order(a: &Args, func: &str) -> Result<i64> {
    match a.opt(Some(1), "m") {
        Some(o) => crate::python::builtins::to_int(&o),
        None => Ok(1),
    }
    .map_err(|e| crate::err!(TypeError, "'m' argument of jnp.{func}: {}", e.message))
}

/// A float32 vector of `p`'s dtype.
fn vector(values: Vec<f32>, like: &Value) -> Result<Value> {
    let v = crate::array::Array::from_f32(&[values.len()], values)?;
    jops::astype(&Value::Concrete(v), like.dtype())
}

/// `polyder(p, m=1)`: `p[:-m]` times the falling factorials.
fn polyder(_: &mut Interp, a: Args) -> Result<Obj> {
    let p = coefficients(&a.req(Some(0), "p", "polyder")?, "polyder")?;
    let m = order(&a, "polyder")?;
    if m < 0 {
        bail!(ValueError, "Order of derivative must be positive");
    }
    let n = p.shape()[0] as i64;
    if m == 0 {
        return Ok(Obj::Array(p));
    }
    let kept = (n - m).max(0) as usize;
    // coefficient j (from the highest power) is (n-1-j)!/(n-1-j-m)!.
    let coeff: Vec<f32> = (0..kept as i64)
        .rev()
        .map(|j| (0..m).map(|i| (m + j - i) as f32).product())
        .collect();
    let head = jops::slice(&p, &[0], &[kept], &[1])?;
    Ok(Obj::Array(jops::mul(&head, &vector(coeff, &p)?)?))
}

/// `polyint(p, m=1, k=None)`: the coefficients and the constants `k`
/// divided by the factorial products.
fn polyint(_: &mut Interp, a: Args) -> Result<Obj> {
    let p = coefficients(&a.req(Some(0), "p", "polyint")?, "polyint")?;
    let m = order(&a, "polyint")?;
    let k = match a.opt(Some(2), "k") {
        Some(Obj::None) | None => Value::Concrete(crate::array::Array::full(&[], 0.0, p.dtype())),
        Some(o) => crate::python::array::to_value(&o)?,
    };
    let k = jops::astype(&k, p.dtype())?;
    if m < 0 {
        bail!(
            ValueError,
            "Order of integral must be positive (see polyder)"
        );
    }
    let m = m as usize;
    let k = match k.shape().as_slice() {
        [] | [1] => jops::broadcast_to(&jops::reshape(&k, &[])?, &[m])?,
        [len] if *len == m => k,
        _ => bail!(
            ValueError,
            "k must be a scalar or a rank-1 array of length 1 or m."
        ),
    };
    if m == 0 {
        return Ok(Obj::Array(p));
    }
    let total = p.shape()[0] + m;
    let coeff: Vec<f32> = (0..total as i64)
        .rev()
        .map(|j| (0..m as i64).map(|i| (j - i).max(1) as f32).product())
        .collect();
    let joined = jops::concatenate(&[p.clone(), k], 0)?;
    Ok(Obj::Array(jops::div(&joined, &vector(coeff, &p)?)?))
}

/// The two coefficient arrays, promoted to one dtype.
fn operands(a: &Args, func: &str) -> Result<(Value, Value)> {
    let x = a.req(Some(0), "a1", func)?;
    let y = a.req(Some(1), "a2", func)?;
    for (pos, o) in [&x, &y].into_iter().enumerate() {
        if matches!(o, Obj::List(_) | Obj::Tuple(_)) {
            bail!(
                TypeError,
                "{func} requires ndarray or scalar arguments, got <class '{}'> at position {pos}.",
                o.type_name()
            );
        }
    }
    // `promote_dtypes`: one dtype, shapes left alone.
    let (x, y) = (to_value(&x)?, to_value(&y)?);
    let (ax, ay) = (x.aval(), y.aval());
    let dtype = ax.dtype.promote_weak(ax.weak, ay.dtype, ay.weak);
    let weak = crate::primitives::weak::promoted(&ax, &ay);
    Ok((
        jops::convert_weak(&x, dtype, weak)?,
        jops::convert_weak(&y, dtype, weak)?,
    ))
}

/// `longer.at[-len(shorter):].add(shorter)`.
fn polyadd(a1: &Value, a2: &Value) -> Result<Value> {
    let (s1, s2) = (a1.shape(), a2.shape());
    let (Some(&n1), Some(&n2)) = (s1.first(), s2.first()) else {
        bail!(IndexError, "tuple index out of range");
    };
    let (long, short, n1, n2) = if n2 <= n1 {
        (a1, a2, n1, n2)
    } else {
        (a2, a1, n2, n1)
    };
    let long_shape = long.shape();
    let mut tail_shape = long_shape.clone();
    tail_shape[0] = n2;
    if short.ndim() > tail_shape.len() {
        bail!(
            ValueError,
            "Cannot broadcast to shape with fewer dimensions: arr_shape={} shape={}",
            crate::array::shape_tuple(&short.shape()),
            crate::array::shape_tuple(&tail_shape)
        );
    }
    let s = jops::broadcast_to(short, &tail_shape)?;
    let ones = vec![1; long_shape.len()];
    let mut start = vec![0; long_shape.len()];
    start[0] = n1 - n2;
    let tail = jops::slice(long, &start, &long_shape, &ones)?;
    let tail = jops::add(&tail, &s)?;
    if n1 == n2 {
        return Ok(tail);
    }
    let mut head_end = long_shape.clone();
    head_end[0] = n1 - n2;
    let head = jops::slice(long, &vec![0; long_shape.len()], &head_end, &ones)?;
    jops::concatenate(&[head, tail], 0)
}
