//! Dense factorizations and triangular solves on the two trailing axes
//! (the leading ones are a batch), in float32 or complex64, computed in the
//! order of the unblocked LAPACK kernels JAX's CPU backend calls for small
//! matrices (`potf2`, `trsm`): left-looking dot products, a division by
//! each pivot.

use std::ops::{Add, Div, Mul, Neg, Sub};

use super::{Array, Buffer, DType, C64};
use crate::bail;
use crate::error::Result;

/// The element arithmetic the kernels need, for float32 and complex64.
pub(super) trait Field:
    Copy
    + Default
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    fn conj(self) -> Self;
    fn re(self) -> f32;
    fn from_re(r: f32) -> Self;
    /// `self - a * b`, rounded once where the kernels fuse it (float32).
    fn mul_sub(self, a: Self, b: Self) -> Self;
}

impl Field for f32 {
    fn conj(self) -> f32 {
        self
    }
    fn re(self) -> f32 {
        self
    }
    fn from_re(r: f32) -> f32 {
        r
    }
    fn mul_sub(self, a: f32, b: f32) -> f32 {
        (-a).mul_add(b, self)
    }
}

impl Field for C64 {
    fn conj(self) -> C64 {
        C64::conj(self)
    }
    fn re(self) -> f32 {
        self.re
    }
    fn from_re(r: f32) -> C64 {
        C64::real(r)
    }
    fn mul_sub(self, a: C64, b: C64) -> C64 {
        self - a * b
    }
}

/// How `triangular_solve` reads its matrix `a` (`lax.linalg.triangular_solve`'s
/// keyword arguments).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(target_arch = "wasm32", derive(serde::Serialize, serde::Deserialize))]
pub struct TriangularSolve {
    /// Solve `op(a) x = b` (true) or `x op(a) = b` (false).
    pub left_side: bool,
    /// Read the lower triangle of `a` (true) or the upper one.
    pub lower: bool,
    /// `op(a)` transposes `a`.
    pub transpose_a: bool,
    /// `op(a)` conjugates `a`.
    pub conjugate_a: bool,
    /// Take the diagonal of `a` as ones, without reading it.
    pub unit_diagonal: bool,
}

/// The Cholesky factor of one Hermitian `n x n` matrix, in place: the lower
/// triangle becomes `L` and the strict upper triangle keeps the input, as
/// `potrf` leaves it. False when the matrix is not positive definite.
fn cholesky_one<T: Field>(a: &mut [T], n: usize) -> bool {
    for j in 0..n {
        let mut d = a[j * n + j].re();
        for k in 0..j {
            let v = a[j * n + k];
            d -= (v.conj() * v).re();
        }
        // A NaN pivot fails too, as LAPACK's `ajj <= 0 || isnan(ajj)`.
        if d.is_nan() || d <= 0.0 {
            return false;
        }
        let djj = d.sqrt();
        a[j * n + j] = T::from_re(djj);
        let inv = T::from_re(1.0 / djj);
        for i in j + 1..n {
            let mut s = a[i * n + j];
            for k in 0..j {
                s = s - a[i * n + k] * a[j * n + k].conj();
            }
            a[i * n + j] = s * inv;
        }
    }
    true
}

/// Batched Cholesky: each failed matrix becomes all NaN, as JAX returns.
fn cholesky_all<T: Field>(data: &[T], n: usize, nan: T) -> Vec<T> {
    let mut out = data.to_vec();
    if n == 0 {
        return out;
    }
    for m in out.chunks_mut(n * n) {
        if !cholesky_one(m, n) {
            m.iter_mut().for_each(|v| *v = nan);
        }
    }
    out
}

