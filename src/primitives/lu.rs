//! The `lu` primitive: LU factorization with partial pivoting of a stack of
//! matrices, `P A = L U`, with `L` unit lower triangular and `U` upper
//! triangular packed into one array, the pivot rows, and the permutation.
//!
//! Its forward derivative is JAX's (De Hoog, Anderssen and Lukas): with
//! `X = L^-1 P dA U^-1`, `dL = L tril(X, -1)` and `dU = triu(X) U`, returned
//! packed as `dL + dU`. Its reverse derivative is that linear map
//! transposed step by step (plain transposes: JAX's holomorphic
//! convention). The pivots and permutation are integers and carry no
//! tangent. Derivatives of non-square factorizations are not modelled.

use super::linalg::{mt, triangle, triangular_solve};
use super::Prim;
use crate::array::linalg::TriangularSolve;
use crate::array::{Array, DType};
use crate::bail;
use crate::error::Result;
use crate::ir::Aval;
use crate::ops;
use crate::trace::{bind, Value};

/// Shape rule: `[..., m, n]` gives `[..., m, n]`, `[..., min(m, n)]` and
/// `[..., m]`.
pub fn abstract_eval(a: &Aval) -> Result<Vec<Aval>> {
    let s = &a.shape;
    if s.len() < 2 {
        bail!(
            ValueError,
            "lu requires an array with at least 2 dimensions, got shape {}",
            crate::array::shape_tuple(s)
        );
    }
    if !a.dtype.is_inexact() {
        bail!(
            TypeError,
            "lu does not accept dtype {}. Accepted dtypes are subtypes of inexact.",
            a.dtype.name()
        );
    }
    let nd = s.len();
    let (m, n) = (s[nd - 2], s[nd - 1]);
    let with = |k: usize| -> Vec<usize> { s[..nd - 2].iter().copied().chain([k]).collect() };
    let int = |shape: Vec<usize>| Aval {
        shape,
        dtype: DType::I32,
        weak: false,
        ..a.clone()
    };
    Ok(vec![
        Aval {
            weak: false,
            ..a.clone()
        },
        int(with(m.min(n))),
        int(with(m)),
    ])
}

/// `lax.linalg.lu`: the packed factors, pivots and permutation.
pub fn lu(a: &Value) -> Result<(Value, Value, Value)> {
    let outs = bind(Prim::Linalg(super::LinalgOp::Lu), std::slice::from_ref(a))?;
    match <[Value; 3]>::try_from(outs) {
        Ok([f, p, q]) => Ok((f, p, q)),
        Err(_) => bail!(RuntimeError, "lu returned the wrong number of outputs"),
    }
}

/// Rows of each matrix of `x` (`[..., m, k]`) gathered by `perm`
/// (`[..., m]`, the same batch): row `i` of the result is row `perm[i]`.
pub fn permute_rows(x: &Value, perm: &Value) -> Result<Value> {
    let s = x.shape();
    let nd = s.len();
    let (m, k) = (s[nd - 2], s[nd - 1]);
    let count: usize = s[..nd - 2].iter().product();
    // One gather over the flattened batch: offset each matrix's indices.
    let offsets = Array::iota(&[count, m], 0, DType::I32)?;
    let offsets = ops::mul(
        &Value::Concrete(offsets),
        &ops::scalar(m as f64, DType::I32),
    )?;
    let flat_perm = ops::reshape(perm, &[count, m])?;
    let idx = ops::reshape(&ops::add(&flat_perm, &offsets)?, &[count * m])?;
    let rows = ops::reshape(x, &[count * m, k])?;
    ops::reshape(&ops::take(&rows, &idx, 0)?, &s)
}

/// The inverse of each permutation in `perm` (`[..., m]`), by counting:
/// `inv[j] = sum_i i * (perm[i] == j)`.
pub fn inverse_permutation(perm: &Value) -> Result<Value> {
    let s = perm.shape();
    let m = s[s.len() - 1];
    let col = ops::expand_dims(perm, -1)?;
    let js = Value::Concrete(Array::iota(&[m, m], 1, DType::I32)?);
    let hit = ops::convert(&ops::equal(&col, &js)?, DType::I32)?;
    let is = Value::Concrete(Array::iota(&[m, m], 0, DType::I32)?);
    ops::sum(&ops::mul(&hit, &is)?, Some(&[-2]), false)
}

fn solve(p_left: bool, lower: bool, unit: bool, transpose: bool) -> TriangularSolve {
    TriangularSolve {
        left_side: p_left,
        lower,
        transpose_a: transpose,
        conjugate_a: false,
        unit_diagonal: unit,
    }
}

/// `L` (unit diagonal made explicit) and `U` of square packed factors.
fn factors(lu: &Value) -> Result<(Value, Value)> {
    let s = lu.shape();
    let n = s[s.len() - 1];
    let eye = ops::broadcast_to(&Value::Concrete(Array::eye(n, n, 0, lu.dtype())), &s)?;
    let l = ops::add(&triangle(lu, -1, true)?, &eye)?;
    Ok((l, triangle(lu, 0, false)?))
}

fn square(lu: &Value) -> Result<()> {
    let s = lu.shape();
    if s[s.len() - 1] != s[s.len() - 2] {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: derivatives of lu of a non-square matrix"
        );
    }
    Ok(())
}

