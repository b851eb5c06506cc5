# Raw key data is a uint32 array: key_data, bits, and wrapping data back.
import jax, jax.numpy as jnp
k = jax.random.key(42)
d = jax.random.key_data(k)
print(repr(d), d.dtype, d.shape)
ks = jax.random.split(k, 3)
kd = jax.random.key_data(ks)
print(kd, kd.dtype, kd[:, 1] >> 16, kd.sum(axis=1))
b = jax.random.bits(k, (2, 3))
print(repr(b), b.dtype)
print(b >> 28, b % 10, (b & 0xFF).astype(jnp.int32))
w = jax.random.wrap_key_data(kd[1])
print(jax.random.normal(w, (3,)), jax.random.normal(ks[1], (3,)))
legacy = jax.random.PRNGKey(7)
raw = jax.random.key_data(jax.random.wrap_key_data(jnp.array([0, 7], dtype=jnp.uint32)))
print(raw, jax.random.uniform(raw, (2,)), jax.random.uniform(legacy, (2,)))
result = b
