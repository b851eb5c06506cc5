//! The orthogonal decompositions as JAX's front ends spell them:
//! `jnp.linalg.qr`, `eigh`, `eigvalsh`, `svd`, `svdvals`, `matrix_rank`,
//! `pinv`, `lstsq`, `cond`; `jax.lax.linalg.qr`,
//! `householder_product`, `eigh`, `svd`; `jax.scipy.linalg.qr`, `eigh`,
//! `svd`. Each composes the primitives as JAX does, with JAX's tolerances
//! and its refusals; what shardlab does not model (pivoted QR, the upper
//! triangle of `eigh`, index subsets, Hermitian SVD) refuses by name.

use crate::array::{Array, DType, ReduceOp};
use crate::bail;
use crate::error::Result;
use crate::ops;
use crate::primitives::decomp::decompose;
use crate::primitives::linalg::{conj, mt};
use crate::primitives::LinalgOp;
use crate::python::array::to_value;
use crate::python::interp::Interp;
use crate::python::value::{Args, Obj};
use crate::trace::Value;

use super::linalg::{flag, inexact_arg, symmetrized};
use super::linalg_lu::named_result;
use super::Builder;

fn not_yet(what: &str) -> Result<Obj> {
    bail!(NotImplementedError, "not supported by shardlab yet: {what}")
}

fn tuple(vs: Vec<Value>) -> Obj {
    Obj::tuple(vs.into_iter().map(Obj::Array).collect())
}

fn str_arg(a: &Args, i: Option<usize>, name: &str, default: &str) -> String {
    match a.opt(i, name) {
        None | Some(Obj::None) => default.to_string(),
        Some(o) => crate::python::format::str_of(&o),
    }
}

fn is_set(a: &Args, i: Option<usize>, name: &str) -> bool {
    !matches!(a.opt(i, name), None | Some(Obj::None))
}

fn at_least_2d(x: &Value, func: &str) -> Result<()> {
    if x.ndim() < 2 {
        bail!(
            ValueError,
            "{func} requires an array with at least 2 dimensions, got shape {}",
            crate::array::shape_tuple(&x.shape())
        );
    }
    Ok(())
}

/// `lax.linalg.qr(x, full_matrices)`: `(q, r)`.
pub fn qr_values(x: &Value, full_matrices: bool) -> Result<(Value, Value)> {
    at_least_2d(x, "qr")?;
    let outs = decompose(LinalgOp::Qr { full_matrices }, std::slice::from_ref(x))?;
    Ok((outs[0].clone(), outs[1].clone()))
}

fn geqrf_values(x: &Value) -> Result<(Value, Value)> {
    at_least_2d(x, "geqrf")?;
    let outs = decompose(LinalgOp::Geqrf, std::slice::from_ref(x))?;
    Ok((outs[0].clone(), outs[1].clone()))
}

fn jnp_qr(interp: &mut Interp, a: Args) -> Result<Obj> {
    let x = inexact_arg(&a, 0, "a", "qr")?;
    let mode = str_arg(&a, Some(1), "mode", "reduced");
    let (fields, values) = match mode.as_str() {
        "raw" => {
            let (h, taus) = geqrf_values(&x)?;
            (["Q", "R"], vec![mt(&h)?, taus])
        }
        "reduced" | "r" | "full" | "complete" => {
            let full = mode == "complete";
            let outs = ops::jitted("qr", std::slice::from_ref(&x), |v| {
                let (q, r) = qr_values(&v[0], full)?;
                Ok(vec![q, r])
            })?;
            let (q, r) = (outs[0].clone(), outs[1].clone());
            if mode == "r" {
                return Ok(Obj::Array(r));
            }
            (["Q", "R"], vec![q, r])
        }
        other => bail!(ValueError, "Unsupported QR decomposition mode '{other}'"),
    };
    named_result(interp, "QRResult", &fields, values)
}

fn lax_qr(_: &mut Interp, a: Args) -> Result<Obj> {
    let x = to_value(&a.req(Some(0), "x", "qr")?)?;
    if flag(&a, None, "pivoting", false)? {
        return not_yet("jax.lax.linalg.qr with pivoting=True");
    }
    let (q, r) = qr_values(&x, flag(&a, None, "full_matrices", true)?)?;
    Ok(tuple(vec![q, r]))
}

