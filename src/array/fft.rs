//! The discrete Fourier transforms of `lax.fft` on complex64 and float32
//! arrays, computed in float32 the way XLA's CPU backend computes them.
//!
//! XLA runs DUCC's FFT: a length is split into factors (8s, then 4s, one
//! 2 moved to the front, then odd primes in increasing order) and the
//! transform is one Cooley-Tukey pass per factor, each a fixed butterfly
//! followed by a multiplication with roots of unity that were computed in
//! double precision and rounded once. This file follows that plan and
//! those butterflies operation by operation, so a complex transform gives
//! the same float32 bits. The real transforms are computed here through the
//! complex one on the full Hermitian spectrum (DUCC has dedicated real
//! passes with their own rounding), so their last bits may differ where the
//! result is not exact. An n-d transform runs one axis at a time in DUCC's
//! order (the last axis first), and the `1/N` of an inverse transform is
//! one float32 factor applied with the last axis it runs.

use crate::array::{Array, Buffer, C64};
use crate::bail;
use crate::error::Result;

/// Which transform `lax.fft` computes (JAX's `FftType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(target_arch = "wasm32", derive(serde::Serialize, serde::Deserialize))]
pub enum FftType {
    /// Forward complex-to-complex.
    Fft,
    /// Inverse complex-to-complex, scaled by `1/N`.
    Ifft,
    /// Forward real-to-complex: the non-negative frequencies.
    Rfft,
    /// Inverse complex-to-real, scaled by `1/N`.
    Irfft,
}

impl FftType {
    /// The name JAX prints (`jax.lax.FftType.FFT`).
    pub fn name(self) -> &'static str {
        match self {
            FftType::Fft => "FFT",
            FftType::Ifft => "IFFT",
            FftType::Rfft => "RFFT",
            FftType::Irfft => "IRFFT",
        }
    }

    /// JAX's integer value of the enum.
    pub fn value(self) -> i64 {
        match self {
            FftType::Fft => 0,
            FftType::Ifft => 1,
            FftType::Rfft => 2,
            FftType::Irfft => 3,
        }
    }
}

/// The factors of `n` in the order DUCC runs its passes.
fn factorize(mut n: usize) -> Vec<usize> {
    let mut f = Vec::new();
    while n % 8 == 0 {
        f.push(8);
        n /= 8;
    }
    while n % 4 == 0 {
        f.push(4);
        n /= 4;
    }
    if n % 2 == 0 {
        n /= 2;
        f.push(2);
        let last = f.len() - 1;
        f.swap(0, last);
    }
    let mut d = 3;
    while d * d <= n {
        while n % d == 0 {
            f.push(d);
            n /= d;
        }
        d += 2;
    }
    if n > 1 {
        f.push(n);
    }
    f
}

/// `exp(2 pi i k / n)` for every `k`, computed in double precision with the
/// angle reduced to the first octant (so the symmetric roots are exactly
/// mirrored) and rounded once to float32.
fn roots(n: usize) -> Vec<C64> {
    (0..n)
        .map(|k| {
            let (c, s) = cos_sin_2pi(k, n);
            C64::new(c as f32, s as f32)
        })
        .collect()
}

/// `(cos, sin)` of `2 pi k / n` in double precision, from an angle
/// reduced to the first octant so that mirrored roots are exact mirrors.
fn cos_sin_2pi(k: usize, n: usize) -> (f64, f64) {
    let k8 = 8 * (k % n);
    let (oct, rem) = (k8 / n, k8 % n);
    let quarter = |r: usize| std::f64::consts::FRAC_PI_4 * (r as f64) / (n as f64);
    // The angle is (oct + rem/n) eighths of a turn: `a` past an even
    // octant boundary or `b` short of an odd one.
    let (ca, sa) = (quarter(rem).cos(), quarter(rem).sin());
    let (cb, sb) = (quarter(n - rem).cos(), quarter(n - rem).sin());
    match oct {
        0 => (ca, sa),
        1 => (sb, cb),
        2 => (-sa, ca),
        3 => (-cb, sb),
        4 => (-ca, -sa),
        5 => (-sb, -cb),
        6 => (sa, -ca),
        _ => (cb, -sb),
    }
}

