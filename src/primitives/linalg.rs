//! The linear-algebra primitives: `cholesky` and `triangular_solve`, on
//! float32 or complex64 stacks of matrices (the trailing two axes).
//!
//! Their derivative rules are JAX's. `cholesky`'s tangent is
//! `L phi(L^-1 dA L^-H)` with `phi` the lower triangle with a halved
//! diagonal; its reverse rule is that linear map transposed step by step
//! (a plain transpose, never a conjugate one: JAX's holomorphic
//! convention). `triangular_solve` is linear in `b` and its transpose flips
//! `transpose_a`; in `a` its tangent is `-op(a)^-1 op(da) x`.

use crate::array::linalg::{inexact, TriangularSolve};
use crate::array::{Array, Buffer, DType};
use crate::bail;
use crate::error::Result;
use crate::ir::Aval;
use crate::ops;
use crate::primitives::{join_vma, Prim};
use crate::trace::{bind1, Value};

/// A linear-algebra primitive with its parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(target_arch = "wasm32", derive(serde::Serialize, serde::Deserialize))]
pub enum LinalgOp {
    /// `cholesky`: the lower Cholesky factor (the strict upper triangle of
    /// the result is unspecified; `lax.linalg.cholesky` masks it).
    Cholesky,
    /// `triangular_solve`.
    TriangularSolve(TriangularSolve),
    /// `lu`: the packed factors, the pivots and the permutation.
    Lu,
    /// A linear solve `a x = b` (`a^T x = b` when `transpose`) through the
    /// LU factors of `a`, as JAX's `custom_linear_solve` around `lu_solve`.
    Solve {
        /// Solve with `a` transposed.
        transpose: bool,
    },
    /// `lu_pivots_to_permutation`: the permutation of `0..size` that a
    /// sequence of row interchanges makes.
    PivotsToPermutation {
        /// The permutation's length.
        size: usize,
    },
    /// `geqrf`: Householder QR packed with its taus.
    Geqrf,
    /// `householder_product`: the product of packed reflectors.
    HouseholderProduct,
    /// `qr`: the factors `Q` and `R`.
    Qr {
        /// `Q` square (`m x m`) rather than thin.
        full_matrices: bool,
    },
    /// `eigh`: eigenvectors and ascending eigenvalues of a Hermitian
    /// matrix (lower triangle read).
    Eigh,
    /// `svd`: the singular values, and with `compute_uv` `u` and `vt`.
    Svd {
        /// Square `u` and `vt`.
        full_matrices: bool,
        /// Return the singular vectors too.
        compute_uv: bool,
    },
}

impl LinalgOp {
    /// The primitive's name in a jaxpr.
    pub fn name(&self) -> &'static str {
        match self {
            LinalgOp::Cholesky => "cholesky",
            LinalgOp::TriangularSolve(_) => "triangular_solve",
            LinalgOp::Lu => "lu",
            LinalgOp::Solve { .. } => "custom_linear_solve",
            LinalgOp::PivotsToPermutation { .. } => "lu_pivots_to_permutation",
            LinalgOp::Geqrf => "geqrf",
            LinalgOp::HouseholderProduct => "householder_product",
            LinalgOp::Qr { .. } => "qr",
            LinalgOp::Eigh => "eigh",
            LinalgOp::Svd { .. } => "svd",
        }
    }

    /// The parameters as JAX prints them, in its (alphabetical) order.
    pub fn params(&self) -> Vec<(String, String)> {
        let b = |v: bool| if v { "True" } else { "False" }.to_string();
        match self {
            LinalgOp::Cholesky | LinalgOp::Lu | LinalgOp::Geqrf | LinalgOp::HouseholderProduct => {
                vec![]
            }
            LinalgOp::Qr { full_matrices } => vec![
                ("full_matrices".into(), b(*full_matrices)),
                ("pivoting".into(), "False".into()),
                ("use_magma".into(), "None".into()),
            ],
            LinalgOp::Eigh => vec![
                ("algorithm".into(), "None".into()),
                ("lower".into(), "True".into()),
                ("sort_eigenvalues".into(), "True".into()),
                ("subset_by_index".into(), "None".into()),
            ],
            LinalgOp::Svd {
                full_matrices,
                compute_uv,
            } => vec![
                ("algorithm".into(), "None".into()),
                ("compute_uv".into(), b(*compute_uv)),
                ("full_matrices".into(), b(*full_matrices)),
                ("subset_by_index".into(), "None".into()),
            ],
            LinalgOp::Solve { transpose } => vec![("transpose".into(), b(*transpose))],
            LinalgOp::PivotsToPermutation { size } => {
                vec![("permutation_size".into(), size.to_string())]
            }
            LinalgOp::TriangularSolve(p) => vec![
                ("conjugate_a".into(), b(p.conjugate_a)),
                ("left_side".into(), b(p.left_side)),
                ("lower".into(), b(p.lower)),
                ("transpose_a".into(), b(p.transpose_a)),
                ("unit_diagonal".into(), b(p.unit_diagonal)),
            ],
        }
    }
}