fn lax_householder_product(_: &mut Interp, a: Args) -> Result<Obj> {
    let x = to_value(&a.req(Some(0), "a", "householder_product")?)?;
    let taus = to_value(&a.req(Some(1), "taus", "householder_product")?)?;
    at_least_2d(&x, "householder_product")?;
    let outs = decompose(LinalgOp::HouseholderProduct, &[x, taus])?;
    Ok(Obj::Array(outs[0].clone()))
}

fn scipy_qr(_: &mut Interp, a: Args) -> Result<Obj> {
    let x = inexact_arg(&a, 0, "a", "qr")?;
    if flag(&a, None, "pivoting", false)? {
        return not_yet("jax.scipy.linalg.qr with pivoting=True");
    }
    let mode = str_arg(&a, None, "mode", "full");
    let full = match mode.as_str() {
        "full" | "r" => true,
        "economic" => false,
        other => bail!(ValueError, "Unsupported QR decomposition mode '{other}'"),
    };
    let (q, r) = qr_values(&x, full)?;
    Ok(if mode == "r" {
        tuple(vec![r])
    } else {
        tuple(vec![q, r])
    })
}

/// `lax.linalg.eigh(x, lower, symmetrize_input)`: `(v, w)`.
pub fn eigh_values(x: &Value, lower: bool, symmetrize_input: bool) -> Result<(Value, Value)> {
    if !lower {
        not_yet("eigh of the upper triangle (lower=False, UPLO='U')")?;
    }
    let x = if symmetrize_input {
        symmetrized(x)?
    } else {
        x.clone()
    };
    at_least_2d(&x, "eigh")?;
    let outs = decompose(LinalgOp::Eigh, std::slice::from_ref(&x))?;
    Ok((outs[0].clone(), outs[1].clone()))
}

fn uplo_lower(a: &Args) -> Result<bool> {
    match str_arg(a, Some(1), "UPLO", "L").as_str() {
        "L" => Ok(true),
        "U" => Ok(false),
        other => bail!(
            ValueError,
            "UPLO must be one of None, 'L', or 'U', got {other}"
        ),
    }
}

/// `jnp.linalg.eigh` as JAX stages it: `(w, v)` under `jit[name=eigh]`.
fn jnp_eigh_values(x: &Value, lower: bool, sym: bool) -> Result<(Value, Value)> {
    let outs = ops::jitted("eigh", std::slice::from_ref(x), |v| {
        let (vecs, w) = eigh_values(&v[0], lower, sym)?;
        Ok(vec![w, vecs])
    })?;
    Ok((outs[1].clone(), outs[0].clone()))
}

fn jnp_eigh(interp: &mut Interp, a: Args) -> Result<Obj> {
    let x = inexact_arg(&a, 0, "a", "eigh")?;
    let sym = flag(&a, Some(2), "symmetrize_input", true)?;
    let (v, w) = jnp_eigh_values(&x, uplo_lower(&a)?, sym)?;
    named_result(
        interp,
        "EighResult",
        &["eigenvalues", "eigenvectors"],
        vec![w, v],
    )
}

fn jnp_eigvalsh(_: &mut Interp, a: Args) -> Result<Obj> {
    let x = inexact_arg(&a, 0, "a", "eigvalsh")?;
    let sym = flag(&a, None, "symmetrize_input", true)?;
    let lower = uplo_lower(&a)?;
    Ok(Obj::Array(ops::jitted1("eigvalsh", &[x], |v| {
        Ok(jnp_eigh_values(&v[0], lower, sym)?.1)
    })?))
}

fn lax_eigh(_: &mut Interp, a: Args) -> Result<Obj> {
    let x = to_value(&a.req(Some(0), "x", "eigh")?)?;
    if is_set(&a, None, "subset_by_index") {
        return not_yet("jax.lax.linalg.eigh with subset_by_index");
    }
    let lower = flag(&a, None, "lower", true)?;
    let sym = flag(&a, None, "symmetrize_input", true)?;
    let (v, w) = eigh_values(&x, lower, sym)?;
    Ok(tuple(vec![v, w]))
}

