//! Householder QR on the two trailing axes of a float32 or complex64 array
//! (the leading ones are a batch), in the order of the unblocked LAPACK
//! kernels JAX's CPU backend reaches for small matrices: `geqr2` (one
//! reflector per column, generated as `larfg` does and applied to the
//! columns to its right) and `org2r`/`ung2r` (the product of the
//! reflectors, built from the last one back). Vector norms are summed in
//! double precision, as the optimized BLAS `nrm2` kernels do; dot products
//! run left to right. Printed values agree with JAX's for small matrices;
//! the vectorized BLAS kernels of larger ones sum in other orders.

use super::linalg::Field;
use super::{Array, Buffer, C64};
use crate::bail;
use crate::error::Result;

/// What reflectors need beyond [`Field`].
pub(super) trait Reflect: Field {
    fn im(self) -> f32;
    fn from_parts(re: f32, im: f32) -> Self;
    /// `|x|^2` in double precision.
    fn norm_sq(self) -> f64;
}

impl Reflect for f32 {
    fn im(self) -> f32 {
        0.0
    }
    fn from_parts(re: f32, _: f32) -> f32 {
        re
    }
    fn norm_sq(self) -> f64 {
        f64::from(self) * f64::from(self)
    }
}

impl Reflect for C64 {
    fn im(self) -> f32 {
        self.im
    }
    fn from_parts(re: f32, im: f32) -> C64 {
        C64::new(re, im)
    }
    fn norm_sq(self) -> f64 {
        f64::from(self.re).powi(2) + f64::from(self.im).powi(2)
    }
}

/// `sqrt(x^2 + y^2 + z^2)` scaled by the largest magnitude, as `lapy3`
/// (and `lapy2` when `y` is zero) forms it.
fn lapy3(x: f32, y: f32, z: f32) -> f32 {
    let (x, y, z) = (x.abs(), y.abs(), z.abs());
    let w = x.max(y).max(z);
    if w == 0.0 {
        return x + y + z;
    }
    if y == 0.0 {
        let (big, small) = if x >= z { (x, z) } else { (z, x) };
        return big * (1.0 + (small / big) * (small / big)).sqrt();
    }
    w * ((x / w) * (x / w) + (y / w) * (y / w) + (z / w) * (z / w)).sqrt()
}

/// The Euclidean norm of the entries at `idx`, accumulated in double.
fn nrm2<T: Reflect>(a: &[T], idx: impl Iterator<Item = usize>) -> f32 {
    idx.map(|i| a[i].norm_sq()).sum::<f64>().sqrt() as f32
}

/// Generates the reflector `H = I - tau v v^H` with `H^H [alpha; x] =
/// [beta; 0]`, `beta` real: `alpha` is at `head`, `x` at `tail`. On return
/// `beta` is at `head`, `v`'s tail (its head is 1) at `tail`; returns tau.
pub(super) fn larfg<T: Reflect>(a: &mut [T], head: usize, tail: &[usize]) -> T {
    let xnorm = nrm2(a, tail.iter().copied());
    let alpha = a[head];
    let (ar, ai) = (alpha.re(), alpha.im());
    if xnorm == 0.0 && ai == 0.0 {
        return T::default();
    }
    let beta = -lapy3(ar, ai, xnorm).copysign(ar);
    let tau = T::from_parts((beta - ar) / beta, -ai / beta);
    let scale = T::from_re(1.0) / (alpha - T::from_re(beta));
    for &i in tail {
        a[i] = scale * a[i];
    }
    a[head] = T::from_re(beta);
    tau
}

/// Applies `H = I - tau v v^H` from the left to the columns `cols` of the
/// rows `rows` of the row-major `c` (row length `n`); `v` runs over the
/// same rows: `w = v^H c` summed down each column, then `c -= v (tau w)`.
pub(super) fn larf_left<T: Reflect>(
    c: &mut [T],
    n: usize,
    rows: &[usize],
    v: &[T],
    cols: &[usize],
    tau: T,
) {
    for &col in cols {
        let mut w = T::default();
        for (k, &r) in rows.iter().enumerate() {
            w = w + v[k].conj() * c[r * n + col];
        }
        let tw = tau * w;
        for (k, &r) in rows.iter().enumerate() {
            let at = r * n + col;
            c[at] = c[at] - v[k] * tw;
        }
    }
}

