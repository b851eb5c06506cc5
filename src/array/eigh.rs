//! The symmetric (Hermitian) eigendecomposition on the two trailing axes of
//! a float32 or complex64 array, reading the lower triangle, in the order
//! of the LAPACK path JAX's CPU backend takes for small matrices (`syevd`):
//! reduction to a real tridiagonal matrix by reflectors (`sytd2`/`hetd2`),
//! the implicit QL or QR iteration with Wilkinson shifts on it (`steqr`,
//! which `stedc` calls below its divide-and-conquer size), and the
//! reflectors applied to the rotated identity (`ormtr`/`unmtr`).
//! Eigenvalues come out ascending with their eigenvectors in the columns.
//! Following that order gives LAPACK's eigenvector signs; the last bits can
//! differ where the optimized BLAS kernels sum in other orders. The
//! rescaling `syevd` and `steqr` apply to matrices with norms outside
//! about `[3e-5, 3e18]` is modelled as one multiplication.

use super::householder::{larf_left, larfg, Reflect};
use super::{Array, Buffer, C64};
use crate::bail;
use crate::error::Result;

const EPS: f32 = f32::EPSILON / 2.0;
const SAFMIN: f32 = f32::MIN_POSITIVE;

/// Reduces the Hermitian row-major `a` (lower triangle read) to the
/// tridiagonal `(d, e)`; the reflectors stay below the subdiagonal of `a`,
/// their taus are returned.
fn tridiagonalize<T: Reflect>(a: &mut [T], n: usize) -> (Vec<f32>, Vec<f32>, Vec<T>) {
    let at = |i: usize, j: usize| i * n + j;
    let (mut d, mut e, mut taus) = (vec![0.0; n], vec![0.0; n.saturating_sub(1)], vec![]);
    a[0] = T::from_re(a[0].re());
    for i in 0..n - 1 {
        let tail: Vec<usize> = (i + 2..n).map(|r| at(r, i)).collect();
        let tau = larfg(a, at(i + 1, i), &tail);
        e[i] = a[at(i + 1, i)].re();
        if tau.re() != 0.0 || tau.im() != 0.0 {
            a[at(i + 1, i)] = T::from_re(1.0);
            let v: Vec<T> = (i + 1..n).map(|r| a[at(r, i)]).collect();
            let x = hemv_lower(a, n, i + 1, tau, &v);
            // alpha = -tau/2 (x^H v); w = x + alpha v.
            let mut dot = T::default();
            for (xk, vk) in x.iter().zip(&v) {
                dot = dot + xk.conj() * *vk;
            }
            let alpha = -(T::from_re(0.5) * tau) * dot;
            let w: Vec<T> = x.iter().zip(&v).map(|(&xk, &vk)| xk + alpha * vk).collect();
            her2_lower(a, n, i + 1, &v, &w);
            a[at(i + 1, i)] = T::from_re(e[i]);
        }
        d[i] = a[at(i, i)].re();
        taus.push(tau);
    }
    d[n - 1] = a[at(n - 1, n - 1)].re();
    (d, e, taus)
}

/// `alpha A x` for the trailing block `A = a[off.., off..]`, lower
/// triangle read, in the column order of the reference `symv`/`hemv`.
fn hemv_lower<T: Reflect>(a: &[T], n: usize, off: usize, alpha: T, x: &[T]) -> Vec<T> {
    let k = n - off;
    let mut y = vec![T::default(); k];
    for j in 0..k {
        let t1 = alpha * x[j];
        let mut t2 = T::default();
        y[j] = y[j] + t1 * T::from_re(a[(off + j) * n + off + j].re());
        for i in j + 1..k {
            let aij = a[(off + i) * n + off + j];
            y[i] = y[i] + t1 * aij;
            t2 = t2 + aij.conj() * x[i];
        }
        y[j] = y[j] + alpha * t2;
    }
    y
}

