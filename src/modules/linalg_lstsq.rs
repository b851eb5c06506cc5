//! `jnp.linalg.lstsq`: the least-squares solution through the thin SVD,
//! as JAX computes it: singular values below `rcond * s[0]` (or zero) are
//! dropped, `x = V diag(1/s) U^H b`, with the residuals
//! `|b - a x|^2` per column, the rank and the singular values.

use crate::array::DType;
use crate::bail;
use crate::error::Result;
use crate::ops;
use crate::primitives::linalg::{conj, mt};
use crate::python::array::to_value;
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};
use crate::trace::Value;

use super::linalg::{flag, inexact_arg};

fn first(s: &Value) -> Result<Value> {
    ops::slice(s, &[0], &[1], &[1])
}

/// `(x, resid, rank, s)` for 2-D `a` and 2-D `b`.
pub(super) fn lstsq_values(a: &Value, b: &Value, rcond: Option<Value>) -> Result<[Value; 4]> {
    let (m, n) = (a.shape()[0], a.shape()[1]);
    let rcond = match rcond {
        Some(r) => {
            let eps = ops::scalar(f64::from(f32::EPSILON), DType::F32);
            let neg = ops::less(&r, &ops::scalar(0.0, DType::F32))?;
            ops::select(&neg, &eps, &r)?
        }
        None => ops::scalar(f64::from(f32::EPSILON) * m.max(n) as f64, DType::F32),
    };
    let outs = super::linalg_decomp::svd_values(a, false, true)?;
    let (s, u, vt) = (&outs[0], &outs[1], &outs[2]);
    let zero = ops::zeros_like(s);
    let floor = ops::mul(&rcond, &first(s)?)?;
    let mask = ops::binary(
        crate::array::BinaryOp::And,
        &ops::greater(s, &zero)?,
        &ops::greater_equal(s, &floor)?,
    )?;
    let rank = ops::sum(&ops::convert(&mask, DType::I32)?, None, false)?;
    let ones = ops::add(&zero, &ops::scalar(1.0, DType::F32))?;
    let safe = ops::convert(&ops::select(&mask, s, &ones)?, a.dtype())?;
    let inv = ops::div(&ops::scalar(1.0, a.dtype()), &safe)?;
    let inv = ops::select(&mask, &inv, &ops::zeros_like(&inv))?;
    let utb = ops::matmul(&mt(&conj(u)?)?, b)?;
    let x = ops::matmul(
        &mt(&conj(vt)?)?,
        &ops::mul(&ops::expand_dims(&inv, -1)?, &utb)?,
    )?;
    let r = ops::sub(b, &ops::matmul(a, &x)?)?;
    let norm = super::linalg::norm(&r, None, Some(&[0]), false)?;
    let resid = ops::mul(&norm, &norm)?;
    Ok([x, resid, rank, s.clone()])
}

/// `jnp.linalg.lstsq(a, b, rcond=None, *, numpy_resid=False)`.
pub fn jnp_lstsq(_: &mut Interp, a: Args) -> Result<Obj> {
    let x = inexact_arg(&a, 0, "a", "lstsq")?;
    let y = inexact_arg(&a, 1, "b", "lstsq")?;
    if flag(&a, None, "numpy_resid", false)? {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.numpy.linalg.lstsq with numpy_resid=True"
        );
    }
    if x.dtype() != y.dtype() {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.numpy.linalg.lstsq of mixed dtypes"
        );
    }
    if x.ndim() == 0 || y.ndim() == 0 || x.shape()[0] != y.shape()[0] {
        bail!(ValueError, "Leading dimensions of input arrays must match");
    }
    let vector = y.ndim() == 1;
    let y = if vector { ops::expand_dims(&y, -1)? } else { y };
    if x.ndim() != 2 {
        bail!(
            TypeError,
            "{}-dimensional array given. Array must be two-dimensional",
            x.ndim()
        );
    }
    if y.ndim() != 2 {
        bail!(
            TypeError,
            "{}-dimensional array given. Array must be one or two-dimensional",
            y.ndim()
        );
    }
    if x.shape().contains(&0) {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: jax.numpy.linalg.lstsq of an empty matrix"
        );
    }
    let rcond = match a.opt(Some(2), "rcond") {
        None | Some(Obj::None) => None,
        Some(o) => Some(ops::convert(&to_value(&o)?, DType::F32)?),
    };
    let [sol, resid, rank, s] = lstsq_values(&x, &y, rcond)?;
    let sol = if vector {
        ops::reshape(&sol, &[sol.shape()[0]])?
    } else {
        sol
    };
    Ok(Obj::tuple(vec![
        Obj::Array(sol),
        Obj::Array(resid),
        Obj::Array(rank),
        Obj::Array(s),
    ]))
}
