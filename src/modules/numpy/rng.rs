//! `numpy.random.default_rng(seed)`: NumPy's `Generator` over `PCG64`,
//! seeded through `SeedSequence`, so that programs drawing test data from
//! it see the same numbers as under NumPy.
//!
//! `integers` gives NumPy's exact draws. `normal` uses the same ziggurat
//! layout as NumPy; its tables are computed here in double precision, so a
//! draw can differ from NumPy's in the last bit or two of the float64 (the
//! values become float32 arrays here, so that does not show).

use std::cell::RefCell;
use std::rc::Rc;

use crate::bail;
use crate::error::Result;

use super::super::Builder;
use crate::python::builtins::to_int;
use crate::python::ops::iterate;
use crate::python::value::{Args, Obj};

const MASK32: u64 = 0xffff_ffff;

/// `SeedSequence(seed).generate_state(n, uint64)`.
fn seed_sequence(seed: u128, n64: usize) -> Vec<u64> {
    const INIT_A: u32 = 0x43b0_d7e5;
    const MULT_A: u32 = 0x931e_8875;
    const INIT_B: u32 = 0x8b51_f9dd;
    const MULT_B: u32 = 0x58f3_8ded;
    const MIX_L: u32 = 0xca01_f9dd;
    const MIX_R: u32 = 0x4973_f715;
    let mut entropy = vec![];
    let mut s = seed;
    loop {
        entropy.push((s & MASK32 as u128) as u32);
        s >>= 32;
        if s == 0 {
            break;
        }
    }
    let mut hash = INIT_A;
    let mut hashmix = |v: u32| {
        let mut v = v ^ hash;
        hash = hash.wrapping_mul(MULT_A);
        v = v.wrapping_mul(hash);
        v ^ (v >> 16)
    };
    let mix = |x: u32, y: u32| {
        let r = MIX_L.wrapping_mul(x).wrapping_sub(MIX_R.wrapping_mul(y));
        r ^ (r >> 16)
    };
    let mut pool = [0u32; 4];
    for (i, p) in pool.iter_mut().enumerate() {
        *p = hashmix(entropy.get(i).copied().unwrap_or(0));
    }
    for src in 0..4 {
        for dst in 0..4 {
            if src != dst {
                let h = hashmix(pool[src]);
                pool[dst] = mix(pool[dst], h);
            }
        }
    }
    for &e in entropy.iter().skip(4) {
        for p in pool.iter_mut() {
            let h = hashmix(e);
            *p = mix(*p, h);
        }
    }
    let mut hash = INIT_B;
    let words: Vec<u32> = (0..2 * n64)
        .map(|i| {
            let mut v = pool[i % 4] ^ hash;
            hash = hash.wrapping_mul(MULT_B);
            v = v.wrapping_mul(hash);
            v ^ (v >> 16)
        })
        .collect();
    words
        .chunks(2)
        .map(|w| w[0] as u64 | (w[1] as u64) << 32)
        .collect()
}

/// The PCG64 bit generator (128-bit LCG, XSL-RR output), with NumPy's
/// buffering of 32-bit draws.
struct Pcg64 {
    state: u128,
    inc: u128,
    half: Option<u32>,
}

const PCG_MULT: u128 = 0x2360_ed05_1fc6_5da4_4385_df64_9fcc_f645;

impl Pcg64 {
    fn new(seed: u128) -> Pcg64 {
        let v = seed_sequence(seed, 4);
        let initstate = (v[0] as u128) << 64 | v[1] as u128;
        let initseq = (v[2] as u128) << 64 | v[3] as u128;
        let mut g = Pcg64 {
            state: 0,
            inc: initseq << 1 | 1,
            half: None,
        };
        g.step();
        g.state = g.state.wrapping_add(initstate);
        g.step();
        g
    }

    fn step(&mut self) {
        self.state = self.state.wrapping_mul(PCG_MULT).wrapping_add(self.inc);
    }

    fn next_u64(&mut self) -> u64 {
        self.step();
        let s = self.state;
        let x = ((s >> 64) as u64) ^ (s as u64);
        x.rotate_right((s >> 122) as u32)
    }

    fn next_u32(&mut self) -> u32 {
        if let Some(h) = self.half.take() {
            return h;
        }
        let n = self.next_u64();
        self.half = Some((n >> 32) as u32);
        (n & MASK32) as u32
    }

    fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / 9007199254740992.0)
    }

    /// A draw from `[0, range]` (Lemire's method on 32-bit words).
    fn bounded_u32(&mut self, range: u32) -> u32 {
        if range == u32::MAX {
            return self.next_u32();
        }
        let excl = range as u64 + 1;
        let mut m = self.next_u32() as u64 * excl;
        let mut left = m & MASK32;
        if left < excl {
            let threshold = (MASK32 - range as u64) % excl;
            while left < threshold {
                m = self.next_u32() as u64 * excl;
                left = m & MASK32;
            }
        }
        (m >> 32) as u32
    }

    /// A draw from `[0, range]` for ranges wider than 32 bits.
    fn bounded_u64(&mut self, range: u64) -> u64 {
        if range == u64::MAX {
            return self.next_u64();
        }
        let excl = range as u128 + 1;
        let mut m = self.next_u64() as u128 * excl;
        let mut left = m as u64;
        if (left as u128) < excl {
            let threshold = (u64::MAX - range) % (excl as u64);
            while left < threshold {
                m = self.next_u64() as u128 * excl;
                left = m as u64;
            }
        }
        (m >> 64) as u64
    }

    fn standard_normal(&mut self, t: &Ziggurat) -> f64 {
        loop {
            let r = self.next_u64();
            let idx = (r & 0xff) as usize;
            let r = r >> 8;
            let negative = r & 1 == 1;
            let rabs = (r >> 1) & 0x000f_ffff_ffff_ffff;
            let mut x = rabs as f64 * t.w[idx];
            if negative {
                x = -x;
            }
            if rabs < t.k[idx] {
                return x;
            }
            if idx == 0 {
                loop {
                    let xx = -(1.0 / ZIG_R) * (-self.next_f64()).ln_1p();
                    let yy = -(-self.next_f64()).ln_1p();
                    if yy + yy > xx * xx {
                        return if (rabs >> 8) & 1 == 1 {
                            -(ZIG_R + xx)
                        } else {
                            ZIG_R + xx
                        };
                    }
                }
            } else if (t.f[idx - 1] - t.f[idx]) * self.next_f64() + t.f[idx] < (-0.5 * x * x).exp()
            {
                return x;
            }
        }
    }
}

/// Where the ziggurat's tail starts.
const ZIG_R: f64 = 3.654_152_885_361_009;
/// The area of each of the 256 layers: `r f(r)` plus the tail beyond `r`.
const ZIG_V: f64 = 0.004928673233974658;

struct Ziggurat {
    k: [u64; 256],
    w: [f64; 256],
    f: [f64; 256],
}

impl Ziggurat {
    fn new() -> Ziggurat {
        let m = 2f64.powi(52);
        let mut t = Ziggurat {
            k: [0; 256],
            w: [0.0; 256],
            f: [0.0; 256],
        };
        let fr = (-0.5 * ZIG_R * ZIG_R).exp();
        let q = ZIG_V / fr;
        t.k[0] = (ZIG_R / q * m) as u64;
        t.w[0] = q / m;
        t.w[255] = ZIG_R / m;
        t.f[0] = 1.0;
        t.f[255] = fr;
        let (mut dn, mut tn) = (ZIG_R, ZIG_R);
        for i in (1..255).rev() {
            dn = (-2.0 * (ZIG_V / dn + (-0.5 * dn * dn).exp()).ln()).sqrt();
            t.k[i + 1] = (dn / tn * m) as u64;
            tn = dn;
            t.f[i] = (-0.5 * dn * dn).exp();
            t.w[i] = dn / m;
        }
        t
    }
}

/// `size=` as a shape; None for a single draw.
pub(super) fn size_arg(a: &Args, index: usize) -> Result<Option<Vec<usize>>> {
    let Some(o) = a.opt(Some(index), "size") else {
        return Ok(None);
    };
    let dims: Vec<i64> = match &o {
        Obj::Tuple(_) | Obj::List(_) => iterate(&o)?.iter().map(to_int).collect::<Result<_>>()?,
        other => vec![to_int(other)?],
    };
    if dims.iter().any(|&d| d < 0) {
        bail!(ValueError, "negative dimensions are not allowed");
    }
    let shape: Vec<usize> = dims.iter().map(|&d| d as usize).collect();
    crate::python::array::check_shape(&shape)?;
    Ok(Some(shape))
}

fn float_arg(a: &Args, index: usize, name: &str, default: f64) -> Result<f64> {
    match a.opt(Some(index), name) {
        None => Ok(default),
        Some(o) => o.as_number().ok_or_else(|| {
            crate::err!(TypeError, "{name} must be a number, not {}", o.type_name())
        }),
    }
}