/// `op(a)` as an explicit matrix holding only the triangle the solve reads
/// (zeros elsewhere, ones on a unit diagonal), and whether it is lower.
fn op_matrix<T: Field>(a: &[T], k: usize, p: TriangularSolve) -> (Vec<T>, bool) {
    let mut m = vec![T::default(); k * k];
    for i in 0..k {
        for j in 0..k {
            let inside = if p.lower { j <= i } else { j >= i };
            if !inside {
                continue;
            }
            let mut v = if i == j && p.unit_diagonal {
                T::from_re(1.0)
            } else {
                a[i * k + j]
            };
            if p.conjugate_a {
                v = v.conj();
            }
            let (r, c) = if p.transpose_a { (j, i) } else { (i, j) };
            m[r * k + c] = v;
        }
    }
    (m, p.lower != p.transpose_a)
}

/// Solves `m x = b` for a triangular `k x k` `m` and a `k x n` `b` by
/// substitution from the end the triangle starts at, column by column and
/// right-looking, as the `trsm` kernel JAX's LAPACK uses: each solved entry
/// is multiplied by its pivot's reciprocal, then subtracted times its
/// column of `m` from the entries still to solve. That kernel handles the
/// columns in groups of four with fused multiply-adds, and the columns
/// left over one by one with a multiply and a subtraction.
fn solve_left<T: Field>(m: &[T], lower: bool, b: &[T], k: usize, n: usize) -> Vec<T> {
    let mut x = b.to_vec();
    let rows: Vec<usize> = if lower {
        (0..k).collect()
    } else {
        (0..k).rev().collect()
    };
    let grouped = n / 4 * 4;
    for c in 0..n {
        let fused = c < grouped;
        for (step, &i) in rows.iter().enumerate() {
            let xi = x[i * n + c] * (T::from_re(1.0) / m[i * k + i]);
            x[i * n + c] = xi;
            for &r in &rows[step + 1..] {
                let v = x[r * n + c];
                x[r * n + c] = if fused {
                    v.mul_sub(xi, m[r * k + i])
                } else {
                    v - xi * m[r * k + i]
                };
            }
        }
    }
    x
}

fn transpose2<T: Copy>(x: &[T], r: usize, c: usize) -> Vec<T> {
    (0..c * r).map(|i| x[(i % r) * c + i / r]).collect()
}

/// One batch element of a triangular solve; a right-side solve `x m = b`
/// is the left-side one of the transposes.
fn solve_one<T: Field>(
    a: &[T],
    b: &[T],
    k: usize,
    rows: usize,
    cols: usize,
    p: TriangularSolve,
) -> Vec<T> {
    let (m, lower) = op_matrix(a, k, p);
    if p.left_side {
        return solve_left(&m, lower, b, rows, cols);
    }
    let mt = transpose2(&m, k, k);
    let bt = transpose2(b, rows, cols);
    transpose2(&solve_left(&mt, !lower, &bt, cols, rows), cols, rows)
}

fn solve_all<T: Field>(
    a: &[T],
    b: &[T],
    k: usize,
    rows: usize,
    cols: usize,
    p: TriangularSolve,
) -> Vec<T> {
    let nb = b.len().checked_div(rows * cols).unwrap_or(0);
    let mut out = Vec::with_capacity(b.len());
    for i in 0..nb {
        let ai = &a[i * k * k..][..k * k];
        let bi = &b[i * rows * cols..][..rows * cols];
        out.extend(solve_one(ai, bi, k, rows, cols, p));
    }
    out
}

impl Array {
    /// The Cholesky factors of a stack of matrices `[..., n, n]` (the
    /// `cholesky` primitive: the strict upper triangle keeps the input).
    pub fn cholesky(&self) -> Result<Array> {
        let n = self.shape().last().copied().unwrap_or(0);
        let buffer = match self.buffer() {
            Buffer::F32(d) => Buffer::F32(cholesky_all(d, n, f32::NAN).into()),
            Buffer::C64(d) => Buffer::C64(cholesky_all(d, n, C64::new(f32::NAN, f32::NAN)).into()),
            _ => bail!(
                TypeError,
                "cholesky does not accept dtype {}. Accepted dtypes are subtypes of inexact.",
                self.dtype().name()
            ),
        };
        Array::from_buffer(self.shape(), buffer)
    }