/// `A -= v w^H + w v^H` on the lower triangle of the trailing block.
fn her2_lower<T: Reflect>(a: &mut [T], n: usize, off: usize, v: &[T], w: &[T]) {
    let k = n - off;
    for j in 0..k {
        let t1 = -w[j].conj();
        let t2 = -v[j].conj();
        for i in j..k {
            let at = (off + i) * n + off + j;
            let upd = a[at] + v[i] * t1 + w[i] * t2;
            a[at] = if i == j { T::from_re(upd.re()) } else { upd };
        }
    }
}

/// The eigenvalues and eigenvectors of the 2 x 2 symmetric `[[a, b], [b,
/// c]]`: `(rt1, rt2, cs, sn)` with `|rt1| >= |rt2|` and `(cs, sn)` the
/// unit eigenvector of `rt1`, as `laev2` forms them.
fn laev2(a: f32, b: f32, c: f32) -> (f32, f32, f32, f32) {
    let (sm, df) = (a + c, a - c);
    let adf = df.abs();
    let tb = b + b;
    let ab = tb.abs();
    let (acmx, acmn) = if a.abs() > c.abs() { (a, c) } else { (c, a) };
    let rt = if adf > ab {
        adf * (1.0 + (ab / adf) * (ab / adf)).sqrt()
    } else if adf < ab {
        ab * (1.0 + (adf / ab) * (adf / ab)).sqrt()
    } else {
        ab * std::f32::consts::SQRT_2
    };
    let (rt1, rt2, sgn1) = if sm < 0.0 {
        let rt1 = 0.5 * (sm - rt);
        (rt1, (acmx / rt1) * acmn - (b / rt1) * b, -1)
    } else if sm > 0.0 {
        let rt1 = 0.5 * (sm + rt);
        (rt1, (acmx / rt1) * acmn - (b / rt1) * b, 1)
    } else {
        (0.5 * rt, -0.5 * rt, 1)
    };
    let (cs, sgn2) = if df >= 0.0 {
        (df + rt, 1)
    } else {
        (df - rt, -1)
    };
    let (mut cs1, mut sn1) = if cs.abs() > ab {
        let ct = -tb / cs;
        let sn1 = 1.0 / (1.0 + ct * ct).sqrt();
        (ct * sn1, sn1)
    } else if ab == 0.0 {
        (1.0, 0.0)
    } else {
        let tn = -cs / tb;
        let cs1 = 1.0 / (1.0 + tn * tn).sqrt();
        (cs1, tn * cs1)
    };
    if sgn1 == sgn2 {
        (cs1, sn1) = (-sn1, cs1);
    }
    (rt1, rt2, cs1, sn1)
}

/// The plane rotation `[c s; -s c] [f; g] = [r; 0]` with `c >= 0` and `r`
/// of `f`'s sign, as the current `lartg` computes it.
fn lartg(f: f32, g: f32) -> (f32, f32, f32) {
    let rtmin = SAFMIN.sqrt();
    let rtmax = (1.0 / SAFMIN / 2.0).sqrt();
    let (f1, g1) = (f.abs(), g.abs());
    if g == 0.0 {
        (1.0, 0.0, f)
    } else if f == 0.0 {
        (0.0, 1.0f32.copysign(g), g1)
    } else if f1 > rtmin && f1 < rtmax && g1 > rtmin && g1 < rtmax {
        let d = (f * f + g * g).sqrt();
        let r = d.copysign(f);
        (f1 / d, g / r, r)
    } else {
        let u = SAFMIN.max(f1).max(g1).min(1.0 / SAFMIN);
        let (fs, gs) = (f / u, g / u);
        let d = (fs * fs + gs * gs).sqrt();
        let r = d.copysign(f);
        (fs.abs() / d, gs / r, r * u)
    }
}

/// Applies the rotations `(c[j], s[j])` in the planes of columns
/// `(first + j, first + j + 1)` of the real row-major `z` (`n x n`),
/// backward (`j` descending) or forward, as `lasr('R', 'V', ...)`.
fn rotate_columns(z: &mut [f32], n: usize, first: usize, cs: &[(f32, f32)], backward: bool) {
    let order: Vec<usize> = if backward {
        (0..cs.len()).rev().collect()
    } else {
        (0..cs.len()).collect()
    };
    for j in order {
        let (c, s) = cs[j];
        if c == 1.0 && s == 0.0 {
            continue;
        }
        let (p, q) = (first + j, first + j + 1);
        for i in 0..n {
            let t = z[i * n + q];
            z[i * n + q] = c * t - s * z[i * n + p];
            z[i * n + p] = s * t + c * z[i * n + p];
        }
    }
}

