//! Products built from jnp's own functions, as JAX builds them: `matvec`,
//! `vecmat`, `kron`, `vander` and `trapezoid`.
//!
//! `matvec` and `vecmat` are `matmul` with the vector made a one-column
//! (one-row) matrix, so batch dimensions broadcast as `matmul`'s do;
//! `kron` interleaves the two operands' axes and multiplies; `vander`
//! raises a column of `x` to a row of powers; `trapezoid` sums the means
//! of neighbouring values times the spacings.

use crate::error::Result;
use crate::ops as jops;
use crate::python::array::to_value;
use crate::python::builtins::to_int;
use crate::python::interp::Interp;
use crate::python::ops::truthy;
use crate::python::value::{Args, Obj};
use crate::trace::Value;
use crate::{bail, err};

use super::super::Builder;

/// Adds the functions to `b`.
pub(super) fn register(b: &mut Builder) {
    b.func("matvec", |i, a| {
        let m = to_value(&a.req(Some(0), "x1", "matvec")?)?;
        let v = to_value(&a.req(Some(1), "x2", "matvec")?)?;
        check_ndim(&m, 2, "matvec", "x1")?;
        check_ndim(&v, 1, "matvec", "x2")?;
        let col = jops::expand_dims(&v, -1)?;
        let out = call(i, "matmul", vec![Obj::Array(m), Obj::Array(col)])?;
        Ok(Obj::Array(jops::squeeze(&to_value(&out)?, Some(&[-1]))?))
    });
    b.func("vecmat", |i, a| {
        let v = to_value(&a.req(Some(0), "x1", "vecmat")?)?;
        let m = to_value(&a.req(Some(1), "x2", "vecmat")?)?;
        check_ndim(&v, 1, "vecmat", "x1")?;
        check_ndim(&m, 2, "vecmat", "x2")?;
        let conj = call(i, "conj", vec![Obj::Array(v)])?;
        let row = jops::expand_dims(&to_value(&conj)?, -2)?;
        let out = call(i, "matmul", vec![Obj::Array(row), Obj::Array(m)])?;
        Ok(Obj::Array(jops::squeeze(&to_value(&out)?, Some(&[-2]))?))
    });
    b.func("kron", kron);
    b.func("vander", vander);
    b.func("trapezoid", trapezoid);
}

fn call(interp: &mut Interp, name: &str, args: Vec<Obj>) -> Result<Obj> {
    let f = super::jnp_function(interp, name)?;
    interp.call(&f, Args::new(args))
}

fn check_ndim(x: &Value, least: usize, func: &str, arg: &str) -> Result<()> {
    if x.ndim() < least {
        bail!(
            ValueError,
            "{func}: {arg} must have at least {least} dimension{}, got shape {}",
            if least == 1 { "" } else { "s" },
            crate::array::shape_tuple(&x.shape())
        );
    }
    Ok(())
}

/// `kron(a, b)`: with both of rank `n`, `a`'s axes at the even positions
/// of a rank-2n product and `b`'s at the odd ones, merged in pairs.
fn kron(interp: &mut Interp, a: Args) -> Result<Obj> {
    let x = a.req(Some(0), "a", "kron")?;
    let y = a.req(Some(1), "b", "kron")?;
    let (x, y) = super::compose::promoted(&x, &y)?;
    let n = x.ndim().max(y.ndim());
    let lift = |v: &Value| -> Result<Value> {
        let mut s = vec![1; n - v.ndim()];
        s.extend(v.shape());
        jops::reshape(v, &s)
    };
    let (x, y) = (lift(&x)?, lift(&y)?);
    let (sx, sy) = (x.shape(), y.shape());
    let mut wx = vec![];
    let mut wy = vec![];
    let mut out = vec![];
    for d in 0..n {
        wx.extend([sx[d], 1]);
        wy.extend([1, sy[d]]);
        out.push(sx[d] * sy[d]);
    }
    let p = call(
        interp,
        "multiply",
        vec![
            Obj::Array(jops::reshape(&x, &wx)?),
            Obj::Array(jops::reshape(&y, &wy)?),
        ],
    )?;
    Ok(Obj::Array(jops::reshape(&to_value(&p)?, &out)?))
}

