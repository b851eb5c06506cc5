//! `jnp.logaddexp.reduce` and `jnp.logaddexp2.reduce`: not a loop of
//! `logaddexp` but JAX's log-sum-exp, shifted by the largest finite
//! element, computed with the same operations in the same order so that
//! the float digits are JAX's.

use crate::error::Result;
use crate::python::interp::Interp;
use crate::python::ops::{getattr, iterate, truthy};
use crate::python::value::Obj;

use super::composed::call as jnp;
use super::ufunc::{call_in, method};
use super::ufunc_methods::{int_tuple, ReduceArgs};

/// `name.reduce(x, ...)` for `logaddexp` or `logaddexp2`.
pub(super) fn reduce(interp: &mut Interp, name: &str, x: Obj, r: &ReduceArgs) -> Result<Obj> {
    if name == "logaddexp" {
        return logsumexp(interp, x, r, r.initial.clone());
    }
    // In base 2: scaled by ln 2 into base e and back.
    let ln2 = Obj::Float(std::f64::consts::LN_2);
    let x = jnp(interp, "asarray", vec![x], vec![])?;
    let scaled = jnp(interp, "multiply", vec![x, ln2.clone()], vec![])?;
    // A Python number is scaled in double precision, as Python scales it.
    let initial = match &r.initial {
        Some(Obj::Float(f)) => Some(Obj::Float(f * std::f64::consts::LN_2)),
        Some(Obj::Int(n)) => Some(Obj::Float(*n as f64 * std::f64::consts::LN_2)),
        Some(i) => Some(jnp(
            interp,
            "multiply",
            vec![i.clone(), ln2.clone()],
            vec![],
        )?),
        None => None,
    };
    let out = logsumexp(interp, scaled, r, initial)?;
    jnp(interp, "divide", vec![out, ln2], vec![])
}

/// The reduced axes of an array of `ndim` dimensions, non-negative.
fn reduced_axes(axis: &Obj, ndim: usize) -> Result<Vec<i64>> {
    let one = |a: &Obj| -> Result<i64> {
        let a = crate::python::builtins::to_int(a)?;
        Ok(crate::ops::norm_axis(a, ndim)? as i64)
    };
    match axis {
        Obj::None => Ok((0..ndim as i64).collect()),
        Obj::Tuple(_) | Obj::List(_) => iterate(axis)?.iter().map(one).collect(),
        a => Ok(vec![one(a)?]),
    }
}

fn logsumexp(interp: &mut Interp, x: Obj, r: &ReduceArgs, initial: Option<Obj>) -> Result<Obj> {
    let x = jnp(interp, "asarray", vec![x], vec![])?;
    // Integers become the default float, as promote_dtypes_inexact does.
    let d = getattr(interp, &x, "dtype")?;
    let kind = super::jnp_function(interp, "inexact")?;
    let inexact = jnp(interp, "issubdtype", vec![d, kind], vec![])?;
    let x = match truthy(&inexact, "issubdtype")? {
        true => x,
        false => {
            let float = jnp(
                interp,
                "result_type",
                vec![x.clone(), Obj::Float(1.0)],
                vec![],
            )?;
            method(interp, &x, "astype", vec![float], vec![])?
        }
    };
    let shape = getattr(interp, &x, "shape")?;
    let dims = reduced_axes(&r.axis, iterate(&shape)?.len())?;
    let mut kw = vec![
        ("axis", int_tuple(&dims)),
        ("keepdims", Obj::Bool(r.keepdims)),
    ];
    if let Some(w) = &r.where_ {
        kw.push(("where", w.clone()));
    }
    let real = getattr(interp, &x, "real")?;
    let mut max_kw = kw.clone();
    max_kw.push(("initial", Obj::Float(f64::NEG_INFINITY)));
    let amax = jnp(interp, "max", vec![real], max_kw)?;
    let finite = call_in(interp, "jax.lax", "is_finite", vec![amax.clone()], vec![])?;
    let zeros = call_in(
        interp,
        "jax.lax",
        "full_like",
        vec![amax.clone(), Obj::Int(0)],
        vec![],
    )?;
    let kept = call_in(
        interp,
        "jax.lax",
        "select",
        vec![finite, amax, zeros],
        vec![],
    )?;
    let amax = call_in(interp, "jax.lax", "stop_gradient", vec![kept], vec![])?;
    let with_dims = match r.keepdims {
        true => amax.clone(),
        false => call_in(
            interp,
            "jax.lax",
            "expand_dims",
            vec![amax.clone(), int_tuple(&dims)],
            vec![],
        )?,
    };
    let xd = getattr(interp, &x, "dtype")?;
    let with_dims = method(interp, &with_dims, "astype", vec![xd], vec![])?;
    let shifted = call_in(interp, "jax.lax", "sub", vec![x, with_dims], vec![])?;
    let exp = call_in(interp, "jax.lax", "exp", vec![shifted], vec![])?;
    let sumexp = method(interp, &exp, "sum", vec![], kw)?;
    let log = call_in(interp, "jax.lax", "log", vec![sumexp.clone()], vec![])?;
    let sd = getattr(interp, &sumexp, "dtype")?;
    let amax = method(interp, &amax, "astype", vec![sd], vec![])?;
    let result = call_in(interp, "jax.lax", "add", vec![log, amax], vec![])?;
    match initial {
        None => Ok(result),
        Some(i) => jnp(interp, "logaddexp", vec![i, result], vec![]),
    }
}
