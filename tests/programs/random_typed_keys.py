import jax
import jax.numpy as jnp

k = jax.random.key(2024)
print(k)
print(k.shape, k.dtype)
ks = jax.random.split(k, 3)
print(ks)
print(jax.random.key_data(ks))
a, b, c = ks
print(jax.random.normal(a, (3,)))
print(jax.random.uniform(b, (2, 2)))
print(jax.random.key_data(jax.random.fold_in(c, 5)))
legacy = jax.random.PRNGKey(2024)
print(jnp.allclose(jax.random.normal(legacy, (4,)), jax.random.normal(k, (4,))))
big = jax.random.split(jax.random.PRNGKey(-3), 12)
print(big)
print(len(big))
result = [jax.random.normal(a, (3,)), jax.random.uniform(b, (2, 2))]