fn op_of(prim: &Prim) -> Result<LinalgOp> {
    match prim {
        Prim::Linalg(op) => Ok(*op),
        _ => bail!(
            RuntimeError,
            "not a linear-algebra primitive: {}",
            prim.name()
        ),
    }
}

fn square_matrices(name: &str, a: &Aval) -> Result<usize> {
    let s = &a.shape;
    if s.len() < 2 || s[s.len() - 1] != s[s.len() - 2] {
        bail!(
            ValueError,
            "{name} requires a batch of square matrices with shape [..., n, n], got shape {}",
            crate::array::shape_tuple(s)
        );
    }
    if !inexact(a.dtype) {
        bail!(
            TypeError,
            "{name} does not accept dtype {}. Accepted dtypes are subtypes of inexact.",
            a.dtype.name()
        );
    }
    Ok(s[s.len() - 1])
}

/// Shape rule.
pub fn abstract_eval(prim: &Prim, ins: &[Aval]) -> Result<Vec<Aval>> {
    let op = op_of(prim)?;
    let name = op.name();
    let k = match op {
        LinalgOp::Lu => return super::lu::abstract_eval(&ins[0]),
        LinalgOp::Solve { .. } => return super::lu::solve_abstract_eval(ins),
        LinalgOp::PivotsToPermutation { size } => {
            return super::lu::pivots_abstract_eval(&ins[0], size)
        }
        LinalgOp::Geqrf
        | LinalgOp::HouseholderProduct
        | LinalgOp::Qr { .. }
        | LinalgOp::Eigh
        | LinalgOp::Svd { .. } => {
            let mut outs = super::decomp::abstract_eval(op, ins)?;
            let vma = join_vma(ins);
            outs.iter_mut().for_each(|o| o.vma = vma.clone());
            return Ok(outs);
        }
        _ => square_matrices(name, &ins[0])?,
    };
    let out = match op {
        LinalgOp::TriangularSolve(p) => {
            let (a, b) = (&ins[0], &ins[1]);
            let nb = b.shape.len();
            if nb != a.shape.len() || a.shape[..nb - 2] != b.shape[..nb - 2] {
                bail!(
                    ValueError,
                    "triangular_solve requires both arguments to have the same number of \
                     dimensions and equal batch dimensions, got {} and {}",
                    crate::array::shape_tuple(&a.shape),
                    crate::array::shape_tuple(&b.shape)
                );
            }
            let side = if p.left_side { nb - 2 } else { nb - 1 };
            if b.shape[side] != k {
                bail!(
                    ValueError,
                    "Incompatible shapes for arguments to triangular_solve: {} and {}.",
                    crate::array::shape_tuple(&a.shape),
                    crate::array::shape_tuple(&b.shape)
                );
            }
            if a.dtype != b.dtype {
                bail!(
                    TypeError,
                    "lax.triangular_solve requires arguments to have the same dtypes, got {}, {}.",
                    a.dtype.name(),
                    b.dtype.name()
                );
            }
            b.clone()
        }
        _ => ins[0].clone(),
    };
    Ok(vec![Aval {
        vma: join_vma(ins),
        weak: false,
        ..out
    }])
}

/// Implementation on arrays (the kernels live in `array::linalg`).
pub fn apply(prim: &Prim, ins: &[Array]) -> Result<Vec<Array>> {
    Ok(vec![match op_of(prim)? {
        LinalgOp::Cholesky => ins[0].cholesky()?,
        LinalgOp::TriangularSolve(p) => Array::triangular_solve(&ins[0], &ins[1], p)?,
        LinalgOp::Lu => return Ok(ins[0].lu()?.to_vec()),
        LinalgOp::Solve { transpose } => Array::lu_solve_square(&ins[0], &ins[1], transpose)?,
        LinalgOp::PivotsToPermutation { size } => ins[0].pivots_to_permutation(size)?,
        op => return super::decomp::apply(op, ins),
    }])
}

/// `lax.linalg.triangular_solve`.
pub fn triangular_solve(a: &Value, b: &Value, p: TriangularSolve) -> Result<Value> {
    bind1(
        Prim::Linalg(LinalgOp::TriangularSolve(p)),
        &[a.clone(), b.clone()],
    )
}

