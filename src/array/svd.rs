//! The singular value decomposition of float32 matrices on the two
//! trailing axes (the leading ones are a batch).
//!
//! JAX's CPU backend calls LAPACK `gesdd` (bidiagonalization, then a
//! bidiagonal QR or dqds iteration); shardlab does not follow that path:
//! it computes in double precision by one-sided Jacobi rotations and rounds
//! once. Singular values therefore agree with JAX's to about one float32
//! ulp rather than bit for bit, and singular vectors agree up to the sign
//! of each pair `(u_i, v_i)` (any sign gives a valid decomposition; LAPACK's
//! is an artefact of its path). Results that do not depend on those signs
//! (`pinv`, `lstsq`, norms, ranks) agree to rounding.

use super::{Array, Buffer};
use crate::bail;
use crate::error::Result;

/// Column-major `rows x cols` matrix in double precision.
struct Cols {
    rows: usize,
    data: Vec<Vec<f64>>,
}

fn dot(x: &[f64], y: &[f64]) -> f64 {
    x.iter().zip(y).map(|(a, b)| a * b).sum()
}

/// Rotates the columns `p < q` of `a` and `v` until every pair is
/// orthogonal to working precision.
fn jacobi(a: &mut Cols, v: &mut Cols) {
    let n = a.data.len();
    for _ in 0..80 {
        let mut rotated = false;
        for p in 0..n {
            for q in p + 1..n {
                let alpha = dot(&a.data[p], &a.data[p]);
                let beta = dot(&a.data[q], &a.data[q]);
                let gamma = dot(&a.data[p], &a.data[q]);
                if gamma == 0.0 || gamma.abs() <= 1e-15 * (alpha * beta).sqrt() {
                    continue;
                }
                rotated = true;
                let zeta = (beta - alpha) / (2.0 * gamma);
                let t = zeta.signum() / (zeta.abs() + (1.0 + zeta * zeta).sqrt());
                let c = 1.0 / (1.0 + t * t).sqrt();
                let s = c * t;
                for m in [&mut *a, &mut *v] {
                    for i in 0..m.rows {
                        let (x, y) = (m.data[p][i], m.data[q][i]);
                        m.data[p][i] = c * x - s * y;
                        m.data[q][i] = s * x + c * y;
                    }
                }
            }
        }
        if !rotated {
            break;
        }
    }
}

/// Extends the orthonormal columns `basis` to `want` columns with unit
/// vectors orthogonalized against them (twice, for accuracy).
fn complete(basis: &mut Vec<Vec<f64>>, rows: usize, want: usize) {
    for e in 0..rows {
        if basis.len() >= want {
            break;
        }
        let mut x = vec![0.0; rows];
        x[e] = 1.0;
        for _ in 0..2 {
            for b in basis.iter() {
                let d = dot(b, &x);
                x.iter_mut().zip(b).for_each(|(xi, bi)| *xi -= d * bi);
            }
        }
        let norm = dot(&x, &x).sqrt();
        if norm > 1e-6 {
            basis.push(x.iter().map(|xi| xi / norm).collect());
        }
    }
}

/// `(u, s, v)` of a tall `m x n` (`m >= n`) matrix given by columns: `u`
/// has `k` orthonormal columns (`n` or `m`), `v` is `n x n`.
fn svd_tall(cols: Vec<Vec<f64>>, m: usize, k: usize) -> (Vec<Vec<f64>>, Vec<f64>, Vec<Vec<f64>>) {
    let n = cols.len();
    let mut a = Cols {
        rows: m,
        data: cols,
    };
    let mut v = Cols {
        rows: n,
        data: (0..n)
            .map(|j| (0..n).map(|i| f64::from(u8::from(i == j))).collect())
            .collect(),
    };
    jacobi(&mut a, &mut v);
    let norms: Vec<f64> = a.data.iter().map(|c| dot(c, c).sqrt()).collect();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&x, &y| norms[y].total_cmp(&norms[x]));
    let s: Vec<f64> = order.iter().map(|&j| norms[j]).collect();
    let vs: Vec<Vec<f64>> = order.iter().map(|&j| v.data[j].clone()).collect();
    let big = s.first().copied().unwrap_or(0.0);
    let mut u: Vec<Vec<f64>> = Vec::new();
    for (&j, &sj) in order.iter().zip(&s) {
        if sj > big * 1e-13 && sj > 0.0 {
            u.push(a.data[j].iter().map(|x| x / sj).collect());
        } else {
            break;
        }
    }
    complete(&mut u, m, k);
    (u, s, vs)
}

