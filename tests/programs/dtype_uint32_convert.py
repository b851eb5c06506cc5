# Conversions to and from uint32, its printing, iinfo and reductions.
import jax, jax.numpy as jnp
print(repr(jnp.uint32(12)), jnp.uint32(12).dtype, repr(jnp.uint32(4294967295)))
print(jnp.array([1.9, -0.5, -7.0, 5e9, float("nan"), 3e9], dtype=jnp.float32).astype(jnp.uint32))
print(jnp.array([-1, 0, 2147483647], dtype=jnp.int32).astype(jnp.uint32))
w = jnp.array([4294967295, 2147483648, 3], dtype=jnp.uint32)
print(w.astype(jnp.int32), w.astype(jnp.float32), w.astype(bool), w.astype(jnp.complex64))
print(jnp.array([True, False]).astype(jnp.uint32), jnp.asarray(5, dtype="uint32"))
print(repr(w))
print(jnp.arange(4, dtype=jnp.uint32), jnp.zeros((2,), jnp.uint32), jnp.ones(3, dtype="uint32"))
print(jnp.iinfo(jnp.uint32), jnp.iinfo(jnp.uint32).max, jnp.iinfo(jnp.int32).min)
print(jnp.sum(w), jnp.max(w), jnp.min(w), jnp.prod(jnp.array([70000, 70000], jnp.uint32)))
print(jnp.mean(w), jnp.cumsum(w), jnp.sort(w), jnp.argmax(w))
print(w.reshape(3, 1), jnp.concatenate([w, w[:1]]), w[1], w[::-1])
print(jax.make_jaxpr(lambda v: (v + 1) * v >> 3)(w))
print(jax.jit(lambda v, k: v ^ k)(w, jnp.uint32(0xFFFF)))
for bad in [-1, 2**32]:
    try:
        jnp.uint32(bad)
    except OverflowError as e:
        print("OverflowError", e)
result = w
