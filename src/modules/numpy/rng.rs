//! `numpy.random.default_rng(seed)`: NumPy's `Generator` over `PCG64`,
//! seeded through `SeedSequence`, so that programs drawing test data from
//! it see the same numbers as under NumPy.
//!
//! `integers` gives NumPy's exact draws, and so do the normal draws: the
//! float32 ziggurat tables computed here agree with NumPy's, and the
//! float64 ones are NumPy's own (`ziggurat_f64.rs`), which double-precision
//! arithmetic does not rebuild to the bit.

use std::cell::RefCell;
use std::rc::Rc;

use crate::bail;
use crate::error::Result;

use super::super::Builder;
use super::host::Kind;
use super::rng_args::{self, check_keywords};
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

    /// A float32 draw: the top 24 bits of a (buffered) 32-bit word.
    fn next_f32(&mut self) -> f32 {
        (self.next_u32() >> 8) as f32 * (1.0 / 16_777_216.0)
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

impl Pcg64 {
    /// NumPy's float32 normal draw: the same ziggurat on one 32-bit word
    /// (8 bits of layer, a sign bit, 23 bits of position), with float32
    /// tables; the wedge test compares against a double `exp`, as NumPy's
    /// C does.
    fn standard_normal_f32(&mut self, t: &ZigguratF32) -> f32 {
        loop {
            let r = self.next_u32();
            let idx = (r & 0xff) as usize;
            let negative = (r >> 8) & 1 == 1;
            let rabs = (r >> 9) & 0x007f_ffff;
            let mut x = rabs as f32 * t.w[idx];
            if negative {
                x = -x;
            }
            if rabs < t.k[idx] {
                return x;
            }
            if idx == 0 {
                let r = ZIG_R as f32;
                loop {
                    let xx = -(1.0 / r) * (-self.next_f32()).ln_1p();
                    let yy = -(-self.next_f32()).ln_1p();
                    if yy + yy > xx * xx {
                        return if (rabs >> 8) & 1 == 1 {
                            -(r + xx)
                        } else {
                            r + xx
                        };
                    }
                }
            }
            let u = self.next_f32();
            if (((t.f[idx - 1] - t.f[idx]) * u + t.f[idx]) as f64)
                < (-0.5 * x as f64 * x as f64).exp()
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

/// The ziggurat for float32 draws: positions of 23 bits.
struct ZigguratF32 {
    k: [u32; 256],
    w: [f32; 256],
    f: [f32; 256],
}

impl ZigguratF32 {
    fn new() -> ZigguratF32 {
        // NumPy rounds the float32 layer bounds to the nearest integer.
        let t = Ziggurat::with_bits(23, f64::round);
        ZigguratF32 {
            k: t.k.map(|k| k as u32),
            w: t.w.map(|w| w as f32),
            f: t.f.map(|f| f as f32),
        }
    }
}

impl Ziggurat {
    fn new() -> Ziggurat {
        use super::ziggurat_f64::{FI, KI, WI};
        Ziggurat {
            k: KI,
            w: WI.map(f64::from_bits),
            f: FI.map(f64::from_bits),
        }
    }

    /// The layers for positions of `bits` bits, each layer's bound made
    /// an integer by `whole`.
    fn with_bits(bits: i32, whole: fn(f64) -> f64) -> Ziggurat {
        let m = 2f64.powi(bits);
        let mut t = Ziggurat {
            k: [0; 256],
            w: [0.0; 256],
            f: [0.0; 256],
        };
        let fr = (-0.5 * ZIG_R * ZIG_R).exp();
        let q = ZIG_V / fr;
        t.k[0] = whole(ZIG_R / q * m) as u64;
        t.w[0] = q / m;
        t.w[255] = ZIG_R / m;
        t.f[0] = 1.0;
        t.f[255] = fr;
        let (mut dn, mut tn) = (ZIG_R, ZIG_R);
        for i in (1..255).rev() {
            dn = (-2.0 * (ZIG_V / dn + (-0.5 * dn * dn).exp()).ln()).sqrt();
            t.k[i + 1] = whole(dn / tn * m) as u64;
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

/// A float parameter of `normal` or `uniform`: a number (NumPy's
/// broadcasting of array parameters is not modelled).
fn float_arg(a: &Args, index: usize, name: &str, method: &str, default: f64) -> Result<f64> {
    match a.opt(Some(index), name) {
        None => Ok(default),
        Some(o) => match o.as_number() {
            Some(x) => Ok(x),
            None => bail!(
                NotImplementedError,
                "not supported by shardlab yet: numpy.random.Generator.{method} with {name} of type {}",
                o.type_name()
            ),
        },
    }
}

/// An integer bound of `integers`: a Python or NumPy integer whose draws
/// the host arrays (which hold doubles) keep exactly.
fn int_bound(o: &Obj) -> Result<i64> {
    let x = match o {
        Obj::Int(i) => *i,
        Obj::Bool(b) => *b as i64,
        _ => match o.lib_scalar() {
            Some(Obj::Int(i)) => i,
            _ => bail!(
                NotImplementedError,
                "not supported by shardlab yet: numpy.random.Generator.integers with a bound of type {}",
                o.type_name()
            ),
        },
    };
    if x.unsigned_abs() > 1 << 53 {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: numpy.random.Generator.integers with a bound beyond 2**53"
        );
    }
    Ok(x)
}

/// `integers(low, high=None, size=None, dtype=np.int64, endpoint=False)`.
fn integers(g: &RefCell<Pcg64>, a: &Args) -> Result<Obj> {
    check_keywords(a, "integers", &["low", "high", "size", "dtype", "endpoint"])?;
    let first = int_bound(&a.req(Some(0), "low", "integers")?)?;
    let (low, high) = match a.opt(Some(1), "high") {
        Some(h) => (first, int_bound(&h)?),
        None => (0, first),
    };
    let kind = rng_args::int_kind(a, 3)?;
    let endpoint = match a.get(Some(4), "endpoint") {
        Some(o) => crate::python::ops::truthy(&o, "endpoint")?,
        None => false,
    };
    let high = if endpoint { high } else { high - 1 };
    if high < low {
        bail!(ValueError, "low >= high");
    }
    let (min, max) = match kind {
        Kind::Bool => (0, 1),
        Kind::UInt8 => (0, 255),
        Kind::Int32 => (i32::MIN as i64, i32::MAX as i64),
        Kind::UInt32 => (0, u32::MAX as i64),
        _ => (i64::MIN, i64::MAX),
    };
    if low < min {
        bail!(ValueError, "low is out of bounds for {}", kind.name());
    }
    if high > max {
        bail!(ValueError, "high is out of bounds for {}", kind.name());
    }
    let range = (high as i128 - low as i128) as u64;
    let size = size_arg(a, 2)?;
    let mut g = g.borrow_mut();
    let mut bits = rng_args::Bits::new();
    let mut draw = || {
        let d = match kind {
            _ if range == 0 => 0,
            Kind::Bool => bits.take(1, &mut || g.next_u32()) as u64,
            Kind::UInt8 => bounded_u8(&mut bits, &mut || g.next_u32(), range as u32) as u64,
            _ if range <= MASK32 => g.bounded_u32(range as u32) as u64,
            _ => g.bounded_u64(range),
        };
        low.wrapping_add(d as i64) as f64
    };
    rng_args::result(size, kind, &mut draw)
}

/// NumPy's Lemire draw from `[0, range]` on 8-bit pieces of shared words.
fn bounded_u8(bits: &mut rng_args::Bits, next: &mut dyn FnMut() -> u32, range: u32) -> u32 {
    if range == 0xff {
        return bits.take(8, next);
    }
    let excl = range + 1;
    let mut m = bits.take(8, next) * excl;
    if m & 0xff < excl {
        let threshold = (0xff - range) % excl;
        while m & 0xff < threshold {
            m = bits.take(8, next) * excl;
        }
    }
    m >> 8
}

fn generator(seed: u128) -> Obj {
    let g = Rc::new(RefCell::new(Pcg64::new(seed)));
    let mut b = Builder::new("numpy.random.Generator");
    let gi = g.clone();
    b.func("integers", move |_, a| integers(&gi, &a));
    let gn = g.clone();
    let table = Rc::new(Ziggurat::new());
    let tn = table.clone();
    b.func("normal", move |_, a| {
        check_keywords(&a, "normal", &["loc", "scale", "size"])?;
        let loc = float_arg(&a, 0, "loc", "normal", 0.0)?;
        let scale = float_arg(&a, 1, "scale", "normal", 1.0)?;
        if scale < 0.0 {
            bail!(ValueError, "scale < 0");
        }
        let size = size_arg(&a, 2)?;
        let mut g = gn.borrow_mut();
        let mut draw = || loc + scale * g.standard_normal(&tn);
        rng_args::result(size, Kind::Float64, &mut draw)
    });
    let gs = g.clone();
    let table32 = Rc::new(ZigguratF32::new());
    b.func("standard_normal", move |_, a| {
        check_keywords(&a, "standard_normal", &["size", "dtype", "out"])?;
        let size = size_arg(&a, 0)?;
        let kind = rng_args::float_kind(&a, 1, "standard_normal")?;
        let mut g = gs.borrow_mut();
        let mut draw = || match kind {
            Kind::Float32 => g.standard_normal_f32(&table32) as f64,
            _ => g.standard_normal(&table),
        };
        rng_args::result(size, kind, &mut draw)
    });
    let gu = g.clone();
    // NumPy's `uniform`: `low + (high - low) * random()`.
    b.func("uniform", move |_, a| {
        check_keywords(&a, "uniform", &["low", "high", "size"])?;
        let low = float_arg(&a, 0, "low", "uniform", 0.0)?;
        let high = float_arg(&a, 1, "high", "uniform", 1.0)?;
        let size = size_arg(&a, 2)?;
        let mut g = gu.borrow_mut();
        let mut draw = || low + (high - low) * g.next_f64();
        rng_args::result(size, Kind::Float64, &mut draw)
    });
    b.func("random", move |_, a| {
        check_keywords(&a, "random", &["size", "dtype", "out"])?;
        let size = size_arg(&a, 0)?;
        let kind = rng_args::float_kind(&a, 1, "random")?;
        let mut g = g.borrow_mut();
        let mut draw = || match kind {
            Kind::Float32 => g.next_f32() as f64,
            _ => g.next_f64(),
        };
        rng_args::result(size, kind, &mut draw)
    });
    b.build()
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
            assert_eq!(g.standard_normal(&t), e);
        }
    }
}