/// The state of the QL/QR iteration on one tridiagonal matrix.
struct Tridiagonal<'a> {
    d: &'a mut [f32],
    e: &'a mut [f32],
    z: &'a mut [f32],
    n: usize,
}

impl Tridiagonal<'_> {
    /// Annihilates `e[l]` of the 2 x 2 block at `l` (rotating columns
    /// `l, l + 1` of `z`); `backward` is the QL direction.
    fn block2(&mut self, l: usize, backward: bool) {
        let (rt1, rt2, c, s) = laev2(self.d[l], self.e[l], self.d[l + 1]);
        rotate_columns(self.z, self.n, l, &[(c, s)], backward);
        self.d[l] = rt1;
        self.d[l + 1] = rt2;
        self.e[l] = 0.0;
    }

    /// One implicit QL sweep on the block `l..=m` (eigenvalue sought at
    /// `l`).
    fn ql_sweep(&mut self, l: usize, m: usize) {
        let (d, e) = (&mut *self.d, &mut *self.e);
        let p0 = d[l];
        let g = (d[l + 1] - p0) / (2.0 * e[l]);
        let r = lapy2_one(g);
        let mut g = d[m] - p0 + e[l] / (g + r.copysign(g));
        let (mut s, mut c, mut p) = (1.0f32, 1.0f32, 0.0f32);
        let mut rots = vec![(1.0, 0.0); m - l];
        for i in (l..m).rev() {
            let f = s * e[i];
            let b = c * e[i];
            let (cc, ss, r) = lartg(g, f);
            (c, s) = (cc, ss);
            if i != m - 1 {
                e[i + 1] = r;
            }
            g = d[i + 1] - p;
            let r = (d[i] - g) * s + 2.0 * c * b;
            p = s * r;
            d[i + 1] = g + p;
            g = c * r - b;
            rots[i - l] = (c, -s);
        }
        d[l] -= p;
        e[l] = g;
        rotate_columns(self.z, self.n, l, &rots, true);
    }

    /// One implicit QR sweep on the block `m..=l` (eigenvalue sought at
    /// `l`).
    fn qr_sweep(&mut self, l: usize, m: usize) {
        let (d, e) = (&mut *self.d, &mut *self.e);
        let p0 = d[l];
        let g = (d[l - 1] - p0) / (2.0 * e[l - 1]);
        let r = lapy2_one(g);
        let mut g = d[m] - p0 + e[l - 1] / (g + r.copysign(g));
        let (mut s, mut c, mut p) = (1.0f32, 1.0f32, 0.0f32);
        let mut rots = vec![(1.0, 0.0); l - m];
        for i in m..l {
            let f = s * e[i];
            let b = c * e[i];
            let (cc, ss, r) = lartg(g, f);
            (c, s) = (cc, ss);
            if i != m {
                e[i - 1] = r;
            }
            g = d[i] - p;
            let r = (d[i + 1] - g) * s + 2.0 * c * b;
            p = s * r;
            d[i] = g + p;
            g = c * r - b;
            rots[i - m] = (c, s);
        }
        d[l] -= p;
        e[l - 1] = g;
        rotate_columns(self.z, self.n, m, &rots, false);
    }
}

/// `sqrt(g^2 + 1)` as `lapy2(g, 1)`.
fn lapy2_one(g: f32) -> f32 {
    let (w, z) = if g.abs() >= 1.0 {
        (g.abs(), 1.0)
    } else {
        (1.0, g.abs())
    };
    w * (1.0 + (z / w) * (z / w)).sqrt()
}