/// `a * conj(w)` forward, `a * w` backward, as DUCC's `special_mul`.
fn twiddle(a: C64, w: C64, fwd: bool) -> C64 {
    if fwd {
        C64::new(a.re * w.re + a.im * w.im, a.im * w.re - a.re * w.im)
    } else {
        C64::new(a.re * w.re - a.im * w.im, a.re * w.im + a.im * w.re)
    }
}

/// `a * -i` forward, `a * i` backward.
fn rot90(a: C64, fwd: bool) -> C64 {
    if fwd {
        C64::new(a.im, -a.re)
    } else {
        C64::new(-a.im, a.re)
    }
}

/// One plan: the roots of the full length and the passes' radices.
pub struct Plan {
    n: usize,
    roots: Vec<C64>,
    factors: Vec<usize>,
}

impl Plan {
    /// The plan of a transform of length `n` (at least 1).
    pub fn new(n: usize) -> Plan {
        Plan {
            n,
            roots: roots(n),
            factors: factorize(n),
        }
    }

    /// Transforms `data` (length `n`) in place, forward or backward,
    /// without scaling.
    pub fn exec(&self, data: &mut [C64], fwd: bool) {
        if self.n <= 1 {
            return;
        }
        let mut buf = vec![C64::default(); self.n];
        let mut l1 = 1;
        for &ip in &self.factors {
            let ido = self.n / (l1 * ip);
            self.pass(data, &mut buf, l1, ido, ip, fwd);
            data.copy_from_slice(&buf);
            l1 *= ip;
        }
    }

    /// One Cooley-Tukey pass of radix `ip`: reads `cc[i + ido*(j + ip*k)]`,
    /// writes `ch[i + ido*(k + l1*j)]`, the outputs `j > 0` of `i > 0`
    /// multiplied by the root `j*l1*i`.
    fn pass(&self, cc: &[C64], ch: &mut [C64], l1: usize, ido: usize, ip: usize, fwd: bool) {
        let consts = self.radix_roots(ip, fwd);
        let mut x = vec![C64::default(); ip];
        let mut y = vec![C64::default(); ip];
        for k in 0..l1 {
            for i in 0..ido {
                for (j, xj) in x.iter_mut().enumerate() {
                    *xj = cc[i + ido * (j + ip * k)];
                }
                butterfly(ip, &x, &mut y, &consts, fwd);
                for (j, &yj) in y.iter().enumerate() {
                    ch[i + ido * (k + l1 * j)] = if i == 0 || j == 0 {
                        yj
                    } else {
                        twiddle(yj, self.roots[j * l1 * i], fwd)
                    };
                }
            }
        }
    }

    /// The `ip`-th roots of unity a butterfly of radix `ip` uses, signed
    /// for the direction (the sines negated forward).
    fn radix_roots(&self, ip: usize, fwd: bool) -> Vec<C64> {
        let step = self.n / ip;
        (0..ip)
            .map(|m| {
                let w = self.roots[m * step];
                C64::new(w.re, if fwd { -w.im } else { w.im })
            })
            .collect()
    }
}

/// The DFT of `x` (length `ip`) into `y` with DUCC's butterfly for `ip`.
fn butterfly(ip: usize, x: &[C64], y: &mut [C64], w: &[C64], fwd: bool) {
    match ip {
        2 => {
            y[0] = x[0] + x[1];
            y[1] = x[0] - x[1];
        }
        4 => radix4(x, y, fwd),
        8 => radix8(x, y, fwd),
        3 | 5 | 7 | 11 => small_odd(ip, x, y, w),
        _ => generic(ip, x, y, w),
    }
}

fn radix4(x: &[C64], y: &mut [C64], fwd: bool) {
    let (t2, t1) = (x[0] + x[2], x[0] - x[2]);
    let (t3, t4) = (x[1] + x[3], x[1] - x[3]);
    let t4 = rot90(t4, fwd);
    y[0] = t2 + t3;
    y[2] = t2 - t3;
    y[1] = t1 + t4;
    y[3] = t1 - t4;
}

/// `a` rotated by 45 (or 135) degrees clockwise forward, counter-clockwise
/// backward, through `sqrt(1/2)` rounded to float32.
fn rot45(a: C64, fwd: bool) -> C64 {
    let h = std::f32::consts::FRAC_1_SQRT_2;
    if fwd {
        C64::new(h * (a.re + a.im), h * (a.im - a.re))
    } else {
        C64::new(h * (a.re - a.im), h * (a.im + a.re))
    }
}

