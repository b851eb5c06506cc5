//! The orthogonal decompositions as primitives: `geqrf` (Householder QR
//! packed with its taus), `householder_product`, `qr`, `eigh` and `svd`,
//! with their shape rules and derivatives.
//!
//! The derivative rules are JAX's: for `qr` (thin factors) the tangent
//! `dQ = Q (dO - X) + dA R^-1`, `dR = (X - dO) R` with `X = Q^H dA R^-1`
//! and `dO` its strictly lower part made skew; for `eigh`
//! `dw = diag(V^H dA V)` and `dV = V (F * V^H dA V)` with
//! `F_ij = 1 / (w_j - w_i)` off the diagonal; for the singular values
//! `ds = diag(U^H dA V)`. Their reverse rules transpose those linear maps
//! (real matrices; complex derivatives are refused by name).

use super::linalg::{conj, mt, triangle, triangular_solve};
use super::{LinalgOp, Prim};
use crate::array::linalg::TriangularSolve;
use crate::array::{Array, DType};
use crate::bail;
use crate::error::Result;
use crate::ir::Aval;
use crate::ops;
use crate::trace::{bind, Value};

fn with_tail(a: &Aval, tail: &[usize], dtype: DType) -> Aval {
    let nd = a.shape.len();
    Aval {
        shape: a.shape[..nd - 2].iter().chain(tail).copied().collect(),
        dtype,
        weak: false,
        ..a.clone()
    }
}

fn matrices(name: &str, a: &Aval) -> Result<(usize, usize)> {
    let s = &a.shape;
    if s.len() < 2 {
        bail!(
            ValueError,
            "{name} requires an array with at least 2 dimensions, got shape {}",
            crate::array::shape_tuple(s)
        );
    }
    if !a.dtype.is_inexact() {
        bail!(
            TypeError,
            "{name} does not accept dtype {}. Accepted dtypes are subtypes of inexact.",
            a.dtype.name()
        );
    }
    Ok((s[s.len() - 2], s[s.len() - 1]))
}

/// The real dtype of `d`'s magnitudes.
fn real_of(d: DType) -> DType {
    if d == DType::C64 {
        DType::F32
    } else {
        d
    }
}

/// Shape rule of the decompositions.
pub fn abstract_eval(op: LinalgOp, ins: &[Aval]) -> Result<Vec<Aval>> {
    let a = &ins[0];
    let (m, n) = matrices(op.name(), a)?;
    let k = m.min(n);
    Ok(match op {
        LinalgOp::Geqrf => vec![with_tail(a, &[m, n], a.dtype), with_tail(a, &[k], a.dtype)],
        LinalgOp::HouseholderProduct => vec![with_tail(a, &[m, n], a.dtype)],
        LinalgOp::Qr { full_matrices } => {
            let kq = if full_matrices { m } else { k };
            vec![
                with_tail(a, &[m, kq], a.dtype),
                with_tail(a, &[kq, n], a.dtype),
            ]
        }
        LinalgOp::Eigh => {
            if m != n {
                bail!(
                    ValueError,
                    "Argument to symmetric eigendecomposition must have shape [..., n, n], got \
                     shape {}",
                    crate::array::shape_tuple(&a.shape)
                );
            }
            vec![
                with_tail(a, &[n, n], a.dtype),
                with_tail(a, &[n], real_of(a.dtype)),
            ]
        }
        LinalgOp::Svd {
            full_matrices,
            compute_uv,
        } => {
            let s = with_tail(a, &[k], real_of(a.dtype));
            if !compute_uv {
                return Ok(vec![s]);
            }
            let (ku, kv) = if full_matrices { (m, n) } else { (k, k) };
            vec![
                s,
                with_tail(a, &[m, ku], a.dtype),
                with_tail(a, &[kv, n], a.dtype),
            ]
        }
        _ => bail!(RuntimeError, "not a decomposition: {}", op.name()),
    })
}

/// Implementation on arrays.
pub fn apply(op: LinalgOp, ins: &[Array]) -> Result<Vec<Array>> {
    Ok(match op {
        LinalgOp::Geqrf => ins[0].geqrf()?.to_vec(),
        LinalgOp::HouseholderProduct => vec![ins[0].householder_product(&ins[1])?],
        LinalgOp::Qr { full_matrices } => ins[0].qr(full_matrices)?.to_vec(),
        LinalgOp::Eigh => ins[0].eigh()?.to_vec(),
        LinalgOp::Svd {
            full_matrices,
            compute_uv,
        } => ins[0].svd(full_matrices, compute_uv)?,
        _ => bail!(RuntimeError, "not a decomposition: {}", op.name()),
    })
}

