//! jnp functions that pick, order or repeat elements, written on jnp's
//! own functions as JAX writes them: `select`, `ix_`, `lexsort`,
//! `trim_zeros`, `resize` and `polyval`.
//!
//! `select` nests `where` from the last condition to the first, so the
//! first true condition wins. `lexsort` is a chain of stable argsorts from
//! the first key to the last (the last key is the primary one).
//! `trim_zeros` needs a concrete array, as in JAX. `polyval` is Horner's
//! rule, one multiply-add per coefficient as JAX's scan computes it.

use crate::bail;
use crate::error::Result;
use crate::ops as jops;
use crate::python::array::to_value;
use crate::python::builtins::to_int;
use crate::python::interp::Interp;
use crate::python::ops::iterate;
use crate::python::value::{Args, Obj};
use crate::trace::Value;

use super::super::Builder;

/// Adds the functions to `b`.
pub(super) fn register(b: &mut Builder) {
    b.func("select", select);
    b.func("ix_", |_, a| ix(&a));
    b.func("lexsort", lexsort);
    b.func("trim_zeros", |_, a| trim_zeros(&a));
    b.func("resize", |_, a| resize(&a));
    b.func("polyval", polyval);
}

fn call(interp: &mut Interp, name: &str, args: Vec<Obj>, kw: Vec<(String, Obj)>) -> Result<Obj> {
    let f = super::jnp_function(interp, name)?;
    interp.call(&f, Args::with(args, kw))
}

/// `select(condlist, choicelist, default=0)`.
fn select(interp: &mut Interp, a: Args) -> Result<Obj> {
    let conds = iterate(&a.req(Some(0), "condlist", "select")?)?;
    let choices = iterate(&a.req(Some(1), "choicelist", "select")?)?;
    if conds.len() != choices.len() {
        bail!(
            ValueError,
            "condlist must have length equal to choicelist ({} vs {})",
            conds.len(),
            choices.len()
        );
    }
    if conds.is_empty() {
        bail!(ValueError, "condlist must be non-empty");
    }
    let mut out = a.opt(Some(2), "default").unwrap_or(Obj::Int(0));
    for (c, x) in conds.iter().zip(&choices).rev() {
        let c = to_value(c)?;
        if c.dtype() != crate::array::DType::Bool {
            bail!(
                TypeError,
                "condlist must be a list of boolean arrays; got dtype {}",
                c.dtype().name()
            );
        }
        out = call(interp, "where", vec![Obj::Array(c), x.clone(), out], vec![])?;
    }
    Ok(out)
}

/// `ix_(*args)`: each 1-D index array shaped to broadcast along its own
/// axis only.
fn ix(a: &Args) -> Result<Obj> {
    let n = a.pos.len();
    let mut out = vec![];
    for (k, o) in a.pos.iter().enumerate() {
        let v = to_value(o)?;
        if v.ndim() != 1 {
            bail!(
                ValueError,
                "Arguments to jax.numpy.ix_ must be 1-dimensional, got shape {}",
                crate::array::shape_tuple(&v.shape())
            );
        }
        if v.dtype() == crate::array::DType::Bool {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: jax.numpy.ix_ of a boolean array"
            );
        }
        let mut shape = vec![1; n];
        shape[k] = v.shape()[0];
        out.push(Obj::Array(jops::reshape(&v, &shape)?));
    }
    Ok(Obj::tuple(out))
}

/// `lexsort(keys, axis=-1)`.
fn lexsort(interp: &mut Interp, a: Args) -> Result<Obj> {
    let keys = iterate(&a.req(Some(0), "keys", "lexsort")?)?;
    let axis = a.opt(Some(1), "axis").unwrap_or(Obj::Int(-1));
    let Some(first) = keys.first() else {
        bail!(TypeError, "need sequence of keys with len > 0 in lexsort");
    };
    let shape = to_value(first)?.shape();
    if shape.is_empty() {
        bail!(TypeError, "Cannot lexsort 0-D array");
    }
    let ax = jops::norm_axis(to_int(&axis)?, shape.len())?;
    let iota = crate::array::Array::iota(&shape, ax, crate::array::DType::I32)?;
    let mut idx = Obj::Array(Value::Concrete(iota));
    let along = |o: Obj| vec![("axis".to_string(), o)];
    for key in &keys {
        if to_value(key)?.shape() != shape {
            bail!(ValueError, "all keys need to be the same shape");
        }
        let k = call(
            interp,
            "take_along_axis",
            vec![key.clone(), idx.clone()],
            along(axis.clone()),
        )?;
        let perm = call(interp, "argsort", vec![k], along(axis.clone()))?;
        idx = call(
            interp,
            "take_along_axis",
            vec![idx, perm],
            along(axis.clone()),
        )?;
    }
    Ok(idx)
}