/// The QL iteration on the unreduced block `l..=lend` (`l < lend`);
/// returns false when the iteration budget ran out.
fn ql_block(t: &mut Tridiagonal, mut l: usize, lend: usize, jtot: &mut usize, max: usize) -> bool {
    let eps2 = EPS * EPS;
    while l <= lend {
        let mut m = lend;
        for mm in l..lend {
            let tst = t.e[mm].abs() * t.e[mm].abs();
            if tst <= (eps2 * t.d[mm].abs()) * t.d[mm + 1].abs() + SAFMIN {
                m = mm;
                break;
            }
        }
        if m < lend {
            t.e[m] = 0.0;
        }
        if m == l {
            l += 1;
            continue;
        }
        if m == l + 1 {
            t.block2(l, true);
            l += 2;
            continue;
        }
        if *jtot == max {
            return false;
        }
        *jtot += 1;
        t.ql_sweep(l, m);
    }
    true
}

/// The QR iteration on the unreduced block `lend..=l` (`l > lend`).
fn qr_block(t: &mut Tridiagonal, mut l: usize, lend: usize, jtot: &mut usize, max: usize) -> bool {
    let eps2 = EPS * EPS;
    loop {
        let mut m = lend;
        for mm in (lend + 1..=l).rev() {
            let tst = t.e[mm - 1].abs() * t.e[mm - 1].abs();
            if tst <= (eps2 * t.d[mm].abs()) * t.d[mm - 1].abs() + SAFMIN {
                m = mm;
                break;
            }
        }
        if m > lend {
            t.e[m - 1] = 0.0;
        }
        if m == l {
            if l == lend {
                return true;
            }
            l -= 1;
            continue;
        }
        if m + 1 == l {
            t.block2(l - 1, false);
            if l < lend + 2 {
                return true;
            }
            l -= 2;
            continue;
        }
        if *jtot == max {
            return false;
        }
        *jtot += 1;
        t.qr_sweep(l, m);
    }
}

/// Scales `d[lo..=hi]` and `e[lo..hi]` by `to / from`.
fn rescale(t: &mut Tridiagonal, lo: usize, hi: usize, from: f32, to: f32) {
    let f = to / from;
    t.d[lo..=hi].iter_mut().for_each(|x| *x *= f);
    t.e[lo..hi].iter_mut().for_each(|x| *x *= f);
}

/// `steqr` with `z` starting as the identity; false when it did not
/// converge.
fn steqr(t: &mut Tridiagonal) -> bool {
    let n = t.n;
    let ssfmax = (1.0 / SAFMIN).sqrt() / 3.0;
    let ssfmin = SAFMIN.sqrt() / (EPS * EPS);
    let max = 30 * n;
    let mut jtot = 0;
    let mut l1 = 0;
    while l1 < n {
        if l1 > 0 {
            t.e[l1 - 1] = 0.0;
        }
        let mut m = n - 1;
        for mm in l1..n - 1 {
            let tst = t.e[mm].abs();
            if tst == 0.0 || tst <= t.d[mm].abs().sqrt() * t.d[mm + 1].abs().sqrt() * EPS {
                t.e[mm] = 0.0;
                m = mm;
                break;
            }
        }
        let (lsv, lendsv) = (l1, m);
        l1 = m + 1;
        if lendsv == lsv {
            continue;
        }
        let anorm = t.d[lsv..=lendsv]
            .iter()
            .chain(&t.e[lsv..lendsv])
            .fold(0.0f32, |a, x| a.max(x.abs()));
        if anorm == 0.0 {
            continue;
        }
        let scale = if anorm > ssfmax {
            Some(ssfmax)
        } else if anorm < ssfmin {
            Some(ssfmin)
        } else {
            None
        };
        if let Some(to) = scale {
            rescale(t, lsv, lendsv, anorm, to);
        }
        let ok = if t.d[lendsv].abs() < t.d[lsv].abs() {
            qr_block(t, lendsv, lsv, &mut jtot, max)
        } else {
            ql_block(t, lsv, lendsv, &mut jtot, max)
        };
        if let Some(from) = scale {
            rescale(t, lsv, lendsv, from, anorm);
        }
        if !ok {
            return false;
        }
    }
    sort_pairs(t);
    true
}