fn scipy_eigh(_: &mut Interp, a: Args) -> Result<Obj> {
    let x = inexact_arg(&a, 0, "a", "eigh")?;
    if is_set(&a, Some(1), "b") {
        bail!(
            NotImplementedError,
            "Only the b=None case of eigh is implemented"
        );
    }
    if is_set(&a, None, "eigvals") {
        bail!(
            NotImplementedError,
            "Only the eigvals=None case of eigh is implemented."
        );
    }
    let lower = flag(&a, Some(2), "lower", true)?;
    let (v, w) = eigh_values(&x, lower, true)?;
    Ok(if flag(&a, Some(3), "eigvals_only", false)? {
        Obj::Array(w)
    } else {
        tuple(vec![w, v])
    })
}

/// `lax.linalg.svd`: `[s]`, or `[s, u, vt]` with `compute_uv`.
pub fn svd_values(x: &Value, full_matrices: bool, compute_uv: bool) -> Result<Vec<Value>> {
    at_least_2d(x, "svd")?;
    let op = LinalgOp::Svd {
        full_matrices,
        compute_uv,
    };
    decompose(op, std::slice::from_ref(x))
}

/// The singular values of `x`'s matrices.
pub fn singular_values(x: &Value) -> Result<Value> {
    ops::jitted1("svd", std::slice::from_ref(x), |v| {
        Ok(svd_values(&v[0], true, false)?.remove(0))
    })
}

/// The singular vectors come from one-sided Jacobi rotations, not from
/// LAPACK's gesdd, so a pair's sign may differ from JAX's: only what does
/// not depend on those signs is given to programs (`compute_uv=False`,
/// `svdvals`, `pinv`, `lstsq`, the norms).
fn refuse_vectors(name: &str) -> Result<Obj> {
    not_yet(&format!("the singular vectors of {name}"))
}

fn svd_result(outs: Vec<Value>, compute_uv: bool) -> Obj {
    if !compute_uv {
        return Obj::Array(outs[0].clone());
    }
    tuple(vec![outs[1].clone(), outs[0].clone(), outs[2].clone()])
}

fn lax_svd(_: &mut Interp, a: Args) -> Result<Obj> {
    let x = to_value(&a.req(Some(0), "x", "svd")?)?;
    if is_set(&a, None, "subset_by_index") {
        return not_yet("jax.lax.linalg.svd with subset_by_index");
    }
    let full = flag(&a, None, "full_matrices", true)?;
    let uv = flag(&a, None, "compute_uv", true)?;
    if uv {
        return refuse_vectors("jax.lax.linalg.svd");
    }
    Ok(svd_result(svd_values(&x, full, uv)?, uv))
}

fn jnp_svd(interp: &mut Interp, a: Args) -> Result<Obj> {
    let x = inexact_arg(&a, 0, "a", "svd")?;
    if flag(&a, Some(3), "hermitian", false)? {
        return not_yet("jax.numpy.linalg.svd with hermitian=True");
    }
    if is_set(&a, Some(4), "subset_by_index") {
        return not_yet("jax.numpy.linalg.svd with subset_by_index");
    }
    let full = flag(&a, Some(1), "full_matrices", true)?;
    let uv = flag(&a, Some(2), "compute_uv", true)?;
    if uv {
        return refuse_vectors("jax.numpy.linalg.svd");
    }
    let outs = ops::jitted("svd", std::slice::from_ref(&x), |v| {
        let outs = svd_values(&v[0], full, uv)?;
        Ok(if uv {
            vec![outs[1].clone(), outs[0].clone(), outs[2].clone()]
        } else {
            outs
        })
    })?;
    let outs = if uv {
        vec![outs[1].clone(), outs[0].clone(), outs[2].clone()]
    } else {
        outs
    };
    if !uv {
        return Ok(Obj::Array(outs[0].clone()));
    }
    named_result(
        interp,
        "SVDResult",
        &["U", "S", "Vh"],
        vec![outs[1].clone(), outs[0].clone(), outs[2].clone()],
    )
}

fn scipy_svd(_: &mut Interp, a: Args) -> Result<Obj> {
    let x = inexact_arg(&a, 0, "a", "svd")?;
    let full = flag(&a, Some(1), "full_matrices", true)?;
    let uv = flag(&a, Some(2), "compute_uv", true)?;
    if uv {
        return refuse_vectors("jax.scipy.linalg.svd");
    }
    Ok(svd_result(svd_values(&x, full, uv)?, uv))
}

