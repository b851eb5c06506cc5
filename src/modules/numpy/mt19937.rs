//! The Mersenne Twister behind NumPy's `RandomState`, and the legacy draws
//! made from it, stream for stream as NumPy makes them:
//! - seeding: an integer seed goes through Knuth's initialisation of the
//!   reference implementation (`init_genrand`); a sequence of integers
//!   through `init_by_array`;
//! - doubles take 27 and 26 bits of two words (`(a >> 5, b >> 6)`);
//! - normals use the polar Box-Muller method, keeping the second value of
//!   each pair for the next call;
//! - bounded integers use masked rejection (the smallest all-ones mask
//!   covering the range, 32-bit words for ranges that fit, 64-bit words
//!   otherwise), and shuffles draw their indices the same way.

const N: usize = 624;
const M: usize = 397;
const MATRIX_A: u32 = 0x9908_b0df;
const UPPER_MASK: u32 = 0x8000_0000;
const LOWER_MASK: u32 = 0x7fff_ffff;

/// The MT19937 bit generator.
#[derive(Clone)]
pub struct Mt19937 {
    key: [u32; N],
    pos: usize,
}

impl Mt19937 {
    /// Seeded by one 32-bit integer (what `RandomState(seed)` does for an
    /// integer seed).
    pub fn new(seed: u32) -> Mt19937 {
        let mut key = [0u32; N];
        let mut s = seed;
        for (pos, k) in key.iter_mut().enumerate() {
            *k = s;
            s = 1_812_433_253u32
                .wrapping_mul(s ^ (s >> 30))
                .wrapping_add(pos as u32 + 1);
        }
        Mt19937 { key, pos: N }
    }

    /// Seeded by a sequence of 32-bit integers (`init_by_array`, what
    /// `RandomState([a, b, ...])` does).
    pub fn from_array(init: &[u32]) -> Mt19937 {
        let mut g = Mt19937::new(19_650_218);
        let mt = &mut g.key;
        let (mut i, mut j) = (1usize, 0usize);
        let len = init.len().max(1);
        for _ in 0..N.max(len) {
            let prev = mt[i - 1] ^ (mt[i - 1] >> 30);
            mt[i] = (mt[i] ^ prev.wrapping_mul(1_664_525))
                .wrapping_add(init.get(j).copied().unwrap_or(0))
                .wrapping_add(j as u32);
            i += 1;
            j += 1;
            if i >= N {
                mt[0] = mt[N - 1];
                i = 1;
            }
            if j >= len {
                j = 0;
            }
        }
        for _ in 0..N - 1 {
            let prev = mt[i - 1] ^ (mt[i - 1] >> 30);
            mt[i] = (mt[i] ^ prev.wrapping_mul(1_566_083_941)).wrapping_sub(i as u32);
            i += 1;
            if i >= N {
                mt[0] = mt[N - 1];
                i = 1;
            }
        }
        mt[0] = 0x8000_0000;
        g.pos = N;
        g
    }

    /// The key and the position in it (what `get_state` reports).
    pub fn state(&self) -> (&[u32], usize) {
        (&self.key, self.pos)
    }

    /// A generator at a saved key and position (`set_state`); None when the
    /// key is not 624 words or the position is past its end.
    pub fn from_state(key: &[u32], pos: usize) -> Option<Mt19937> {
        let key: [u32; N] = key.try_into().ok()?;
        (pos <= N).then_some(Mt19937 { key, pos })
    }

    fn twist(&mut self) {
        let mt = &mut self.key;
        for i in 0..N {
            let y = (mt[i] & UPPER_MASK) | (mt[(i + 1) % N] & LOWER_MASK);
            let mag = if y & 1 == 1 { MATRIX_A } else { 0 };
            mt[i] = mt[(i + M) % N] ^ (y >> 1) ^ mag;
        }
        self.pos = 0;
    }

    /// The next tempered 32-bit word.
    pub fn next_u32(&mut self) -> u32 {
        if self.pos == N {
            self.twist();
        }
        let mut y = self.key[self.pos];
        self.pos += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }

    /// Two words, the first in the high half.
    pub fn next_u64(&mut self) -> u64 {
        let hi = self.next_u32() as u64;
        hi << 32 | self.next_u32() as u64
    }

    /// A double in [0, 1) with 53 random bits.
    pub fn next_f64(&mut self) -> f64 {
        let a = (self.next_u32() >> 5) as f64;
        let b = (self.next_u32() >> 6) as f64;
        (a * 67_108_864.0 + b) / 9_007_199_254_740_992.0
    }
}

/// The smallest all-ones mask covering `max`.
fn mask_for(max: u64) -> u64 {
    if max == 0 {
        0
    } else {
        u64::MAX >> max.leading_zeros()
    }
}

/// A `RandomState`'s generator: the bit generator and the cached normal.
#[derive(Clone)]
pub struct Legacy {
    mt: Mt19937,
    gauss: Option<f64>,
}

impl Legacy {
    /// A generator seeded by one integer.
    pub fn new(seed: u32) -> Legacy {
        Legacy::from_mt(Mt19937::new(seed))
    }