/// The reflector stored in column `col` of `a` from row `head` down, with
/// its implicit leading 1.
pub(super) fn reflector<T: Reflect>(
    a: &[T],
    n: usize,
    m: usize,
    head: usize,
    col: usize,
) -> Vec<T> {
    (head..m)
        .map(|r| {
            if r == head {
                T::from_re(1.0)
            } else {
                a[r * n + col]
            }
        })
        .collect()
}

/// `geqr2` on one row-major `m x n` matrix, in place: `R` on and above the
/// diagonal, the reflectors' tails below it; returns the `min(m, n)` taus.
fn geqrf_one<T: Reflect>(a: &mut [T], m: usize, n: usize) -> Vec<T> {
    let k = m.min(n);
    let mut taus = Vec::with_capacity(k);
    for i in 0..k {
        let tail: Vec<usize> = (i + 1..m).map(|r| r * n + i).collect();
        let tau = larfg(a, i * n + i, &tail);
        taus.push(tau);
        if i + 1 < n {
            let rows: Vec<usize> = (i..m).collect();
            let cols: Vec<usize> = (i + 1..n).collect();
            // geqr2 applies H(i)^H.
            let v = reflector(a, n, m, i, i);
            larf_left(a, n, &rows, &v, &cols, tau.conj());
        }
    }
    taus
}

/// `org2r`/`ung2r` on one row-major `m x n` matrix holding `k` reflectors
/// in its first columns: overwritten by the first `n` columns of their
/// product `H(1) ... H(k)`.
fn householder_one<T: Reflect>(a: &mut [T], m: usize, n: usize, taus: &[T]) {
    let k = taus.len().min(n);
    for j in k..n {
        for r in 0..m {
            a[r * n + j] = T::default();
        }
        if j < m {
            a[j * n + j] = T::from_re(1.0);
        }
    }
    for i in (0..k).rev() {
        let tau = taus[i];
        if i + 1 < n {
            let rows: Vec<usize> = (i..m).collect();
            let cols: Vec<usize> = (i + 1..n).collect();
            let v = reflector(a, n, m, i, i);
            larf_left(a, n, &rows, &v, &cols, tau);
        }
        for r in i + 1..m {
            a[r * n + i] = -tau * a[r * n + i];
        }
        a[i * n + i] = T::from_re(1.0) - tau;
        for r in 0..i {
            a[r * n + i] = T::default();
        }
    }
}

fn geqrf_all<T: Reflect>(data: &[T], m: usize, n: usize) -> (Vec<T>, Vec<T>) {
    let mut out = data.to_vec();
    let mut taus = Vec::new();
    if m * n == 0 {
        return (out, taus);
    }
    for a in out.chunks_mut(m * n) {
        taus.extend(geqrf_one(a, m, n));
    }
    (out, taus)
}

fn householder_all<T: Reflect>(data: &[T], taus: &[T], m: usize, n: usize, k: usize) -> Vec<T> {
    let mut out = data.to_vec();
    if m * n == 0 {
        return out;
    }
    for (c, a) in out.chunks_mut(m * n).enumerate() {
        householder_one(a, m, n, &taus[c * k..(c + 1) * k]);
    }
    out
}

/// `Q` and `R` of one row-major `m x n` matrix, as JAX composes them
/// from `geqrf` and `householder_product`: `Q` is `m x kq`, `R` is
/// `kq x n` (`kq` is `m` when `full`, else `min(m, n)`).
fn qr_one<T: Reflect>(x: &[T], m: usize, n: usize, full: bool) -> (Vec<T>, Vec<T>) {
    let mut a = x.to_vec();
    let taus = geqrf_one(&mut a, m, n);
    let kq = if full { m } else { m.min(n) };
    // The first min(n, kq) columns of the packed factors seed Q; the
    // product overwrites the others.
    let mut q = vec![T::default(); m * kq];
    for r in 0..m {
        for c in 0..kq.min(n) {
            q[r * kq + c] = a[r * n + c];
        }
    }
    householder_one(&mut q, m, kq, &taus);
    let mut r = vec![T::default(); kq * n];
    for i in 0..kq.min(m) {
        for j in i..n {
            r[i * n + j] = a[i * n + j];
        }
    }
    (q, r)
}