    /// `triangular_solve(a, b)`: `a` is `[..., k, k]` and `b` `[..., m, n]`
    /// with the same batch dimensions and dtype (checked by the shape rule).
    pub fn triangular_solve(a: &Array, b: &Array, p: TriangularSolve) -> Result<Array> {
        let nd = b.ndim();
        let (rows, cols) = (b.shape()[nd - 2], b.shape()[nd - 1]);
        let k = a.shape().last().copied().unwrap_or(0);
        let buffer = match (a.buffer(), b.buffer()) {
            (Buffer::F32(x), Buffer::F32(y)) => {
                Buffer::F32(solve_all(x, y, k, rows, cols, p).into())
            }
            (Buffer::C64(x), Buffer::C64(y)) => {
                Buffer::C64(solve_all(x, y, k, rows, cols, p).into())
            }
            _ => bail!(
                TypeError,
                "triangular_solve does not accept dtypes {} and {}",
                a.dtype().name(),
                b.dtype().name()
            ),
        };
        Array::from_buffer(b.shape(), buffer)
    }
}

/// Whether `dtype` is one the factorizations accept.
pub fn inexact(dtype: DType) -> bool {
    dtype.is_inexact()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(shape: &[usize], v: &[f32]) -> Array {
        Array::from_f32(shape, v.to_vec()).unwrap_or_else(|e| panic!("{e:?}"))
    }

    #[test]
    fn cholesky_by_hand_and_failure() {
        let a = m(&[2, 2], &[4.0, 9.0, 2.0, 5.0]);
        let l = a.cholesky().unwrap_or_else(|e| panic!("{e:?}"));
        // Lower factor [[2, .], [1, 2]]; the upper element keeps the input.
        assert_eq!(l.f32_data().ok(), Some(&[2.0, 9.0, 1.0, 2.0][..]));
        let bad = m(&[2, 2], &[-1.0, 0.0, 0.0, 1.0]).cholesky();
        assert!(bad.is_ok_and(|b| b.f32_data().is_ok_and(|d| d.iter().all(|v| v.is_nan()))));
    }

    #[test]
    fn triangular_solve_four_ways() {
        let a = m(&[2, 2], &[2.0, 7.0, 1.0, 4.0]);
        let b = m(&[2, 1], &[2.0, 9.0]);
        let p = TriangularSolve {
            left_side: true,
            lower: true,
            transpose_a: false,
            conjugate_a: false,
            unit_diagonal: false,
        };
        let solve = |p| Array::triangular_solve(&a, &b, p).unwrap_or_else(|e| panic!("{e:?}"));
        // [[2,0],[1,4]] x = [2,9] -> x = [1, 2]
        assert_eq!(solve(p).f32_data().ok(), Some(&[1.0, 2.0][..]));
        // upper [[2,7],[0,4]] x = [2,9] -> x2 = 2.25, x1 = (2 - 15.75)/2
        let up = TriangularSolve { lower: false, ..p };
        assert_eq!(solve(up).f32_data().ok(), Some(&[-6.875, 2.25][..]));
        // transposed lower [[2,1],[0,4]] x = [2,9] -> x2 = 2.25, x1 = -0.125
        let tr = TriangularSolve {
            transpose_a: true,
            ..p
        };
        assert_eq!(solve(tr).f32_data().ok(), Some(&[-0.125, 2.25][..]));
        let row = m(&[1, 2], &[2.0, 9.0]);
        let right = TriangularSolve {
            left_side: false,
            ..p
        };
        // x [[2,0],[1,4]] = [2, 9] -> x2 = 2.25, x1 = (2 - 2.25)/2
        let x = Array::triangular_solve(&a, &row, right).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(x.f32_data().ok(), Some(&[-0.125, 2.25][..]));
    }
}