/// The `cholesky` primitive (no symmetrization, no masking).
pub fn cholesky(a: &Value) -> Result<Value> {
    bind1(Prim::Linalg(LinalgOp::Cholesky), std::slice::from_ref(a))
}

/// The elements of `x` on or below diagonal `k` (`lower`), or on or above
/// it, the others zero: JAX's `_tril` / `_triu` as a select on a mask.
pub fn triangle(x: &Value, k: i64, lower: bool) -> Result<Value> {
    let shape = x.shape();
    let nd = shape.len();
    let (r, c) = (shape[nd - 2], shape[nd - 1]);
    let mask: Vec<bool> = (0..r * c)
        .map(|i| {
            let (i, j) = ((i / c) as i64, (i % c) as i64);
            if lower {
                j - i <= k
            } else {
                j - i >= k
            }
        })
        .collect();
    let mask = Array::from_buffer(&[r, c], Buffer::Bool(mask.into()))?;
    let mask = ops::broadcast_to(&Value::Concrete(mask), &shape)?;
    ops::select(&mask, x, &ops::zeros_like(x))
}

/// Swaps the two trailing axes.
pub fn mt(x: &Value) -> Result<Value> {
    let nd = x.ndim();
    let mut perm: Vec<usize> = (0..nd).collect();
    perm.swap(nd - 2, nd - 1);
    ops::transpose(x, &perm)
}

/// The complex conjugate of a complex64 value; a real one is itself.
pub fn conj(x: &Value) -> Result<Value> {
    if x.dtype() == DType::C64 {
        ops::unary(crate::array::UnaryOp::Conj, x)
    } else {
        Ok(x.clone())
    }
}

/// `1 + I` broadcast to `x`'s matrices: what `phi` divides by.
fn one_plus_eye(x: &Value) -> Result<Value> {
    let n = x.shape()[x.ndim() - 1];
    let e = Array::eye(n, n, 0, x.dtype());
    let e = ops::add(&Value::Concrete(e), &ops::scalar(1.0, x.dtype()))?;
    ops::broadcast_to(&e, &x.shape())
}

const LOWER: TriangularSolve = TriangularSolve {
    left_side: true,
    lower: true,
    transpose_a: false,
    conjugate_a: false,
    unit_diagonal: false,
};

/// Forward-mode rule of `cholesky`.
fn cholesky_jvp(out: &Value, t: &Value) -> Result<Value> {
    let l = triangle(out, 0, true)?;
    let right = TriangularSolve {
        left_side: false,
        transpose_a: true,
        conjugate_a: true,
        ..LOWER
    };
    let tmp = triangular_solve(&l, t, right)?;
    let u = triangular_solve(&l, &tmp, LOWER)?;
    let phi = ops::div(&triangle(&u, 0, true)?, &one_plus_eye(&u)?)?;
    ops::matmul(&l, &phi)
}

/// Reverse-mode rule of `cholesky`: [`cholesky_jvp`]'s steps transposed in
/// reverse order.
fn cholesky_vjp(out: &Value, ct: &Value) -> Result<Value> {
    let l = triangle(out, 0, true)?;
    let ct_phi = ops::matmul(&mt(&l)?, ct)?;
    let ct_u = triangle(&ops::div(&ct_phi, &one_plus_eye(&ct_phi)?)?, 0, true)?;
    let ct_tmp = triangular_solve(
        &l,
        &ct_u,
        TriangularSolve {
            transpose_a: true,
            ..LOWER
        },
    )?;
    let back = TriangularSolve {
        left_side: false,
        conjugate_a: true,
        ..LOWER
    };
    triangular_solve(&l, &ct_tmp, back)
}

/// `op(g)` for the tangent `g` of `a`: its triangle, negated, transposed
/// and conjugated as `op(a)` is.
fn op_tangent(g: &Value, p: TriangularSolve) -> Result<Value> {
    let k = i64::from(p.unit_diagonal);
    let g = if p.lower {
        triangle(g, -k, true)?
    } else {
        triangle(g, k, false)?
    };
    let g = ops::neg(&g)?;
    let g = if p.transpose_a { mt(&g)? } else { g };
    if p.conjugate_a {
        conj(&g)
    } else {
        Ok(g)
    }
}

/// Tangent of `triangular_solve` from the tangent of `a`, in JAX's order
/// of the two products (the cheaper one first).
fn solve_jvp_a(a: &Value, x: &Value, g: &Value, p: TriangularSolve) -> Result<Value> {
    let g = op_tangent(g, p)?;
    let s = x.shape();
    let (m, n) = (s[s.len() - 2], s[s.len() - 1]);
    let inv = |v: &Value| triangular_solve(a, v, p);
    if p.left_side {
        if m > n {
            inv(&ops::matmul(&g, x)?)
        } else {
            ops::matmul(&inv(&g)?, x)
        }
    } else if m < n {
        inv(&ops::matmul(x, &g)?)
    } else {
        ops::matmul(x, &inv(&g)?)
    }
}

