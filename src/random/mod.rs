//! `jax.random` and Flax's parameter initializers on concrete arrays,
//! reproducing JAX's numbers bit for bit.
//!
//! Keys are raw Threefry-2x32 key data (what `jax.random.key_data` returns)
//! and follow JAX's default configuration: `jax_threefry_partitionable=True`,
//! under which element `i` of a shaped draw is the Threefry hash of the 64-bit
//! counter `i` (split into high and low words), independently of the shape's
//! size or parity.
//!
//! - [`threefry`]: the block cipher;
//! - [`special`]: XLA's float32 `erf`, `erf_inv` and `log1p`;
//! - [`distributions`]: `uniform`, `normal`, `truncated_normal`, `bernoulli`,
//!   `randint`, `permutation`, `choice`;
//! - [`initializers`]: `jax.nn.initializers` / `flax.nnx.initializers`;
//! - [`traced`]: the same draws on key data held as values, which may be
//!   traced (keys passed to `jax.jit`, carried by `scan`, mapped by `vmap`)
//!   or part of a staged program;
//! - [`traced_init`]: the initializers on such key data;
//! - [`flax`]: which key each parameter of a linen or nnx module receives.

pub mod distributions;
pub mod flax;
pub mod initializers;
mod sha1;
pub mod special;
pub mod threefry;
pub mod traced;
pub mod traced_init;

use crate::bail;
use crate::error::Result;

pub use threefry::{threefry2x32, threefry_2x32};

/// A Threefry-2x32 PRNG key: the two `uint32` words of
/// `jax.random.key_data(key)` (equivalently, a legacy `jax.random.PRNGKey`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key(pub [u32; 2]);

impl Key {
    /// `jax.random.PRNGKey(seed)` / `jax.random.key(seed)` with 64-bit types
    /// disabled (JAX's default): the seed is first converted to int32, which
    /// keeps its low 32 bits, and the key is `[seed >> 32, seed & 0xFFFFFFFF]`
    /// of that int32 — so the high word is always 0 and, for example,
    /// `-1` gives `[0, 0xFFFFFFFF]` and `2**40` gives `[0, 0]`.
    pub fn from_seed(seed: i64) -> Key {
        Key([0, seed as u32])
    }

    /// A key from raw key data (`jax.random.wrap_key_data`).
    pub fn from_data(data: [u32; 2]) -> Key {
        Key(data)
    }

    /// The raw key data (`jax.random.key_data`).
    pub fn data(&self) -> [u32; 2] {
        self.0
    }

    /// `jax.random.split(key, num)`; see [`split`].
    pub fn split(&self, num: usize) -> Result<Vec<Key>> {
        split(*self, num)
    }

    /// `jax.random.fold_in(key, data)`; see [`fold_in`].
    pub fn fold_in(&self, data: u32) -> Key {
        fold_in(*self, data)
    }
}

/// Number of elements of `shape`, or a ValueError when the product does not
/// fit in memory at all (JAX refuses sizes beyond 2**64 too).
pub(crate) fn checked_numel(shape: &[usize]) -> Result<usize> {
    let mut n: usize = 1;
    for &d in shape {
        n = match n.checked_mul(d) {
            Some(v) => v,
            None => bail!(
                ValueError,
                "random array of shape {:?} has too many elements",
                shape
            ),
        };
    }
    // Four bytes per element must stay addressable.
    if n > (isize::MAX as usize) / 4 {
        bail!(
            ValueError,
            "random array of shape {:?} has too many elements",
            shape
        );
    }
    Ok(n)
}

/// The Threefry hash of the 64-bit counter `i` under `key`, as the pair of
/// output words; every shaped draw, `split` and `fold_in` reduce to this.
fn hash_counter(key: Key, i: u64) -> [u32; 2] {
    threefry2x32(key.0, [(i >> 32) as u32, i as u32])
}

/// `jax.random.split(key, num)`: key `i` is the Threefry hash of counter `i`.
///
/// Fails only when `num` keys cannot be allocated.
pub fn split(key: Key, num: usize) -> Result<Vec<Key>> {
    checked_numel(&[num, 2])?;
    Ok((0..num as u64).map(|i| Key(hash_counter(key, i))).collect())
}

/// `jax.random.fold_in(key, data)`: the hash of the seed-style key
/// `[0, data]`, which coincides with key number `data` of a large `split`.
pub fn fold_in(key: Key, data: u32) -> Key {
    Key(hash_counter(key, data as u64))
}

/// `jax.random.bits(key, shape)` for 32-bit words: element `i` (row-major) is
/// the xor of the two output words of the hash of counter `i`.
pub fn random_bits(key: Key, shape: &[usize]) -> Result<Vec<u32>> {
    let n = checked_numel(shape)?;
    Ok((0..n as u64)
        .map(|i| {
            let [a, b] = hash_counter(key, i);
            a ^ b
        })
        .collect())
}