fn rot135(a: C64, fwd: bool) -> C64 {
    let h = std::f32::consts::FRAC_1_SQRT_2;
    if fwd {
        C64::new(h * (a.im - a.re), h * (-a.re - a.im))
    } else {
        C64::new(h * (-a.re - a.im), h * (a.re - a.im))
    }
}

fn radix8(x: &[C64], y: &mut [C64], fwd: bool) {
    let (a1, a5) = (x[1] + x[5], x[1] - x[5]);
    let (a3, a7) = (x[3] + x[7], x[3] - x[7]);
    let (a1, a3) = (a1 + a3, a1 - a3);
    let a3 = rot90(a3, fwd);
    let a7 = rot90(a7, fwd);
    let (a5, a7) = (a5 + a7, a5 - a7);
    let a5 = rot45(a5, fwd);
    let a7 = rot135(a7, fwd);
    let (a0, a4) = (x[0] + x[4], x[0] - x[4]);
    let (a2, a6) = (x[2] + x[6], x[2] - x[6]);
    let (a0, a2) = (a0 + a2, a0 - a2);
    y[0] = a0 + a1;
    y[4] = a0 - a1;
    y[2] = a2 + a3;
    y[6] = a2 - a3;
    let a6 = rot90(a6, fwd);
    let (a4, a6) = (a4 + a6, a4 - a6);
    y[1] = a4 + a5;
    y[5] = a4 - a5;
    y[3] = a6 + a7;
    y[7] = a6 - a7;
}

/// The butterflies of 3, 5, 7 and 11: sums and differences of the mirrored
/// inputs, each output pair from one cosine sum and one sine sum, both
/// accumulated left to right.
fn small_odd(ip: usize, x: &[C64], y: &mut [C64], w: &[C64]) {
    let h = (ip - 1) / 2;
    let s: Vec<C64> = (1..=h).map(|j| x[j] + x[ip - j]).collect();
    let d: Vec<C64> = (1..=h).map(|j| x[j] - x[ip - j]).collect();
    let mut y0 = x[0];
    for sj in &s {
        y0.re += sj.re;
    }
    for sj in &s {
        y0.im += sj.im;
    }
    y[0] = y0;
    for u in 1..=h {
        let mut ca = x[0];
        let (mut cbi, mut cbr) = (0.0f32, 0.0f32);
        for j in 1..=h {
            let m = (u * j) % ip;
            let (c, sn) = if m <= h {
                (w[m].re, w[m].im)
            } else {
                (w[ip - m].re, -w[ip - m].im)
            };
            ca.re += c * s[j - 1].re;
            ca.im += c * s[j - 1].im;
            if j == 1 {
                cbi = sn * d[0].re;
                cbr = sn * d[0].im;
            } else {
                cbi += sn * d[j - 1].re;
                cbr += sn * d[j - 1].im;
            }
        }
        let cb = C64::new(-cbr, cbi);
        y[u] = ca + cb;
        y[ip - u] = ca - cb;
    }
}

/// DUCC's generic odd radix: the cosine sums start with the first two terms
/// and then add the rest two at a time, the sine sums likewise.
fn generic(ip: usize, x: &[C64], y: &mut [C64], w: &[C64]) {
    let ipph = ip.div_ceil(2);
    let mut ch = vec![C64::default(); ip];
    ch[0] = x[0];
    for j in 1..ipph {
        ch[j] = x[j] + x[ip - j];
        ch[ip - j] = x[j] - x[ip - j];
    }
    let mut cx = vec![C64::default(); ip];
    let mut tmp = ch[0];
    for c in &ch[1..ipph] {
        tmp = tmp + *c;
    }
    cx[0] = tmp;
    for l in 1..ipph {
        let lc = ip - l;
        let (wal, wal2) = (w[l], w[(2 * l) % ip]);
        cx[l].re = ch[0].re + wal.re * ch[1].re + wal2.re * ch[2].re;
        cx[l].im = ch[0].im + wal.re * ch[1].im + wal2.re * ch[2].im;
        cx[lc].re = -wal.im * ch[ip - 1].im - wal2.im * ch[ip - 2].im;
        cx[lc].im = wal.im * ch[ip - 1].re + wal2.im * ch[ip - 2].re;
        let mut iwal = 2 * l;
        let (mut j, mut jc) = (3, ip - 3);
        while j + 1 < ipph {
            iwal = (iwal + l) % ip;
            let xw = w[iwal];
            iwal = (iwal + l) % ip;
            let xw2 = w[iwal];
            cx[l].re += ch[j].re * xw.re + ch[j + 1].re * xw2.re;
            cx[l].im += ch[j].im * xw.re + ch[j + 1].im * xw2.re;
            cx[lc].re -= ch[jc].im * xw.im + ch[jc - 1].im * xw2.im;
            cx[lc].im += ch[jc].re * xw.im + ch[jc - 1].re * xw2.im;
            j += 2;
            jc -= 2;
        }
        while j < ipph {
            iwal = (iwal + l) % ip;
            let xw = w[iwal];
            cx[l].re += ch[j].re * xw.re;
            cx[l].im += ch[j].im * xw.re;
            cx[lc].re -= ch[jc].im * xw.im;
            cx[lc].im += ch[jc].re * xw.im;
            j += 1;
            jc -= 1;
        }
    }
    y[0] = cx[0];
    for j in 1..ipph {
        let (t1, t2) = (cx[j], cx[ip - j]);
        y[j] = t1 + t2;
        y[ip - j] = t1 - t2;
    }
}