fn generator(seed: u128) -> Obj {
    let g = Rc::new(RefCell::new(Pcg64::new(seed)));
    let mut b = Builder::new("numpy.random.Generator");
    let gi = g.clone();
    b.func("integers", move |_, a| {
        let first = to_int(&a.req(Some(0), "low", "integers")?)?;
        let (low, high) = match a.opt(Some(1), "high") {
            Some(h) => (first, to_int(&h)?),
            None => (0, first),
        };
        let endpoint = match a.get(Some(4), "endpoint") {
            Some(o) => crate::python::ops::truthy(&o, "endpoint")?,
            None => false,
        };
        let high = if endpoint { high } else { high - 1 };
        if high < low {
            bail!(ValueError, "low >= high");
        }
        let range = (high as i128 - low as i128) as u64;
        let size = size_arg(&a, 2)?;
        let mut g = gi.borrow_mut();
        let mut draw = || {
            let d = if range <= MASK32 {
                g.bounded_u32(range as u32) as i64
            } else {
                g.bounded_u64(range) as i64
            };
            low.wrapping_add(d)
        };
        Ok(match size {
            None => Obj::Int(draw()),
            Some(shape) => {
                let n: usize = shape.iter().product();
                crate::python::array::check_size(n)?;
                let data: Vec<i64> = (0..n).map(|_| draw()).collect();
                super::host::int_array(&shape, &data)?
            }
        })
    });
    let gn = g.clone();
    let table = Rc::new(Ziggurat::new());
    let tn = table.clone();
    b.func("normal", move |_, a| {
        let loc = float_arg(&a, 0, "loc", 0.0)?;
        let scale = float_arg(&a, 1, "scale", 1.0)?;
        if scale < 0.0 {
            bail!(ValueError, "scale < 0");
        }
        let size = size_arg(&a, 2)?;
        let mut g = gn.borrow_mut();
        let mut draw = || loc + scale * g.standard_normal(&tn);
        normal_result(size, &mut draw)
    });
    let gs = g.clone();
    b.func("standard_normal", move |_, a| {
        let size = size_arg(&a, 0)?;
        let mut g = gs.borrow_mut();
        let mut draw = || g.standard_normal(&table);
        normal_result(size, &mut draw)
    });
    let gu = g.clone();
    // NumPy's `uniform`: `low + (high - low) * random()`.
    b.func("uniform", move |_, a| {
        let low = float_arg(&a, 0, "low", 0.0)?;
        let high = float_arg(&a, 1, "high", 1.0)?;
        let size = size_arg(&a, 2)?;
        let mut g = gu.borrow_mut();
        let mut draw = || low + (high - low) * g.next_f64();
        normal_result(size, &mut draw)
    });
    b.func("random", move |_, a| {
        let size = size_arg(&a, 0)?;
        let mut g = g.borrow_mut();
        let mut draw = || g.next_f64();
        normal_result(size, &mut draw)
    });
    b.build()
}

fn normal_result(size: Option<Vec<usize>>, draw: &mut dyn FnMut() -> f64) -> Result<Obj> {
    Ok(match size {
        None => Obj::Float(draw()),
        Some(shape) => {
            let n: usize = shape.iter().product();
            crate::python::array::check_size(n)?;
            let data: Vec<f64> = (0..n).map(|_| draw()).collect();
            super::host::float_array(&shape, &data)?
        }
    })
}

/// The `numpy.random` module.
pub fn module() -> Obj {
    let mut b = Builder::new("numpy.random");
    b.func("default_rng", |_, a| {
        let seed = match a.opt(Some(0), "seed") {
            Some(o) => to_int(&o)?,
            None => bail!(
                NotImplementedError,
                "not supported by shardlab yet: numpy.random.default_rng() without a seed"
            ),
        };
        if seed < 0 {
            bail!(ValueError, "expected non-negative integer");
        }
        Ok(generator(seed as u128))
    });
    super::legacy::install(&mut b);
    b.build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pcg64_matches_numpy() {
        // np.random.PCG64(0).random_raw(2) and default_rng(12).integers(-9, 10, size=6).
        let mut g = Pcg64::new(0);
        assert_eq!(g.next_u64(), 0xa30f_ebcf_d9c2_825f);
        assert_eq!(g.next_u64(), 0x4510_bdf8_82d9_d721);
        let mut g = Pcg64::new(12);
        let got: Vec<i64> = (0..6).map(|_| g.bounded_u32(18) as i64 - 9).collect();
        assert_eq!(got, [2, -5, 9, 8, -8, -6]);
    }

    #[test]
    fn normal_matches_numpy() {
        // np.random.default_rng(2).normal(size=4)
        let expected = [
            0.18905338179353307,
            -0.5227484414807474,
            -0.41306354339189344,
            -2.4414673826398556,
        ];
        let t = Ziggurat::new();
        let mut g = Pcg64::new(2);
        for e in expected {
            let x = g.standard_normal(&t);
            assert!((x - e).abs() <= 1e-14 * e.abs(), "{x} vs {e}");
        }
    }
}