/// Cotangent of `a`: [`solve_jvp_a`] transposed in the same order.
fn solve_vjp_a(a: &Value, x: &Value, ct: &Value, p: TriangularSolve) -> Result<Value> {
    let s = x.shape();
    let (m, n) = (s[s.len() - 2], s[s.len() - 1]);
    let flipped = TriangularSolve {
        transpose_a: !p.transpose_a,
        ..p
    };
    let inv_t = |v: &Value| triangular_solve(a, v, flipped);
    let ct_g = if p.left_side {
        if m > n {
            ops::matmul(&inv_t(ct)?, &mt(x)?)?
        } else {
            inv_t(&ops::matmul(ct, &mt(x)?)?)?
        }
    } else if m < n {
        ops::matmul(&mt(x)?, &inv_t(ct)?)?
    } else {
        inv_t(&ops::matmul(&mt(x)?, ct)?)?
    };
    // Undo op(): conjugate, transpose, negate, keep the triangle.
    let ct_g = if p.conjugate_a { conj(&ct_g)? } else { ct_g };
    let ct_g = if p.transpose_a { mt(&ct_g)? } else { ct_g };
    let ct_g = ops::neg(&ct_g)?;
    let k = i64::from(p.unit_diagonal);
    if p.lower {
        triangle(&ct_g, -k, true)
    } else {
        triangle(&ct_g, k, false)
    }
}

/// Forward-mode rule.
pub fn jvp(
    prim: &Prim,
    primals: &[Value],
    tangents: &[Option<Value>],
    outs: &[Value],
) -> Result<Vec<Option<Value>>> {
    let op = op_of(prim)?;
    Ok(vec![match op {
        LinalgOp::Lu => return super::lu::jvp(&outs[0], &outs[2], tangents[0].as_ref()),
        LinalgOp::Solve { transpose } => {
            super::lu::solve_jvp(&primals[0], &outs[0], tangents, transpose)?
        }
        LinalgOp::PivotsToPermutation { .. } => None,
        op @ (LinalgOp::Geqrf
        | LinalgOp::HouseholderProduct
        | LinalgOp::Qr { .. }
        | LinalgOp::Eigh
        | LinalgOp::Svd { .. }) => return super::decomp::jvp(op, primals, tangents, outs),
        LinalgOp::Cholesky => match &tangents[0] {
            Some(t) => Some(cholesky_jvp(&outs[0], t)?),
            None => None,
        },
        LinalgOp::TriangularSolve(p) => {
            let da = match &tangents[0] {
                Some(g) => Some(solve_jvp_a(&primals[0], &outs[0], g, p)?),
                None => None,
            };
            let db = match &tangents[1] {
                Some(t) => Some(triangular_solve(&primals[0], t, p)?),
                None => None,
            };
            super::elementwise::add_opt(da, db)?
        }
    }])
}

/// Reverse-mode rule.
pub fn vjp(
    prim: &Prim,
    primals: &[Value],
    outs: &[Value],
    cts: &[Option<Value>],
) -> Result<Vec<Option<Value>>> {
    let op = op_of(prim)?;
    if matches!(
        op,
        LinalgOp::Geqrf
            | LinalgOp::HouseholderProduct
            | LinalgOp::Qr { .. }
            | LinalgOp::Eigh
            | LinalgOp::Svd { .. }
    ) {
        return super::decomp::vjp(op, primals, outs, cts);
    }
    let Some(ct) = &cts[0] else {
        return Ok(vec![None; primals.len()]);
    };
    Ok(match op {
        LinalgOp::Lu => vec![Some(super::lu::vjp(&outs[0], &outs[2], ct)?)],
        LinalgOp::Solve { transpose } => {
            super::lu::solve_vjp(&primals[0], &outs[0], ct, transpose)?
        }
        LinalgOp::PivotsToPermutation { .. } => vec![None],
        LinalgOp::Cholesky => vec![Some(cholesky_vjp(&outs[0], ct)?)],
        LinalgOp::TriangularSolve(p) => {
            let flipped = TriangularSolve {
                transpose_a: !p.transpose_a,
                ..p
            };
            vec![
                Some(solve_vjp_a(&primals[0], &outs[0], ct, p)?),
                Some(triangular_solve(&primals[0], ct, flipped)?),
            ]
        }
        _ => vec![None; primals.len()],
    })
}
