//! The Threefry-2x32 block cipher (Salmon et al., "Parallel random numbers:
//! as easy as 1, 2, 3", SC'11) with 20 rounds, as JAX's default PRNG uses it.

/// Rotation distances of the rounds, in two alternating groups of four.
const ROTATIONS: [[u32; 4]; 2] = [[13, 15, 26, 6], [17, 29, 16, 24]];

/// The key-schedule parity constant of Threefish (Skein 1.3).
const KS_PARITY: u32 = 0x1BD1_1BDA;

/// Encrypts one counter block `count` under `key`: 20 rounds of
/// add-rotate-xor with a key injection after every four rounds.
///
/// This is the `threefry2x32` primitive applied to a single pair of words.
pub fn threefry2x32(key: [u32; 2], count: [u32; 2]) -> [u32; 2] {
    let ks = [key[0], key[1], key[0] ^ key[1] ^ KS_PARITY];
    let mut x = [count[0].wrapping_add(ks[0]), count[1].wrapping_add(ks[1])];
    for block in 0..5usize {
        for &r in &ROTATIONS[block % 2] {
            x[0] = x[0].wrapping_add(x[1]);
            x[1] = x[1].rotate_left(r) ^ x[0];
        }
        // Injection `s` (1-based) adds key words s and s+1 (mod 3) plus `s`
        // itself, which keeps every round group distinct.
        let s = block + 1;
        x[0] = x[0].wrapping_add(ks[s % 3]);
        x[1] = x[1].wrapping_add(ks[(s + 1) % 3]).wrapping_add(s as u32);
    }
    x
}

/// JAX's array-level hash `threefry_2x32(keypair, count)`: the flat `counts`
/// are cut into a first and a second half (a zero is appended when the length
/// is odd), element `i` of the first half is paired with element `i` of the
/// second, and the two output halves are concatenated back (dropping the
/// padding), so the result has the length of `counts`.
pub fn threefry_2x32(key: [u32; 2], counts: &[u32]) -> Vec<u32> {
    let half = counts.len().div_ceil(2);
    let mut hi = vec![0u32; half];
    let mut lo = vec![0u32; half];
    for i in 0..half {
        let second = counts.get(half + i).copied().unwrap_or(0);
        let [a, b] = threefry2x32(key, [counts[i], second]);
        hi[i] = a;
        lo[i] = b;
    }
    hi.extend_from_slice(&lo);
    hi.truncate(counts.len());
    hi
}