fn qr_all<T: Reflect>(data: &[T], m: usize, n: usize, full: bool) -> (Vec<T>, Vec<T>) {
    let (mut qs, mut rs) = (Vec::new(), Vec::new());
    let count = data.len().checked_div(m * n).unwrap_or(0);
    for c in 0..count {
        let (q, r) = qr_one(&data[c * m * n..(c + 1) * m * n], m, n, full);
        qs.extend(q);
        rs.extend(r);
    }
    (qs, rs)
}

fn not_inexact(name: &str, a: &Array) -> crate::error::Error {
    crate::error::Error::new(
        crate::error::ErrorKind::TypeError,
        format!(
            "{name} does not accept dtype {}. Accepted dtypes are subtypes of inexact.",
            a.dtype().name()
        ),
    )
}

impl Array {
    /// The `geqrf` primitive on `[..., m, n]`: `R` and the reflectors
    /// packed in one array, and the taus `[..., min(m, n)]`.
    pub fn geqrf(&self) -> Result<[Array; 2]> {
        let s = self.shape();
        let nd = s.len();
        let (m, n) = (s[nd - 2], s[nd - 1]);
        let mut ts: Vec<usize> = s[..nd - 2].to_vec();
        ts.push(m.min(n));
        Ok(match self.buffer() {
            Buffer::F32(d) => {
                let (o, t) = geqrf_all(d, m, n);
                [Array::from_f32(s, o)?, Array::from_f32(&ts, t)?]
            }
            Buffer::C64(d) => {
                let (o, t) = geqrf_all(d, m, n);
                [
                    Array::from_buffer(s, Buffer::C64(o.into()))?,
                    Array::from_buffer(&ts, Buffer::C64(t.into()))?,
                ]
            }
            _ => return Err(not_inexact("geqrf", self)),
        })
    }

    /// The `qr` primitive on `[..., m, n]`: `Q` and `R`.
    pub fn qr(&self, full_matrices: bool) -> Result<[Array; 2]> {
        let s = self.shape();
        let nd = s.len();
        let (m, n) = (s[nd - 2], s[nd - 1]);
        let kq = if full_matrices { m } else { m.min(n) };
        let with = |a: usize, b: usize| -> Vec<usize> {
            s[..nd - 2].iter().copied().chain([a, b]).collect()
        };
        let (qs, rs) = (with(m, kq), with(kq, n));
        if m * n == 0 {
            let q = Array::eye(m, kq, 0, self.dtype()).broadcast_to(&qs)?;
            return Ok([q, Array::zeros(&rs, self.dtype())]);
        }
        Ok(match self.buffer() {
            Buffer::F32(d) => {
                let (q, r) = qr_all(d, m, n, full_matrices);
                [Array::from_f32(&qs, q)?, Array::from_f32(&rs, r)?]
            }
            Buffer::C64(d) => {
                let (q, r) = qr_all(d, m, n, full_matrices);
                [
                    Array::from_buffer(&qs, Buffer::C64(q.into()))?,
                    Array::from_buffer(&rs, Buffer::C64(r.into()))?,
                ]
            }
            _ => return Err(not_inexact("qr", self)),
        })
    }

    /// The `householder_product` primitive: `a` `[..., m, n]` holds
    /// reflectors in its first `k` columns, `taus` is `[..., k]`; the
    /// result is the first `n` columns of their product.
    pub fn householder_product(&self, taus: &Array) -> Result<Array> {
        let s = self.shape();
        let nd = s.len();
        let (m, n) = (s[nd - 2], s[nd - 1]);
        let k = taus.shape().last().copied().unwrap_or(0);
        if k > n || n > m {
            bail!(
                ValueError,
                "householder_product requires m >= n >= k, got a={} and taus={}",
                super::shape_tuple(s),
                super::shape_tuple(taus.shape())
            );
        }
        match (self.buffer(), taus.buffer()) {
            (Buffer::F32(d), Buffer::F32(t)) => Array::from_f32(s, householder_all(d, t, m, n, k)),
            (Buffer::C64(d), Buffer::C64(t)) => {
                Array::from_buffer(s, Buffer::C64(householder_all(d, t, m, n, k).into()))
            }
            _ => Err(not_inexact("householder_product", self)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reflector_of_3_4() {
        // [3, 4]: beta = -5, tau = 8/5, v = [1, 4 / 8].
        let mut a = vec![3.0f32, 4.0];
        let tau = larfg(&mut a, 0, &[1]);
        assert_eq!(a, vec![-5.0, 0.5]);
        assert_eq!(tau, 1.6);
    }
}
