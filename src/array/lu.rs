//! LU factorization with partial pivoting on the two trailing axes of a
//! float32 or complex64 array (the leading ones are a batch), in the order
//! of the unblocked kernel behind the LAPACK `getrf` that JAX's CPU backend
//! calls: column by column, left-looking. Each column first takes the row
//! interchanges chosen so far, then is reduced by the columns before it
//! (a forward substitution above the diagonal, running sums of products
//! below it), then the entry of largest magnitude on or below the diagonal
//! becomes the pivot and the entries under it are multiplied by its
//! reciprocal. For float32 matrices up to 5 x 5 this reproduces JAX's bits;
//! beyond that the vectorized kernels JAX's LAPACK uses sum in other orders.

use super::linalg::{Field, TriangularSolve};
use super::{Array, Buffer, C64};
use crate::bail;
use crate::error::Result;

/// What pivoting needs beyond [`Field`]: the magnitude LAPACK compares
/// (`|re| + |im|` for complex numbers) and the pivot's reciprocal as LAPACK
/// forms it.
trait Pivot: Field {
    fn magnitude(self) -> f32;
    fn is_zero_pivot(self) -> bool;
    fn recip(self) -> Self;
}

impl Pivot for f32 {
    fn magnitude(self) -> f32 {
        self.abs()
    }
    fn is_zero_pivot(self) -> bool {
        self == 0.0
    }
    fn recip(self) -> f32 {
        1.0 / self
    }
}

impl Pivot for C64 {
    fn magnitude(self) -> f32 {
        self.re.abs() + self.im.abs()
    }
    fn is_zero_pivot(self) -> bool {
        // The complex kernel skips pivots below the smallest normal double,
        // which for float32 inputs means exactly zero.
        self.re == 0.0 && self.im == 0.0
    }
    fn recip(self) -> C64 {
        // Smith's division of 1 by the pivot, scaled by its larger part.
        let (r, i) = (self.re, self.im);
        if r.abs() >= i.abs() {
            let ratio = i / r;
            let den = 1.0 / (r * (1.0 + ratio * ratio));
            C64::new(den, -ratio * den)
        } else {
            let ratio = r / i;
            let den = 1.0 / (i * (1.0 + ratio * ratio));
            C64::new(ratio * den, -den)
        }
    }
}

/// `sum_k a[i][k] * a[k][j]` for `k < upto`, summed left to right.
fn row_dot<T: Field>(a: &[T], n: usize, i: usize, j: usize, upto: usize) -> Option<T> {
    let mut s: Option<T> = None;
    for k in 0..upto {
        let p = a[i * n + k] * a[k * n + j];
        s = Some(match s {
            Some(acc) => acc + p,
            None => p,
        });
    }
    s
}

/// Factors one row-major `m x n` matrix in place; returns the pivot rows.
fn lu_one<T: Pivot>(a: &mut [T], m: usize, n: usize) -> Vec<i32> {
    let mut piv = vec![0usize; m.min(n)];
    for j in 0..n {
        let len = j.min(m);
        for (i, &ip) in piv.iter().enumerate().take(len) {
            if ip != i {
                a.swap(i * n + j, ip * n + j);
            }
        }
        for i in 1..len {
            if let Some(s) = row_dot(a, n, i, j, i) {
                a[i * n + j] = a[i * n + j] - s;
            }
        }
        if j >= m {
            continue;
        }
        for i in j..m {
            if let Some(s) = row_dot(a, n, i, j, j) {
                a[i * n + j] = a[i * n + j] - s;
            }
        }
        // The first entry of largest magnitude, as `i?amax` picks it.
        let mut jp = j;
        for i in j + 1..m {
            if a[i * n + j].magnitude() > a[jp * n + j].magnitude() {
                jp = i;
            }
        }
        piv[j] = jp;
        let p = a[jp * n + j];
        if p.is_zero_pivot() {
            continue;
        }
        if jp != j {
            for c in 0..=j {
                a.swap(j * n + c, jp * n + c);
            }
        }
        let r = p.recip();
        for i in j + 1..m {
            a[i * n + j] = a[i * n + j] * r;
        }
    }
    piv.iter().map(|&p| p as i32).collect()
}

/// The permutation the pivots make of `0..m`: row `i` of `P A` is row
/// `perm[i]` of `A`.
pub fn pivots_to_permutation(piv: &[i32], m: usize) -> Vec<i32> {
    let mut perm: Vec<i32> = (0..m as i32).collect();
    for (i, &p) in piv.iter().enumerate() {
        let p = p as usize;
        if p < m && i < m {
            perm.swap(i, p);
        }
    }
    perm
}

/// The factors, pivots and permutations of a batch of matrices.
fn lu_all<T: Pivot>(data: &[T], m: usize, n: usize) -> (Vec<T>, Vec<i32>, Vec<i32>) {
    let mut out = data.to_vec();
    let (mut pivots, mut perms) = (Vec::new(), Vec::new());
    if m * n == 0 {
        return (out, pivots, perms);
    }
    for a in out.chunks_mut(m * n) {
        let piv = lu_one(a, m, n);
        perms.extend(pivots_to_permutation(&piv, m));
        pivots.extend(piv);
    }
    (out, pivots, perms)
}