/// Transforms every line of `data` (row-major `shape`) along `axis` in
/// place, then multiplies by `fct` unless it is 1.
fn c2c_axis(data: &mut [C64], shape: &[usize], axis: usize, fwd: bool, fct: f32) {
    let n = shape[axis];
    if n == 0 || data.is_empty() {
        return;
    }
    let inner: usize = shape[axis + 1..].iter().product();
    let outer = data.len() / (n * inner);
    let plan = Plan::new(n);
    let mut line = vec![C64::default(); n];
    for o in 0..outer {
        for i in 0..inner {
            let base = o * n * inner + i;
            for (t, v) in line.iter_mut().enumerate() {
                *v = data[base + t * inner];
            }
            plan.exec(&mut line, fwd);
            for (t, v) in line.iter().enumerate() {
                data[base + t * inner] = if fct == 1.0 {
                    *v
                } else {
                    C64::new(v.re * fct, v.im * fct)
                };
            }
        }
    }
}

/// The float32 factor of an inverse transform: `1/N` in double precision,
/// rounded once, as XLA passes it.
fn inverse_scale(lengths: &[usize]) -> f32 {
    let n: f64 = lengths.iter().map(|&l| l as f64).product();
    (1.0 / n) as f32
}

/// Refuses lengths whose plan DUCC runs differently (Bluestein's algorithm
/// for large prime factors, the two-dimensional split of very long lines),
/// where the numbers would not be XLA's.
fn check_lengths(lengths: &[usize]) -> Result<()> {
    for &n in lengths {
        if n >= 1 << 17 || factorize(n).iter().any(|&f| f >= 110) {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: an FFT of length {n} (a prime factor of 110 or more, or 131072 points or more)"
            );
        }
    }
    Ok(())
}

impl Array {
    /// `lax.fft` over the trailing `lengths.len()` axes. The operand is
    /// complex64 except for `Rfft` (float32); the caller has checked the
    /// shapes.
    pub fn fft(&self, typ: FftType, lengths: &[usize]) -> Result<Array> {
        check_lengths(lengths)?;
        let nd = self.ndim();
        let first = nd - lengths.len();
        let mut shape = self.shape().to_vec();
        match typ {
            FftType::Fft | FftType::Ifft => {
                let fwd = typ == FftType::Fft;
                let mut data = self.c64_data()?.to_vec();
                // The axes run from the last one in, the scale with the
                // last to run (the order whose rounding XLA's results show).
                for ax in (first..nd).rev() {
                    let fct = if !fwd && ax == first {
                        inverse_scale(lengths)
                    } else {
                        1.0
                    };
                    c2c_axis(&mut data, &shape, ax, fwd, fct);
                }
                Array::from_buffer(&shape, Buffer::C64(data.into()))
            }
            FftType::Rfft => {
                let data: Vec<C64> = self.f32_data()?.iter().map(|&v| C64::real(v)).collect();
                let mut data = data;
                c2c_axis(&mut data, &shape, nd - 1, true, 1.0);
                let n = shape[nd - 1];
                let half = n / 2 + 1;
                let data = crop_last(&data, n, half);
                shape[nd - 1] = half;
                let mut data = data;
                for ax in (first..nd - 1).rev() {
                    c2c_axis(&mut data, &shape, ax, true, 1.0);
                }
                Array::from_buffer(&shape, Buffer::C64(data.into()))
            }
            FftType::Irfft => self.irfft(lengths),
        }
    }

