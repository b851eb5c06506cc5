//! Which PRNG key each parameter of a Flax module receives, for the two Flax
//! APIs, and the parameters of their dense layers.
//!
//! - linen (`module.init(key, x)`): every scope keeps, per rng collection, a
//!   counter of `make_rng` calls; the `n`-th call in the scope at module path
//!   `p` returns `fold_in(root, h)` where `h` is the first four bytes (big
//!   endian) of the SHA-1 of the path names followed by `n`'s minimal big-endian
//!   bytes. `self.param(...)` always calls `make_rng('params')`, even for
//!   initializers that ignore the key (such as `zeros` for a bias).
//! - nnx (`nnx.Rngs(seed)`): each stream holds a key and a counter starting at
//!   0; each request returns `fold_in(key, counter)` and increments the
//!   counter. Streams that were not created fall back to `default`.

use crate::array::Array;
use crate::bail;
use crate::error::Result;

use super::initializers::{lecun_normal, zeros};
use super::sha1::sha1;
use super::{fold_in, Key};

/// The key linen's `make_rng` returns for the `count`-th request (1-based)
/// of an rng collection in the scope at module `path` (the names from the top
/// module down, e.g. `["Dense_0"]`; empty for the top-level module) under the
/// collection's root key (for `init(key, ...)`, the `params` root is `key`).
///
/// For a linen `Dense`, the kernel is request 1 and the bias request 2.
/// This follows Flax's default `flax_fix_rng_separator=False`, under which
/// the names are hashed without separators.
pub fn linen_rng_key(root: Key, path: &[&str], count: u32) -> Key {
    fold_in(root, linen_rng_hash(path, count))
}

/// The number [`linen_rng_key`] folds into the root key: what a key drawn
/// inside a lifted transform (whose root is a traced key) folds in too.
pub fn linen_rng_hash(path: &[&str], count: u32) -> u32 {
    let mut message = Vec::new();
    for name in path {
        message.extend_from_slice(name.as_bytes());
    }
    // Python's `n.to_bytes((n.bit_length() + 7) // 8, "big")`: minimal
    // big-endian bytes, none at all for 0.
    let bytes = count.to_be_bytes();
    let skip = (count.leading_zeros() / 8) as usize;
    message.extend_from_slice(&bytes[skip..]);
    let digest = sha1(&message);
    u32::from_be_bytes([digest[0], digest[1], digest[2], digest[3]])
}

/// Parameters of a linen `nn.Dense(features)` initialized with
/// `init(key, x)` where `x` has `in_features` as its last dimension, at module
/// `path` (empty when the `Dense` is the module being initialized):
/// `kernel` of shape `(in_features, features)` from `lecun_normal` and a zero
/// `bias` of shape `(features,)`.
pub fn linen_dense_init_at(
    key: Key,
    path: &[&str],
    in_features: usize,
    features: usize,
) -> Result<(Array, Array)> {
    let kernel = lecun_normal(linen_rng_key(key, path, 1), &[in_features, features])?;
    let bias = zeros(&[features])?;
    Ok((kernel, bias))
}

/// `nn.Dense(features).init(key, x)` for `x` with `in_features` as its last
/// dimension: `(kernel, bias)` exactly as JAX produces them.
pub fn dense_init(key: Key, in_features: usize, features: usize) -> Result<(Array, Array)> {
    linen_dense_init_at(key, &[], in_features, features)
}

/// One nnx rng stream: a key and the number of keys drawn from it so far.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Stream {
    name: String,
    key: Key,
    count: u32,
}

/// `nnx.Rngs`: named streams of keys, each `fold_in(stream_key, counter)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rngs {
    streams: Vec<Stream>,
}

impl Rngs {
    /// `nnx.Rngs(seed)`: a single `default` stream keyed by `key(seed)`.
    pub fn new(seed: i64) -> Rngs {
        Rngs::from_streams(&[("default", Key::from_seed(seed))])
    }

    /// `nnx.Rngs(name=key, ...)` (with `default=key` under the name
    /// `"default"`). A later stream of the same name replaces an earlier one.
    pub fn from_streams(streams: &[(&str, Key)]) -> Rngs {
        let mut rngs = Rngs {
            streams: Vec::new(),
        };
        for &(name, key) in streams {
            rngs.streams.retain(|s| s.name != name);
            rngs.streams.push(Stream {
                name: name.to_string(),
                key,
                count: 0,
            });
        }
        rngs
    }

    /// The next key of `stream` (`rngs.params()` is `next_key("params")`),
    /// falling back to the `default` stream as nnx does; an AttributeError
    /// when neither exists.
    pub fn next_key(&mut self, stream: &str) -> Result<Key> {
        let index = match self.streams.iter().position(|s| s.name == stream) {
            Some(i) => i,
            None => match self.streams.iter().position(|s| s.name == "default") {
                Some(i) => i,
                None => bail!(
                    AttributeError,
                    "No RngStream named '{}' found in Rngs.",
                    stream
                ),
            },
        };
        let s = &mut self.streams[index];
        let key = fold_in(s.key, s.count);
        // The counter is a uint32 array in nnx and wraps the same way.
        s.count = s.count.wrapping_add(1);
        Ok(key)
    }

    /// How many keys `stream` (after the `default` fallback) has handed out.
    pub fn count(&self, stream: &str) -> Option<u32> {
        self.streams
            .iter()
            .find(|s| s.name == stream)
            .or_else(|| self.streams.iter().find(|s| s.name == "default"))
            .map(|s| s.count)
    }
}

/// `nnx.Linear(in_features, out_features, rngs=rngs)` with the default
/// initializers: draws the kernel key then the bias key from `rngs.params()`
/// and returns `(kernel (in, out), bias (out,))`.
pub fn nnx_linear(
    rngs: &mut Rngs,
    in_features: usize,
    out_features: usize,
) -> Result<(Array, Array)> {
    let kernel_key = rngs.next_key("params")?;
    let kernel = lecun_normal(kernel_key, &[in_features, out_features])?;
    // The bias key is drawn even though `zeros` ignores it, which shifts the
    // keys of every module built afterwards from the same `Rngs`.
    let _bias_key = rngs.next_key("params")?;
    let bias = zeros(&[out_features])?;
    Ok((kernel, bias))
}

/// `nnx.Linear(in_features, out_features, rngs=nnx.Rngs(seed))`.
pub fn nnx_linear_init(
    seed: i64,
    in_features: usize,
    out_features: usize,
) -> Result<(Array, Array)> {
    nnx_linear(&mut Rngs::new(seed), in_features, out_features)
}