/// `vander(x, N=None, increasing=False)`.
fn vander(interp: &mut Interp, a: Args) -> Result<Obj> {
    let x = to_value(&a.req(Some(0), "x", "vander")?)?;
    if x.ndim() != 1 {
        bail!(ValueError, "x must be a one-dimensional array");
    }
    let n = match a.opt(Some(1), "N") {
        Some(o) => to_int(&o)?,
        None => x.shape()[0] as i64,
    };
    if n < 0 {
        bail!(ValueError, "N must be nonnegative");
    }
    let increasing = match a.opt(Some(2), "increasing") {
        Some(o) => truthy(&o, "increasing")?,
        None => false,
    };
    let powers: Vec<f64> = (0..n)
        .map(|k| if increasing { k } else { n - 1 - k } as f64)
        .collect();
    let iota = crate::python::array::from_f64(&[n as usize], &powers, crate::array::DType::I32)?;
    let col = jops::expand_dims(&x, -1)?;
    let row = jops::expand_dims(&Value::Concrete(iota), 0)?;
    call(interp, "power", vec![Obj::Array(col), Obj::Array(row)])
}

/// `trapezoid(y, x=None, dx=1.0, axis=-1)`: with one spacing, `dx` times
/// the sum less half the two ends, as JAX computes it; with spacings from
/// `x`, half the sum of each spacing times its two neighbours.
fn trapezoid(interp: &mut Interp, a: Args) -> Result<Obj> {
    let y = super::compose::to_inexact(&to_value(&a.req(Some(0), "y", "trapezoid")?)?)?;
    let axis = match a.opt(Some(3), "axis") {
        Some(o) => to_int(&o)?,
        None => -1,
    };
    let axis = jops::norm_axis(axis, y.ndim())?;
    let last = y.ndim() - 1;
    let y = jops::moveaxis(&y, axis, last)?;
    let n = y.shape()[last];
    let Some(xo) = a.opt(Some(1), "x") else {
        let dx = a.opt(Some(2), "dx").unwrap_or(Obj::Float(1.0));
        if to_value(&dx)?.ndim() > 0 {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: jax.numpy.trapezoid with an array dx"
            );
        }
        let total = jops::reduce(crate::array::ReduceOp::Sum, &y, Some(&[-1]), false)?;
        let ends = jops::add(&along(&y, 0, 1)?, &along(&y, n - 1, n)?)?;
        let ends = jops::squeeze(&ends, Some(&[-1]))?;
        let half = call(interp, "multiply", vec![Obj::Float(0.5), Obj::Array(ends)])?;
        let inner = call(interp, "subtract", vec![Obj::Array(total), half])?;
        return call(interp, "multiply", vec![dx, inner]);
    };
    let x = super::compose::to_inexact(&to_value(&xo)?)?;
    let x = if x.ndim() > 1 {
        jops::moveaxis(&x, axis, last)?
    } else {
        x
    };
    let m = *x
        .shape()
        .last()
        .ok_or_else(|| err!(ValueError, "x must not be a scalar"))?;
    let dx = jops::sub(&along(&x, 1, m)?, &along(&x, 0, m.saturating_sub(1))?)?;
    let pairs = jops::add(&along(&y, 1, n)?, &along(&y, 0, n.saturating_sub(1))?)?;
    let prod = call(interp, "multiply", vec![Obj::Array(dx), Obj::Array(pairs)])?;
    let total = jops::reduce(
        crate::array::ReduceOp::Sum,
        &to_value(&prod)?,
        Some(&[-1]),
        false,
    )?;
    call(interp, "multiply", vec![Obj::Float(0.5), Obj::Array(total)])
}

/// The elements `start..limit` of the last axis.
fn along(v: &Value, start: usize, limit: usize) -> Result<Value> {
    let s = v.shape();
    let mut starts = vec![0; s.len()];
    let mut limits = s.clone();
    starts[s.len() - 1] = start;
    limits[s.len() - 1] = limit.max(start);
    jops::slice(v, &starts, &limits, &vec![1; s.len()])
}