/// Binds a decomposition.
pub fn decompose(op: LinalgOp, ins: &[Value]) -> Result<Vec<Value>> {
    bind(Prim::Linalg(op), ins)
}

fn refuse_complex(a: &Value, what: &str) -> Result<()> {
    if a.dtype() == DType::C64 {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: derivatives of {what} of complex matrices"
        );
    }
    Ok(())
}

fn right_upper(transpose: bool) -> TriangularSolve {
    TriangularSolve {
        left_side: false,
        lower: false,
        transpose_a: transpose,
        conjugate_a: false,
        unit_diagonal: false,
    }
}

/// Whether `qr`'s factors are thin (`Q` `m x n`, `R` `n x n`, `m >= n`):
/// the case whose derivative is modelled.
fn thin_qr(a: &Value, full_matrices: bool) -> Result<()> {
    let s = a.shape();
    let (m, n) = (s[s.len() - 2], s[s.len() - 1]);
    if m < n || (full_matrices && m != n) {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: derivatives of qr with {}",
            if m < n {
                "m < n"
            } else {
                "full_matrices=True and m > n"
            }
        );
    }
    refuse_complex(a, "qr")
}

/// `qr`'s tangent for thin factors.
fn qr_jvp(q: &Value, r: &Value, dx: &Value) -> Result<Vec<Option<Value>>> {
    let dx_rinv = triangular_solve(r, dx, right_upper(false))?;
    let x = ops::matmul(&mt(q)?, &dx_rinv)?;
    let low = triangle(&x, -1, true)?;
    let d_o = ops::sub(&low, &mt(&low)?)?;
    let dq = ops::add(&ops::matmul(q, &ops::sub(&d_o, &x)?)?, &dx_rinv)?;
    let dr = ops::matmul(&ops::sub(&x, &d_o)?, r)?;
    Ok(vec![Some(dq), Some(dr)])
}

/// `qr`'s reverse rule for thin factors: [`qr_jvp`] transposed.
fn qr_vjp(q: &Value, r: &Value, ct_q: Option<&Value>, ct_r: Option<&Value>) -> Result<Value> {
    let zero = |like: &Value| ops::zeros_like(like);
    let ct_q = ct_q.cloned().unwrap_or_else(|| zero(q));
    let ct_r = ct_r.cloned().unwrap_or_else(|| zero(r));
    // dq = Q (dO - X) + dx_rinv; dr = (X - dO) R.
    let from_q = ops::matmul(&mt(q)?, &ct_q)?;
    let from_r = ops::matmul(&ct_r, &mt(r)?)?;
    let ct_do = ops::sub(&from_q, &from_r)?;
    // dO = low - low^T with low = tril(X, -1).
    let ct_low = ops::sub(&ct_do, &mt(&ct_do)?)?;
    let ct_x = ops::add(&ops::sub(&from_r, &from_q)?, &triangle(&ct_low, -1, true)?)?;
    let ct_rinv = ops::add(&ct_q, &ops::matmul(q, &ct_x)?)?;
    triangular_solve(r, &ct_rinv, right_upper(true))
}

/// `F_ij = 1 / (w_j - w_i)` off the diagonal, 0 on it, as JAX forms it
/// (`1 / (I + w_j - w_i) - I`).
fn eigen_gaps(w: &Value) -> Result<Value> {
    let n = w.shape()[w.ndim() - 1];
    let eye = Value::Concrete(Array::eye(n, n, 0, w.dtype()));
    let diff = ops::sub(&ops::expand_dims(w, -2)?, &ops::expand_dims(w, -1)?)?;
    let recip = ops::div(&ops::scalar(1.0, w.dtype()), &ops::add(&eye, &diff)?)?;
    ops::sub(&recip, &eye)
}

/// The diagonal of each matrix of `x` as a vector.
fn diag_of(x: &Value) -> Result<Value> {
    let n = x.shape()[x.ndim() - 1];
    let eye = Value::Concrete(Array::eye(n, n, 0, DType::Bool));
    let eye = ops::broadcast_to(&eye, &x.shape())?;
    ops::sum(
        &ops::select(&eye, x, &ops::zeros_like(x))?,
        Some(&[-1]),
        false,
    )
}