/// One `m x n` row-major matrix: `u` (`m x ku`), `s` (`min(m, n)`), `vt`
/// (`kv x n`), rounded to float32.
fn svd_one(x: &[f32], m: usize, n: usize, full: bool) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let tall = m >= n;
    let (rows, cols) = if tall { (m, n) } else { (n, m) };
    let columns: Vec<Vec<f64>> = (0..cols)
        .map(|j| {
            (0..rows)
                .map(|i| f64::from(if tall { x[i * n + j] } else { x[j * n + i] }))
                .collect()
        })
        .collect();
    let k = if full { rows } else { cols };
    let (big, s, small) = svd_tall(columns, rows, k);
    // Tall: u = big (m x k), v = small. Wide: u = small, v = big.
    let (u_cols, v_cols) = if tall { (big, small) } else { (small, big) };
    let (ku, kv) = (u_cols.len(), v_cols.len());
    let mut u = vec![0.0f32; m * ku];
    for (j, c) in u_cols.iter().enumerate() {
        for i in 0..m {
            u[i * ku + j] = c[i] as f32;
        }
    }
    let mut vt = vec![0.0f32; kv * n];
    for (j, c) in v_cols.iter().enumerate() {
        for i in 0..n {
            vt[j * n + i] = c[i] as f32;
        }
    }
    (u, s.iter().map(|&v| v as f32).collect(), vt)
}

impl Array {
    /// The `svd` primitive on float32 `[..., m, n]`: `s` `[..., k]`
    /// descending (`k = min(m, n)`), and with `compute_uv` also `u`
    /// (`[..., m, k]`, or `m x m` when `full_matrices`) and `vt`
    /// (`[..., k, n]`, or `n x n`). Returned as `[s, u, vt]`.
    pub fn svd(&self, full_matrices: bool, compute_uv: bool) -> Result<Vec<Array>> {
        let s = self.shape();
        let nd = s.len();
        let (m, n) = (s[nd - 2], s[nd - 1]);
        let k = m.min(n);
        let Buffer::F32(d) = self.buffer() else {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: svd of {} matrices",
                self.dtype().name()
            );
        };
        let (ku, kv) = if full_matrices { (m, n) } else { (k, k) };
        let (mut us, mut ss, mut vts) = (Vec::new(), Vec::new(), Vec::new());
        let count: usize = s[..nd - 2].iter().product();
        for c in 0..count {
            let x = &d[c * m * n..(c + 1) * m * n];
            let (u, sv, vt) = if k == 0 {
                empty_svd(m, n, ku, kv)
            } else {
                svd_one(x, m, n, full_matrices)
            };
            us.extend(u);
            ss.extend(sv);
            vts.extend(vt);
        }
        let with =
            |tail: &[usize]| -> Vec<usize> { s[..nd - 2].iter().chain(tail).copied().collect() };
        let mut out = vec![Array::from_f32(&with(&[k]), ss)?];
        if compute_uv {
            out.push(Array::from_f32(&with(&[m, ku]), us)?);
            out.push(Array::from_f32(&with(&[kv, n]), vts)?);
        }
        Ok(out)
    }
}

/// The factors of an empty matrix: identities where square.
fn empty_svd(m: usize, n: usize, ku: usize, kv: usize) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let eye = |r: usize, c: usize| -> Vec<f32> {
        (0..r * c)
            .map(|i| f32::from(u8::from(i / c.max(1) == i % c.max(1))))
            .collect()
    };
    (eye(m, ku), vec![], eye(kv, n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diagonal_svd() {
        let a =
            Array::from_f32(&[2, 2], vec![0.0, 2.0, 3.0, 0.0]).unwrap_or_else(|e| panic!("{e:?}"));
        let out = a.svd(false, true).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(out[0].f32_data().ok(), Some(&[3.0, 2.0][..]));
    }
}
