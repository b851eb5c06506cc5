import jax
import jax.numpy as jnp

key = jax.random.PRNGKey(42)
print(key, key.shape, key.dtype)
key, sub = jax.random.split(key)
print(key, sub)
keys = jax.random.split(sub, 4)
print(keys)
print(repr(keys[2]))
print(jax.random.fold_in(key, 7))
n = jax.random.normal(sub, (2, 3))
u = jax.random.uniform(keys[0], (4,))
u2 = jax.random.uniform(keys[1], shape=(3,), minval=-2.0, maxval=5.0)
t = jax.random.truncated_normal(keys[2], -1.5, 0.5, (5,))
b = jax.random.bernoulli(keys[3], 0.3, (6,))
r = jax.random.randint(key, (3, 2), 0, 100)
r2 = jax.random.randint(sub, (5,), minval=-4, maxval=4)
p = jax.random.permutation(key, 10)
p2 = jax.random.permutation(sub, jnp.arange(12.0).reshape(4, 3))
c = jax.random.choice(key, 20, (4,), replace=False)
c2 = jax.random.choice(sub, jnp.array([1.5, 2.5, 3.5]), (2, 2))
for v in [n, u, u2, t, b, r, r2, p, p2, c, c2]:
    print(v.dtype, v.shape)
    print(v)
print(jax.random.normal(key))
result = [n, u, u2, t, b, r, r2, p, p2, c, c2]
