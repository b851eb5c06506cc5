//! One thread runs the same program 1000 times, as a long-lived page worker
//! does: nothing a run makes may outlive it, so memory stays flat. The
//! program defines closures, classes with `super()`, generators, exceptions
//! of its own, PRNG keys, an `nnx.Rngs`, an `nnx.EMA`, modules built by
//! `nnx.vmap` and run by `nnx.scan`, an optax optimizer, a GraphDef, an
//! `nnx.List` and a flattened dict: the objects
//! that used to be kept alive by per-thread registries or by the cycle
//! between a function and the scope it was defined in.

use shardlab::program::{run, Options};

const PROGRAM: &str = r#"
import jax
import jax.numpy as jnp
import optax
from flax import nnx, traverse_util

def make_counter():
    n = 0
    def bump():
        nonlocal n
        n += 1
        return n
    return bump

class Base:
    def __init__(self, x):
        self.x = x
        self.me = self

class Child(Base):
    def __init__(self, x):
        super().__init__(x * 2)

class Oops(ValueError):
    pass

def gen(k):
    for i in range(k):
        yield i * i

bump = make_counter()
c = Child(3)
try:
    raise Oops("no")
except ValueError as e:
    caught = e
key = jax.random.split(jax.random.key(0), 4)
rngs = nnx.Rngs(0)
layer = nnx.Linear(4, 2, rngs=rngs)
bn = nnx.BatchNorm(2, rngs=rngs)
normed = bn(jnp.ones((3, 2)))
emb = nnx.Embed(3, 2, rngs=rngs)
tx = optax.adam(1e-3)
state = tx.init({"w": jnp.ones((4,))})
ema = nnx.EMA(layer, decay=0.9)
ema.update(layer)
view = ema.apply_to(layer)

@nnx.split_rngs(splits=2)
@nnx.vmap(in_axes=(0,), out_axes=0)
def make_layers(r):
    return nnx.Linear(2, 2, rngs=r)

layers = make_layers(nnx.Rngs(1))

@nnx.scan(in_axes=(nnx.Carry, 0), out_axes=nnx.Carry)
def through(h, lin):
    return lin(h)

h = through(jnp.ones((2,)), layers)
big = jnp.ones((256, 256))
# Holding the big array, a leaked module or EMA would leak it too.
layers.keep = ema.keep = view.keep = big
# So would a GraphDef class or an nnx.List registry kept from run to run.
graphdef, params = nnx.split(layer)
type(graphdef).keep = big
layer.blocks = nnx.List([nnx.Linear(2, 2, rngs=rngs), big])
again = nnx.merge(*nnx.split(layer))
flat = traverse_util.flatten_dict({"a": {"b": big}, "c": {}}, keep_empty_nodes=True)
result = [bump(), bump(), c.x, sum(gen(5)), float(big.sum())]
"#;

/// Resident memory of this process, in bytes.
fn rss() -> usize {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: usize = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    pages * 4096
}

#[test]
fn a_thousand_runs_in_one_thread_keep_memory_flat() {
    let options = Options {
        devices: 4,
        ..Options::default()
    };
    let once = run(PROGRAM, &options);
    assert!(once.error.is_none(), "{:?}", once.error);
    assert_eq!(
        once.result,
        Some(serde_json::json!([1, 2, 6, 30, 65536.0])),
        "the program's result"
    );
    for _ in 0..100 {
        run(PROGRAM, &options);
    }
    let before = rss();
    for _ in 0..1000 {
        let out = run(PROGRAM, &options);
        assert!(out.error.is_none());
    }
    let grown = rss().saturating_sub(before);
    // A leak of the program's objects (a 256x256 array alone is 256 KiB)
    // would grow memory by hundreds of megabytes over 1000 runs.
    assert!(
        grown < 8 << 20,
        "memory grew by {} KiB over 1000 runs",
        grown >> 10
    );
}

/// A second run in the same thread gives the first run's answer: the
/// classes of optax's states are each run's own (a cached class once made
/// the second run of this program fail inside shard_map).
#[test]
fn an_optax_program_runs_twice_in_one_thread_with_one_answer() {
    let src = include_str!("programs/seed004_production_corrected_pmean.py");
    let first = run(src, &Options::default());
    let second = run(src, &Options::default());
    for (k, out) in [&first, &second].into_iter().enumerate() {
        if let Some(e) = &out.error {
            panic!("run {k}: {}", e.error.message);
        }
    }
    assert_eq!(first.stdout, second.stdout);
}