impl Array {
    /// The `lu` primitive on `[..., m, n]`: the packed factors (unit lower
    /// `L` below the diagonal, `U` on and above it), the pivots
    /// `[..., min(m, n)]` and the permutation `[..., m]`, both int32.
    pub fn lu(&self) -> Result<[Array; 3]> {
        let s = self.shape();
        let nd = s.len();
        let (m, n) = (s[nd - 2], s[nd - 1]);
        let batch = &s[..nd - 2];
        let (buffer, piv, perm) = match self.buffer() {
            Buffer::F32(d) => {
                let (o, p, q) = lu_all(d, m, n);
                (Buffer::F32(o.into()), p, q)
            }
            Buffer::C64(d) => {
                let (o, p, q) = lu_all(d, m, n);
                (Buffer::C64(o.into()), p, q)
            }
            _ => bail!(
                TypeError,
                "lu does not accept dtype {}. Accepted dtypes are subtypes of inexact.",
                self.dtype().name()
            ),
        };
        let with = |k: usize| -> Vec<usize> { batch.iter().copied().chain([k]).collect() };
        let count: usize = batch.iter().product();
        let piv = if m * n == 0 {
            vec![0; count * m.min(n)]
        } else {
            piv
        };
        let perm = if m * n == 0 {
            (0..count).flat_map(|_| 0..m as i32).collect()
        } else {
            perm
        };
        Ok([
            Array::from_buffer(s, buffer)?,
            Array::from_i32(&with(m.min(n)), piv)?,
            Array::from_i32(&with(m), perm)?,
        ])
    }
}

/// Gathers the rows of each matrix of `x` (`[..., m, k]`) by the
/// permutations `perm` (`[..., m]`).
fn gather_rows(x: &Array, perm: &[i32]) -> Result<Array> {
    let s = x.shape();
    let nd = s.len();
    let (m, k) = (s[nd - 2], s[nd - 1]);
    let idx: Vec<i32> = perm
        .iter()
        .enumerate()
        .map(|(i, &p)| (i / m.max(1) * m) as i32 + p)
        .collect();
    let rows = x.reshape(&[idx.len(), k])?;
    rows.take(&Array::from_i32(&[idx.len()], idx)?, 0)?
        .reshape(s)
}

fn inverse(perm: &[i32], m: usize) -> Vec<i32> {
    let mut inv = vec![0; perm.len()];
    for (c, chunk) in perm.chunks(m.max(1)).enumerate() {
        for (i, &p) in chunk.iter().enumerate() {
            inv[c * m + p as usize] = i as i32;
        }
    }
    inv
}

fn tri(lower: bool, unit: bool, transpose: bool) -> TriangularSolve {
    TriangularSolve {
        left_side: true,
        lower,
        transpose_a: transpose,
        conjugate_a: false,
        unit_diagonal: unit,
    }
}

impl Array {
    /// Solves `a x = b` (or `a^T x = b` with `transpose`) for square `a`
    /// `[..., m, m]` and `b` `[..., m, k]` of the same batch, through `a`'s
    /// LU factors as JAX's `lu_solve` uses them: permute, then the unit
    /// lower and the upper triangular solves (transposed: the two solves
    /// in the other order, then the inverse permutation).
    pub fn lu_solve_square(a: &Array, b: &Array, transpose: bool) -> Result<Array> {
        let [lu, _, perm] = a.lu()?;
        let m = a.shape()[a.ndim() - 1];
        let perm = perm.i32_data()?.to_vec();
        if transpose {
            let x = Array::triangular_solve(&lu, b, tri(false, false, true))?;
            let x = Array::triangular_solve(&lu, &x, tri(true, true, true))?;
            return gather_rows(&x, &inverse(&perm, m));
        }
        let x = gather_rows(b, &perm)?;
        let x = Array::triangular_solve(&lu, &x, tri(true, true, false))?;
        Array::triangular_solve(&lu, &x, tri(false, false, false))
    }
}

impl Array {
    /// The permutations of `0..size` that the int32 pivots `[..., k]` make
    /// (pivots outside `0..size` swap nothing).
    pub fn pivots_to_permutation(&self, size: usize) -> Result<Array> {
        let s = self.shape();
        let k = s.last().copied().unwrap_or(0);
        let data = self.i32_data()?;
        let count: usize = s[..s.len().saturating_sub(1)].iter().product();
        let mut out = Vec::with_capacity(count * size);
        for c in 0..count {
            out.extend(pivots_to_permutation(&data[c * k..][..k], size));
        }
        let mut shape = s.to_vec();
        if let Some(last) = shape.last_mut() {
            *last = size;
        }
        Array::from_i32(&shape, out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lu_by_hand() {
        // [[1, 2], [3, 4]]: pivot row 1; L = [[1, 0], [1/3, 1]],
        // U = [[3, 4], [0, 2 - 4/3]].
        let a =
            Array::from_f32(&[2, 2], vec![1.0, 2.0, 3.0, 4.0]).unwrap_or_else(|e| panic!("{e:?}"));
        let [lu, piv, perm] = a.lu().unwrap_or_else(|e| panic!("{e:?}"));
        let d = lu.f32_data().unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(&d[..2], &[3.0, 4.0]);
        assert_eq!(d[2], 1.0 * (1.0 / 3.0));
        assert_eq!(d[3], 2.0 - d[2] * 4.0);
        assert_eq!(piv.i32_data().ok(), Some(&[1, 1][..]));
        assert_eq!(perm.i32_data().ok(), Some(&[1, 0][..]));
    }
}