/// Orders the eigenvalues ascending by selection, swapping the columns of
/// `z` with them.
fn sort_pairs(t: &mut Tridiagonal) {
    let n = t.n;
    for i in 0..n.saturating_sub(1) {
        let (mut k, mut p) = (i, t.d[i]);
        for j in i + 1..n {
            if t.d[j] < p {
                (k, p) = (j, t.d[j]);
            }
        }
        if k != i {
            t.d[k] = t.d[i];
            t.d[i] = p;
            for r in 0..n {
                t.z.swap(r * n + i, r * n + k);
            }
        }
    }
}

/// The eigenvalues and eigenvectors (columns) of one Hermitian `n x n`
/// row-major matrix; NaN everywhere when the iteration fails.
fn eigh_one<T: Reflect>(a: &mut [T], n: usize) -> (Vec<f32>, Vec<T>) {
    if n == 1 {
        return (vec![a[0].re()], vec![T::from_re(1.0)]);
    }
    let (mut d, mut e, taus) = tridiagonalize(a, n);
    let mut z = vec![0.0f32; n * n];
    (0..n).for_each(|i| z[i * n + i] = 1.0);
    let mut t = Tridiagonal {
        d: &mut d,
        e: &mut e,
        z: &mut z,
        n,
    };
    if !steqr(&mut t) {
        return (
            vec![f32::NAN; n],
            vec![T::from_parts(f32::NAN, f32::NAN); n * n],
        );
    }
    let mut q: Vec<T> = z.iter().map(|&x| T::from_re(x)).collect();
    let cols: Vec<usize> = (0..n).collect();
    for i in (0..n - 1).rev() {
        let v: Vec<T> = (i + 1..n)
            .map(|r| {
                if r == i + 1 {
                    T::from_re(1.0)
                } else {
                    a[r * n + i]
                }
            })
            .collect();
        let rows: Vec<usize> = (i + 1..n).collect();
        larf_left(&mut q, n, &rows, &v, &cols, taus[i]);
    }
    (d, q)
}

fn eigh_all<T: Reflect>(data: &[T], n: usize) -> (Vec<T>, Vec<f32>) {
    let (mut vecs, mut vals) = (Vec::new(), Vec::new());
    if n == 0 {
        return (vecs, vals);
    }
    for m in data.chunks(n * n) {
        let mut a = m.to_vec();
        let (w, v) = eigh_one(&mut a, n);
        vals.extend(w);
        vecs.extend(v);
    }
    (vecs, vals)
}

impl Array {
    /// The `eigh` primitive on Hermitian `[..., n, n]` (lower triangle
    /// read): the eigenvectors (columns) and the real eigenvalues
    /// `[..., n]`, ascending.
    pub fn eigh(&self) -> Result<[Array; 2]> {
        let s = self.shape();
        let nd = s.len();
        let n = s[nd - 1];
        let mut ws: Vec<usize> = s[..nd - 2].to_vec();
        ws.push(n);
        Ok(match self.buffer() {
            Buffer::F32(d) => {
                let (v, w) = eigh_all(d, n);
                [Array::from_f32(s, v)?, Array::from_f32(&ws, w)?]
            }
            Buffer::C64(d) => {
                let (v, w) = eigh_all::<C64>(d, n);
                [
                    Array::from_buffer(s, Buffer::C64(v.into()))?,
                    Array::from_f32(&ws, w)?,
                ]
            }
            _ => bail!(
                TypeError,
                "eigh does not accept dtype {}. Accepted dtypes are subtypes of inexact.",
                self.dtype().name()
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diagonal_matrix_sorts() {
        let a =
            Array::from_f32(&[2, 2], vec![3.0, 0.0, 0.0, 1.0]).unwrap_or_else(|e| panic!("{e:?}"));
        let [v, w] = a.eigh().unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(w.f32_data().ok(), Some(&[1.0, 3.0][..]));
        assert_eq!(v.f32_data().ok(), Some(&[0.0, 1.0, 1.0, 0.0][..]));
    }
}