    /// A generator over a seeded bit generator, with no cached normal.
    pub fn from_mt(mt: Mt19937) -> Legacy {
        Legacy { mt, gauss: None }
    }

    /// The bit generator and the cached normal.
    pub fn parts(&self) -> (&Mt19937, Option<f64>) {
        (&self.mt, self.gauss)
    }

    /// A generator from a bit generator and a cached normal.
    pub fn from_parts(mt: Mt19937, gauss: Option<f64>) -> Legacy {
        Legacy { mt, gauss }
    }

    /// A uniform double in [0, 1) (`random_sample`).
    pub fn double(&mut self) -> f64 {
        self.mt.next_f64()
    }

    /// `tomaxint()`: a non-negative 63-bit integer.
    pub fn positive_int(&mut self) -> i64 {
        (self.mt.next_u64() >> 1) as i64
    }

    /// A standard normal (`legacy_gauss`).
    pub fn gauss(&mut self) -> f64 {
        if let Some(g) = self.gauss.take() {
            return g;
        }
        loop {
            let x1 = 2.0 * self.double() - 1.0;
            let x2 = 2.0 * self.double() - 1.0;
            let r2 = x1 * x1 + x2 * x2;
            if r2 < 1.0 && r2 != 0.0 {
                let f = (-2.0 * r2.ln() / r2).sqrt();
                self.gauss = Some(f * x1);
                return f * x2;
            }
        }
    }

    /// A standard exponential (`-log(1 - U)`).
    pub fn exponential(&mut self) -> f64 {
        -(1.0 - self.double()).ln()
    }

    /// A uniform integer in `[0, rng]` by masked rejection, as `randint`
    /// draws it (and as shuffles draw their indices, `random_interval`).
    pub fn bounded(&mut self, rng: u64) -> u64 {
        if rng == 0 {
            return 0;
        }
        if rng <= u32::MAX as u64 {
            if rng == u32::MAX as u64 {
                return self.mt.next_u32() as u64;
            }
            let mask = mask_for(rng) as u32;
            loop {
                let v = (self.mt.next_u32() & mask) as u64;
                if v <= rng {
                    return v;
                }
            }
        }
        if rng == u64::MAX {
            return self.mt.next_u64();
        }
        let mask = mask_for(rng);
        loop {
            let v = self.mt.next_u64() & mask;
            if v <= rng {
                return v;
            }
        }
    }

    /// Fisher-Yates from the back, the legacy way: for `i` from `n - 1`
    /// down to 1, swap `i` with `interval(i)`.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.bounded(i as u64) as usize;
            items.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The expected words were printed by NumPy 2.4.6; tests/jax/legacy_words.py
    // prints them again.

    #[test]
    fn integer_seed_words() {
        // np.random.RandomState(0).randint(0, 2**32, size=4, dtype=np.uint64)
        let mut g = Mt19937::new(0);
        let words: Vec<u32> = (0..4).map(|_| g.next_u32()).collect();
        assert_eq!(words, [0x8c7f_0aac, 0x97c4_aa2f, 0xb716_a675, 0xd821_ccc0]);
        // np.random.RandomState(0).tomaxint()
        assert_eq!(Legacy::new(0).positive_int(), 5_061_911_111_874_532_631);
    }

    #[test]
    fn doubles_and_normals() {
        // np.random.RandomState(0).random_sample() and .randn(3)
        assert_eq!(Legacy::new(0).double(), 0.548_813_503_927_324_8);
        let mut g = Legacy::new(0);
        let n: Vec<f64> = (0..3).map(|_| g.gauss()).collect();
        assert_eq!(
            n,
            [
                1.764_052_345_967_664,
                0.400_157_208_367_223_3,
                0.978_737_984_105_739_2
            ]
        );
    }

    #[test]
    fn array_seeds_and_the_top_seed() {
        // RandomState([1, 2, 3]) and RandomState(2**32 - 1), words as above.
        let mut g = Mt19937::from_array(&[1, 2, 3]);
        let words: Vec<u32> = (0..3).map(|_| g.next_u32()).collect();
        assert_eq!(words, [0x9c1f_de5e, 0x5c8c_3099, 0xe2fe_93c3]);
        let mut g = Mt19937::new(u32::MAX);
        assert_eq!([g.next_u32(), g.next_u32()], [0x18fe_69a3, 0x1c92_4122]);
    }

    #[test]
    fn wide_bounded_integers_and_permutations() {
        // RandomState(7).randint(-5, 2**40, size=3): 64-bit masked draws.
        let mut g = Legacy::new(7);
        let rng = (1u64 << 40) - 1 + 5;
        let got: Vec<i64> = (0..3).map(|_| g.bounded(rng) as i64 - 5).collect();
        assert_eq!(got, [752_595_690_687, 108_744_157_681, 291_964_244_174]);
        // RandomState(3).permutation(10)
        let mut g = Legacy::new(3);
        let mut p: Vec<i64> = (0..10).collect();
        g.shuffle(&mut p);
        assert_eq!(p, [5, 4, 1, 2, 9, 6, 7, 0, 3, 8]);
    }
}