fn jnp_svdvals(_: &mut Interp, a: Args) -> Result<Obj> {
    let x = inexact_arg(&a, 0, "x", "svdvals")?;
    Ok(Obj::Array(singular_values(&x)?))
}

/// `x[..., i:i+1]` along the last axis.
fn last_at(x: &Value, i: usize) -> Result<Value> {
    let s = x.shape();
    let nd = s.len();
    let mut lo = vec![0; nd];
    let mut hi = s.clone();
    lo[nd - 1] = i;
    hi[nd - 1] = i + 1;
    ops::slice(x, &lo, &hi, &vec![1; nd])
}

fn f32_eps() -> f64 {
    f64::from(f32::EPSILON)
}

/// A real scalar tolerance argument, or `None`.
fn tol_arg(a: &Args, i: Option<usize>, names: &[&str]) -> Result<Option<Value>> {
    for name in names {
        if let Some(o) = a.opt(i, name).filter(|o| !matches!(o, Obj::None)) {
            return Ok(Some(ops::convert(&to_value(&o)?, DType::F32)?));
        }
    }
    Ok(None)
}

fn jnp_matrix_rank(_: &mut Interp, a: Args) -> Result<Obj> {
    let m = inexact_arg(&a, 0, "M", "matrix_rank")?;
    if flag(&a, None, "hermitian", false)? {
        return not_yet("jax.numpy.linalg.matrix_rank with hermitian=True");
    }
    if m.ndim() < 2 {
        let nz = ops::not_equal(&m, &ops::zeros_like(&m))?;
        let any = ops::reduce(ReduceOp::Any, &nz, None, false)?;
        return Ok(Obj::Array(ops::convert(&any, DType::I32)?));
    }
    let s = singular_values(&m)?;
    let rtol = match tol_arg(&a, Some(1), &["rtol", "tol"])? {
        Some(t) => ops::expand_dims(&t, t.ndim() as i64)?,
        None => {
            let sh = m.shape();
            let big = sh[sh.len() - 1].max(sh[sh.len() - 2]) as f64;
            let top = ops::reduce(ReduceOp::Max, &s, Some(&[-1]), false)?;
            let t = ops::mul(
                &ops::mul(&top, &ops::scalar(big, DType::F32))?,
                &ops::scalar(f32_eps(), DType::F32),
            )?;
            ops::expand_dims(&t, t.ndim() as i64)?
        }
    };
    let above = ops::convert(&ops::greater(&s, &rtol)?, DType::I32)?;
    Ok(Obj::Array(ops::sum(&above, Some(&[-1]), false)?))
}

/// `1 / s` where `keep`, else `1 / inf` (zero), as JAX's `pinv` masks.
fn pinv_values(x: &Value, rtol: Option<Value>) -> Result<Value> {
    at_least_2d(x, "pinv")?;
    let sh = x.shape();
    let (m, n) = (sh[sh.len() - 2], sh[sh.len() - 1]);
    if m == 0 || n == 0 {
        let mut out = sh[..sh.len() - 2].to_vec();
        out.extend([n, m]);
        return Ok(Value::Concrete(Array::zeros(&out, x.dtype())));
    }
    let arr = conj(x)?;
    let rtol = match rtol {
        Some(t) => t,
        None => ops::scalar(10.0 * m.max(n) as f64 * f32_eps(), DType::F32),
    };
    let outs = svd_values(&arr, false, true)?;
    let (s, u, vh) = (&outs[0], &outs[1], &outs[2]);
    let rtol = ops::expand_dims(&rtol, rtol.ndim() as i64)?;
    let cutoff = ops::mul(&rtol, &last_at(s, 0)?)?;
    let inf = ops::scalar(f64::INFINITY, DType::F32);
    let keep = ops::greater(s, &cutoff)?;
    let s = ops::select(&keep, s, &ops::broadcast_to(&inf, &s.shape())?)?;
    let s = ops::convert(&s, x.dtype())?;
    let scaled = ops::div(&mt(u)?, &ops::expand_dims(&s, -1)?)?;
    ops::matmul(&mt(vh)?, &scaled)
}