/// Forward-mode rule: the packed tangent of the factors.
pub fn jvp(lu: &Value, perm: &Value, t: Option<&Value>) -> Result<Vec<Option<Value>>> {
    let Some(t) = t else {
        return Ok(vec![None, None, None]);
    };
    square(lu)?;
    let (l, u) = factors(lu)?;
    let la = triangular_solve(&l, &permute_rows(t, perm)?, solve(true, true, true, false))?;
    let lau = triangular_solve(&u, &la, solve(false, false, false, false))?;
    let l_dot = ops::matmul(&l, &triangle(&lau, -1, true)?)?;
    let u_dot = ops::matmul(&triangle(&lau, 0, false)?, &u)?;
    Ok(vec![Some(ops::add(&l_dot, &u_dot)?), None, None])
}

/// Reverse-mode rule: the cotangent of `a` from that of the factors.
pub fn vjp(lu: &Value, perm: &Value, ct: &Value) -> Result<Value> {
    square(lu)?;
    let (l, u) = factors(lu)?;
    let from_l = triangle(&ops::matmul(&mt(&l)?, ct)?, -1, true)?;
    let from_u = triangle(&ops::matmul(ct, &mt(&u)?)?, 0, false)?;
    let ct_lau = ops::add(&from_l, &from_u)?;
    let ct_la = triangular_solve(&u, &ct_lau, solve(false, false, false, true))?;
    let ct_pa = triangular_solve(&l, &ct_la, solve(true, true, true, true))?;
    permute_rows(&ct_pa, &inverse_permutation(perm)?)
}

/// Shape rule of the solve: `a` `[..., m, m]` and `b` `[..., m, k]` with
/// the same batch and dtype give `b`'s shape.
pub fn solve_abstract_eval(ins: &[Aval]) -> Result<Vec<Aval>> {
    let (a, b) = (&ins[0], &ins[1]);
    let (sa, sb) = (&a.shape, &b.shape);
    let nd = sa.len();
    if nd < 2
        || sb.len() != nd
        || sa[nd - 1] != sa[nd - 2]
        || sb[nd - 2] != sa[nd - 1]
        || sa[..nd - 2] != sb[..nd - 2]
    {
        bail!(
            ValueError,
            "The arguments to solve must have shapes a=[..., m, m] and b=[..., m, k] or \
             b=[..., m]; got a={} and b={}",
            crate::array::shape_tuple(sa),
            crate::array::shape_tuple(sb)
        );
    }
    if a.dtype != b.dtype || !a.dtype.is_inexact() {
        bail!(
            TypeError,
            "solve requires inexact arguments of one dtype, got {} and {}",
            a.dtype.name(),
            b.dtype.name()
        );
    }
    Ok(vec![Aval {
        vma: super::join_vma(ins),
        weak: false,
        ..b.clone()
    }])
}

/// The solve primitive: `a^-1 b`, or `a^-T b` with `transpose`.
pub fn lu_solve(a: &Value, b: &Value, transpose: bool) -> Result<Value> {
    crate::trace::bind1(
        Prim::Linalg(super::LinalgOp::Solve { transpose }),
        &[a.clone(), b.clone()],
    )
}

/// `op(a)`: `a` or its transpose.
fn op(a: &Value, transpose: bool) -> Result<Value> {
    if transpose {
        mt(a)
    } else {
        Ok(a.clone())
    }
}

/// Forward-mode rule of the solve, as `custom_linear_solve`'s: the tangent
/// solves the same system for `db - op(da) x`.
pub fn solve_jvp(
    a: &Value,
    x: &Value,
    tangents: &[Option<Value>],
    transpose: bool,
) -> Result<Option<Value>> {
    let rhs = match (&tangents[0], &tangents[1]) {
        (None, None) => return Ok(None),
        (None, Some(db)) => db.clone(),
        (Some(da), db) => {
            let moved = ops::neg(&ops::matmul(&op(da, transpose)?, x)?)?;
            match db {
                Some(db) => ops::add(db, &moved)?,
                None => moved,
            }
        }
    };
    Ok(Some(lu_solve(a, &rhs, transpose)?))
}

/// Reverse-mode rule of the solve: the cotangent of `b` solves the
/// transposed system, that of `a` is minus its outer product with `x`.
pub fn solve_vjp(a: &Value, x: &Value, ct: &Value, transpose: bool) -> Result<Vec<Option<Value>>> {
    let ct_b = lu_solve(a, ct, !transpose)?;
    let ct_a = if transpose {
        ops::matmul(x, &mt(&ct_b)?)?
    } else {
        ops::matmul(&ct_b, &mt(x)?)?
    };
    Ok(vec![Some(ops::neg(&ct_a)?), Some(ct_b)])
}

/// Shape rule of `lu_pivots_to_permutation`: int32 pivots `[..., k]` give
/// an int32 permutation `[..., size]`.
pub fn pivots_abstract_eval(p: &Aval, size: usize) -> Result<Vec<Aval>> {
    if p.dtype != DType::I32 || p.shape.is_empty() {
        bail!(
            TypeError,
            "lu_pivots_to_permutation requires int32 pivots with at least one dimension, got {}{}",
            p.dtype.name(),
            crate::array::shape_tuple(&p.shape)
        );
    }
    let mut shape = p.shape.clone();
    let last = shape.len() - 1;
    shape[last] = size;
    Ok(vec![Aval {
        shape,
        weak: false,
        ..p.clone()
    }])
}

/// `lax.linalg.lu_pivots_to_permutation`.
pub fn pivots_to_permutation(pivots: &Value, size: usize) -> Result<Value> {
    crate::trace::bind1(
        Prim::Linalg(super::LinalgOp::PivotsToPermutation { size }),
        std::slice::from_ref(pivots),
    )
}