/// A matrix with the vector `d` on its diagonal.
fn diag_matrix(d: &Value) -> Result<Value> {
    let n = d.shape()[d.ndim() - 1];
    let eye = Value::Concrete(Array::eye(n, n, 0, d.dtype()));
    ops::mul(&ops::expand_dims(d, -2)?, &eye)
}

fn eigh_jvp(v: &Value, w: &Value, da: &Value) -> Result<Vec<Option<Value>>> {
    let vt_da_v = ops::matmul(&ops::matmul(&conj(&mt(v)?)?, da)?, v)?;
    let dv = ops::matmul(v, &ops::mul(&eigen_gaps(w)?, &vt_da_v)?)?;
    Ok(vec![Some(dv), Some(diag_of(&vt_da_v)?)])
}

fn eigh_vjp(v: &Value, w: &Value, ct_v: Option<&Value>, ct_w: Option<&Value>) -> Result<Value> {
    let mut inner = match ct_v {
        Some(c) => ops::mul(&eigen_gaps(w)?, &ops::matmul(&mt(v)?, c)?)?,
        None => ops::zeros_like(&ops::matmul(&mt(v)?, v)?),
    };
    if let Some(c) = ct_w {
        inner = ops::add(&inner, &diag_matrix(c)?)?;
    }
    ops::matmul(&ops::matmul(v, &inner)?, &mt(v)?)
}

/// The thin `u` and `vt` of `a`, for the singular values' derivative.
fn thin_uv(a: &Value) -> Result<(Value, Value)> {
    let op = LinalgOp::Svd {
        full_matrices: false,
        compute_uv: true,
    };
    let outs = decompose(op, &[ops::stop_gradient(a)?])?;
    Ok((outs[1].clone(), outs[2].clone()))
}

fn svd_refuse_uv() -> Result<Vec<Option<Value>>> {
    bail!(
        NotImplementedError,
        "not supported by shardlab yet: derivatives of svd's singular vectors"
    )
}

/// Forward-mode rules.
pub fn jvp(
    op: LinalgOp,
    primals: &[Value],
    tangents: &[Option<Value>],
    outs: &[Value],
) -> Result<Vec<Option<Value>>> {
    let Some(da) = &tangents[0] else {
        return Ok(vec![None; outs.len()]);
    };
    match op {
        LinalgOp::Qr { full_matrices } => {
            thin_qr(&primals[0], full_matrices)?;
            qr_jvp(&outs[0], &outs[1], da)
        }
        LinalgOp::Eigh => {
            refuse_complex(&primals[0], "eigh")?;
            eigh_jvp(&outs[0], &outs[1], da)
        }
        LinalgOp::Svd { compute_uv, .. } => {
            refuse_complex(&primals[0], "svd")?;
            if compute_uv {
                return svd_refuse_uv();
            }
            let (u, vt) = thin_uv(&primals[0])?;
            let ds = diag_of(&ops::matmul(&ops::matmul(&mt(&u)?, da)?, &mt(&vt)?)?)?;
            Ok(vec![Some(ds)])
        }
        _ => bail!(
            NotImplementedError,
            "not supported by shardlab yet: derivatives of {}",
            op.name()
        ),
    }
}

/// Reverse-mode rules.
pub fn vjp(
    op: LinalgOp,
    primals: &[Value],
    outs: &[Value],
    cts: &[Option<Value>],
) -> Result<Vec<Option<Value>>> {
    if cts.iter().all(Option::is_none) {
        return Ok(vec![None; primals.len()]);
    }
    Ok(vec![Some(match op {
        LinalgOp::Qr { full_matrices } => {
            thin_qr(&primals[0], full_matrices)?;
            qr_vjp(&outs[0], &outs[1], cts[0].as_ref(), cts[1].as_ref())?
        }
        LinalgOp::Eigh => {
            refuse_complex(&primals[0], "eigh")?;
            eigh_vjp(&outs[0], &outs[1], cts[0].as_ref(), cts[1].as_ref())?
        }
        LinalgOp::Svd { .. } => {
            refuse_complex(&primals[0], "svd")?;
            if cts.len() > 1 && (cts[1].is_some() || cts[2].is_some()) {
                svd_refuse_uv()?;
            }
            let (u, vt) = thin_uv(&primals[0])?;
            let ct_s = cts[0].clone().unwrap_or_else(|| ops::zeros_like(&outs[0]));
            ops::matmul(&ops::matmul(&u, &diag_matrix(&ct_s)?)?, &vt)?
        }
        _ => bail!(
            NotImplementedError,
            "not supported by shardlab yet: derivatives of {}",
            op.name()
        ),
    })])
}