/// The first and one past the last position along `ax` where `x` has a
/// nonzero element, from the concrete values.
fn nonzero_span(x: &crate::array::Array, ax: usize) -> (usize, usize) {
    let shape = x.shape();
    let inner: usize = shape[ax + 1..].iter().product();
    let n = shape[ax];
    let hit: Vec<bool> = (0..n)
        .map(|j| (0..x.size()).any(|i| (i / inner) % n == j && x.get_f64(i) != 0.0))
        .collect();
    match (hit.iter().position(|&h| h), hit.iter().rposition(|&h| h)) {
        (Some(s), Some(e)) => (s, e + 1),
        _ => (0, 0),
    }
}

/// `trim_zeros(filt, trim='fb', axis=None)`.
fn trim_zeros(a: &Args) -> Result<Obj> {
    let x = to_value(&a.req(Some(0), "filt", "trim_zeros")?)?;
    let Value::Concrete(c) = &x else {
        bail!(
            ConcretizationTypeError,
            "Abstract tracer value encountered where concrete value is expected\nError arose in the `filt` argument of trim_zeros()"
        );
    };
    let trim = match a.opt(Some(1), "trim") {
        Some(Obj::Str(s)) => s.to_lowercase(),
        Some(_) => bail!(TypeError, "trim must be a string"),
        None => "fb".into(),
    };
    let shape = x.shape();
    let axes: Vec<usize> = match super::axes_arg(a, Some(2))? {
        None => (0..shape.len()).collect(),
        Some(v) => v
            .iter()
            .map(|&d| jops::norm_axis(d, shape.len()))
            .collect::<Result<_>>()?,
    };
    let (front, back) = (trim.contains('f'), trim.contains('b'));
    let mut starts = vec![0; shape.len()];
    let mut limits = shape.clone();
    if front || back {
        for &ax in &axes {
            let (s, e) = nonzero_span(c, ax);
            if e == 0 {
                (starts[ax], limits[ax]) = (0, 0);
                continue;
            }
            if front {
                starts[ax] = s;
            }
            if back {
                limits[ax] = e;
            }
        }
    }
    let strides = vec![1; shape.len()];
    Ok(Obj::Array(jops::slice(&x, &starts, &limits, &strides)?))
}

/// `resize(a, new_shape)`: `a`'s elements repeated in order to fill it.
fn resize(a: &Args) -> Result<Obj> {
    let x = to_value(&a.req(Some(0), "a", "resize")?)?;
    let shape = super::shape_of(&a.req(Some(1), "new_shape", "resize")?)?;
    let size: usize = shape.iter().product();
    let n: usize = x.shape().iter().product();
    let flat = jops::reshape(&x, &[n])?;
    if n == 0 {
        return Ok(Obj::Array(jops::broadcast_in_dim(
            &jops::scalar(0.0, x.dtype()),
            &shape,
            &[],
        )?));
    }
    let reps = size.div_ceil(n);
    let tiled = jops::reshape(
        &jops::broadcast_in_dim(&flat, &[reps, n], &[1])?,
        &[reps * n],
    )?;
    let cut = jops::slice(&tiled, &[0], &[size], &[1])?;
    Ok(Obj::Array(jops::reshape(&cut, &shape)?))
}

/// `polyval(p, x, unroll=16)`.
fn polyval(interp: &mut Interp, a: Args) -> Result<Obj> {
    let p = a.req(Some(0), "p", "polyval")?;
    let x = a.req(Some(1), "x", "polyval")?;
    let (p, x) = super::compose::promoted(&p, &x)?;
    if p.ndim() != 1 {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.numpy.polyval of a {}-d coefficient array",
            p.ndim()
        );
    }
    let mut y = Obj::Array(jops::broadcast_in_dim(
        &jops::scalar(0.0, x.dtype()),
        &x.shape(),
        &[],
    )?);
    for k in 0..p.shape()[0] {
        let c = jops::reshape(&jops::slice(&p, &[k], &[k + 1], &[1])?, &[])?;
        let yx = call(interp, "multiply", vec![y, Obj::Array(x.clone())], vec![])?;
        y = call(interp, "add", vec![yx, Obj::Array(c)], vec![])?;
    }
    Ok(y)
}
