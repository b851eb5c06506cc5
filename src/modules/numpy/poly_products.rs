//! Polynomial products and division on coefficient arrays (highest power
//! first), as JAX composes them: `polymul` is a full `convolve`, `poly`
//! convolves the factors (x - r) one root at a time, and `polydiv` is
//! long division, one scatter-add per quotient term.
//!
//! `poly` of a square matrix needs its eigenvalues, which shardlab does
//! not compute yet, and is refused by name; so is `trim_leading_zeros`.

use crate::bail;
use crate::error::Result;
use crate::python::array::to_value;
use crate::python::interp::Interp;
use crate::python::ops::getattr;
use crate::python::value::{Args, Obj};

use super::super::Builder;
use super::compose::refuse_args;
use super::composed::{call, item, jnp, method, slice};

/// Adds the functions to `b`.
pub(super) fn register(b: &mut Builder) {
    b.func("polymul", polymul);
    b.func("polydiv", polydiv);
    b.func("poly", poly);
}

/// The two coefficient arrays promoted to one inexact dtype.
fn inexact_pair(a: &Args, func: &str, names: [&str; 2]) -> Result<(Obj, Obj)> {
    let mut ops = vec![];
    for (k, name) in names.iter().enumerate() {
        let o = a.req(Some(k), name, func)?;
        if matches!(o, Obj::List(_) | Obj::Tuple(_)) {
            bail!(
                TypeError,
                "{func} requires ndarray or scalar arguments, got <class '{}'> at position {k}.",
                o.type_name()
            );
        }
        ops.push(o);
    }
    let (x, y) = super::compose::promoted(&ops[0], &ops[1])?;
    let x = super::compose::to_inexact(&x)?;
    let y = super::compose::to_inexact(&y)?;
    Ok((Obj::Array(x), Obj::Array(y)))
}

fn len(o: &Obj) -> Result<usize> {
    match to_value(o)?.shape().first() {
        Some(&n) => Ok(n),
        None => bail!(TypeError, "len() of unsized object"),
    }
}

/// `polymul(a1, a2, *, trim_leading_zeros=False)`.
fn polymul(interp: &mut Interp, a: Args) -> Result<Obj> {
    refuse_args(&a, "polymul", &[("trim_leading_zeros", None)])?;
    let (mut x, mut y) = inexact_pair(&a, "polymul", ["a1", "a2"])?;
    if len(&x)? == 0 {
        let dt = getattr(interp, &y, "dtype")?;
        x = jnp(interp, "zeros", vec![Obj::Int(1), dt])?;
    }
    if len(&y)? == 0 {
        let dt = getattr(interp, &x, "dtype")?;
        y = jnp(interp, "zeros", vec![Obj::Int(1), dt])?;
    }
    call(
        interp,
        "convolve",
        vec![x, y],
        vec![("mode", Obj::str("full"))],
    )
}

/// `polydiv(u, v, *, trim_leading_zeros=False)`: `(quotient, remainder)`.
fn polydiv(interp: &mut Interp, a: Args) -> Result<Obj> {
    refuse_args(&a, "polydiv", &[("trim_leading_zeros", None)])?;
    let (mut u, v) = inexact_pair(&a, "polydiv", ["u", "v"])?;
    let i = interp;
    let m = len(&u)? as i64 - 1;
    let n = len(&v)? as i64 - 1;
    let lead = item(i, &v, Obj::Int(0))?;
    let scale = jnp(i, "divide", vec![Obj::Float(1.0), lead])?;
    let dt = getattr(i, &u, "dtype")?;
    let mut q = jnp(i, "zeros", vec![Obj::Int((m - n + 1).max(1)), dt])?;
    for k in 0..(m - n + 1).max(0) {
        let uk = item(i, &u, Obj::Int(k))?;
        let d = jnp(i, "multiply", vec![scale.clone(), uk])?;
        q = at(i, &q, Obj::Int(k), "set", d.clone())?;
        let neg = jnp(i, "negative", vec![d])?;
        let step = jnp(i, "multiply", vec![neg, v.clone()])?;
        u = at(i, &u, slice(Some(k), Some(k + n + 1)), "add", step)?;
    }
    Ok(Obj::tuple(vec![q, u]))
}

/// `x.at[index].METHOD(value)`.
fn at(interp: &mut Interp, x: &Obj, index: Obj, name: &str, value: Obj) -> Result<Obj> {
    let at = getattr(interp, x, "at")?;
    let slot = item(interp, &at, index)?;
    method(interp, &slot, name, vec![value])
}

/// `poly(seq_of_zeros)`: the monic polynomial with the given roots.
fn poly(interp: &mut Interp, a: Args) -> Result<Obj> {
    let z = a.req(Some(0), "seq_of_zeros", "poly")?;
    if matches!(z, Obj::List(_) | Obj::Tuple(_)) {
        bail!(
            TypeError,
            "poly requires ndarray or scalar arguments, got <class '{}'> at position 0.",
            z.type_name()
        );
    }
    let z = Obj::Array(super::compose::to_inexact(&to_value(&z)?)?);
    let z = jnp(interp, "atleast_1d", vec![z])?;
    let sh = to_value(&z)?.shape();
    if sh.len() == 2 && sh[0] == sh[1] && sh[0] != 0 {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.numpy.poly of a square matrix (its eigenvalues)"
        );
    }
    if sh.len() != 1 {
        bail!(ValueError, "input must be 1d or non-empty square 2d array.");
    }
    let dt = getattr(interp, &z, "dtype")?;
    if sh[0] == 0 {
        return jnp(interp, "ones", vec![Obj::tuple(vec![]), dt]);
    }
    let mut p = jnp(
        interp,
        "ones",
        vec![Obj::tuple(vec![Obj::Int(1)]), dt.clone()],
    )?;
    for k in 0..sh[0] {
        let r = item(interp, &z, Obj::Int(k as i64))?;
        let neg = jnp(interp, "negative", vec![r])?;
        let factor = Obj::list(vec![Obj::Int(1), neg]);
        let factor = call(interp, "array", vec![factor], vec![("dtype", dt.clone())])?;
        p = call(
            interp,
            "convolve",
            vec![p, factor],
            vec![("mode", Obj::str("full"))],
        )?;
    }
    Ok(p)
}