    /// The inverse real transform: the leading axes complex-to-complex,
    /// then the last one from its Hermitian half spectrum.
    fn irfft(&self, lengths: &[usize]) -> Result<Array> {
        let nd = self.ndim();
        let first = nd - lengths.len();
        let mut shape = self.shape().to_vec();
        let mut data = self.c64_data()?.to_vec();
        for ax in (first..nd - 1).rev() {
            c2c_axis(&mut data, &shape, ax, false, 1.0);
        }
        let n = lengths[lengths.len() - 1];
        let m = shape[nd - 1];
        let mut full = hermitian_extend(&data, m, n);
        shape[nd - 1] = n;
        c2c_axis(&mut full, &shape, nd - 1, false, inverse_scale(lengths));
        let re: Vec<f32> = full.iter().map(|c| c.re).collect();
        Array::from_f32(&shape, re)
    }
}

/// The first `keep` of every line of `n`.
fn crop_last(data: &[C64], n: usize, keep: usize) -> Vec<C64> {
    if n == 0 {
        return vec![];
    }
    data.chunks(n)
        .flat_map(|line| line[..keep].iter().copied())
        .collect()
}

/// Lines of `m` half-spectrum values made into lines of `n` Hermitian
/// ones: `X[n-k] = conj(X[k])`, the imaginary parts of the zero (and, for
/// even `n`, the Nyquist) frequency dropped as DUCC ignores them, and
/// missing values zero.
fn hermitian_extend(data: &[C64], m: usize, n: usize) -> Vec<C64> {
    let lines = data.len().checked_div(m).unwrap_or(0);
    let mut out = vec![C64::default(); lines * n];
    for (line, dst) in out.chunks_mut(n.max(1)).enumerate().take(lines) {
        let src = &data[line * m..(line + 1) * m];
        let get = |k: usize| src.get(k).copied().unwrap_or_default();
        for (k, v) in dst.iter_mut().enumerate() {
            *v = if k <= n / 2 {
                get(k)
            } else {
                get(n - k).conj()
            };
        }
        if n > 0 {
            dst[0].im = 0.0;
        }
        if n % 2 == 0 && n > 0 {
            dst[n / 2].im = 0.0;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dft(x: &[C64], fwd: bool) -> Vec<(f64, f64)> {
        let n = x.len();
        (0..n)
            .map(|k| {
                let mut acc = (0.0, 0.0);
                for (t, v) in x.iter().enumerate() {
                    let (c, s) = cos_sin_2pi(k * t, n);
                    let s = if fwd { -s } else { s };
                    acc.0 += v.re as f64 * c - v.im as f64 * s;
                    acc.1 += v.re as f64 * s + v.im as f64 * c;
                }
                acc
            })
            .collect()
    }

    #[test]
    fn factors_in_ducc_order() {
        assert_eq!(factorize(16), vec![2, 8]);
        assert_eq!(factorize(24), vec![8, 3]);
        assert_eq!(factorize(12), vec![4, 3]);
        assert_eq!(factorize(6), vec![2, 3]);
        assert_eq!(factorize(2 * 64), vec![2, 8, 8]);
        assert_eq!(factorize(1), Vec::<usize>::new());
    }

    #[test]
    fn matches_the_definition() {
        for n in [
            1usize, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 16, 17, 22, 24, 30, 64, 97,
        ] {
            let x: Vec<C64> = (0..n)
                .map(|i| C64::new((i as f32 * 0.37).sin(), (i as f32 * 1.3).cos()))
                .collect();
            for fwd in [true, false] {
                let mut y = x.clone();
                Plan::new(n).exec(&mut y, fwd);
                for (a, b) in y.iter().zip(dft(&x, fwd)) {
                    assert!((a.re as f64 - b.0).abs() < 1e-4 * n as f64, "n={n}");
                    assert!((a.im as f64 - b.1).abs() < 1e-4 * n as f64, "n={n}");
                }
            }
        }
    }
}