fn jnp_pinv(_: &mut Interp, a: Args) -> Result<Obj> {
    let x = inexact_arg(&a, 0, "a", "pinv")?;
    if flag(&a, Some(2), "hermitian", false)? {
        return not_yet("jax.numpy.linalg.pinv with hermitian=True");
    }
    let rtol = tol_arg(&a, Some(1), &["rtol", "rcond"])?;
    Ok(Obj::Array(pinv_values(&x, rtol)?))
}

fn jnp_cond(_: &mut Interp, a: Args) -> Result<Obj> {
    let x = inexact_arg(&a, 0, "x", "cond")?;
    let sh = x.shape();
    if x.ndim() < 2 {
        bail!(
            ValueError,
            "jnp.linalg.cond: input array must be at least 2D; got arr.shape={}",
            crate::array::shape_tuple(&sh)
        );
    }
    let p = a.opt(Some(1), "p").filter(|o| !matches!(o, Obj::None));
    let p_num = p.as_ref().and_then(|o| o.as_number());
    let s = || singular_values(&x);
    let ends = |s: &Value| -> Result<(Value, Value)> {
        let k = s.shape()[s.ndim() - 1];
        Ok((
            ops::squeeze(&last_at(s, 0)?, Some(&[-1]))?,
            ops::squeeze(&last_at(s, k - 1)?, Some(&[-1]))?,
        ))
    };
    if p.is_none() || p_num == Some(2.0) {
        let (first, last) = ends(&s()?)?;
        return Ok(Obj::Array(ops::div(&first, &last)?));
    }
    let r = match (p_num, p) {
        (Some(-2.0), _) => {
            let (first, last) = ends(&s()?)?;
            ops::div(&last, &first)?
        }
        (_, Some(ord)) => {
            if sh[sh.len() - 1] != sh[sh.len() - 2] {
                bail!(
                    ValueError,
                    "jnp.linalg.cond: for p={}, array must be square; got arr.shape={}",
                    crate::python::format::repr_of(&ord),
                    crate::array::shape_tuple(&sh)
                );
            }
            let n = sh[sh.len() - 1];
            let eye = Value::Concrete(Array::eye(n, n, 0, x.dtype()));
            let inv = super::linalg_lu::solve_values(&x, &ops::broadcast_to(&eye, &sh)?)?;
            let axes = [-2, -1];
            let nx = super::linalg::norm(&x, Some(&ord), Some(&axes), false)?;
            let ni = super::linalg::norm(&inv, Some(&ord), Some(&axes), false)?;
            ops::mul(&nx, &ni)?
        }
        (_, None) => bail!(RuntimeError, "cond: no order"),
    };
    // A NaN from a singular matrix (not from NaN entries) is infinite.
    let x_nan = ops::not_equal(&x, &x)?;
    let any = ops::reduce(ReduceOp::Any, &x_nan, Some(&[-2, -1]), false)?;
    let r_nan = ops::not_equal(&r, &r)?;
    let no_any = ops::equal(&any, &Value::Concrete(Array::full(&[], 0.0, DType::Bool)))?;
    let singular = ops::binary(crate::array::BinaryOp::And, &r_nan, &no_any)?;
    let inf = ops::broadcast_to(&ops::scalar(f64::INFINITY, r.dtype()), &r.shape())?;
    Ok(Obj::Array(ops::select(&singular, &inf, &r)?))
}

/// Adds the decompositions to `jnp.linalg`.
pub fn register_numpy(b: &mut Builder) {
    b.func("qr", jnp_qr);
    b.func("eigh", jnp_eigh);
    b.func("eigvalsh", jnp_eigvalsh);
    b.func("svd", jnp_svd);
    b.func("svdvals", jnp_svdvals);
    b.func("matrix_rank", jnp_matrix_rank);
    b.func("pinv", jnp_pinv);
    b.func("cond", jnp_cond);
    b.func("lstsq", super::linalg_lstsq::jnp_lstsq);
}

/// Adds the decompositions to `jax.lax.linalg`.
pub fn register_lax(b: &mut Builder) {
    b.func("qr", lax_qr);
    b.func("householder_product", lax_householder_product);
    b.func("eigh", lax_eigh);
    b.func("svd", lax_svd);
}

/// Adds the decompositions to `jax.scipy.linalg`.
pub fn register_scipy(b: &mut Builder) {
    b.func("qr", scipy_qr);
    b.func("eigh", scipy_eigh);
    b.func("svd", scipy_svd);
}
