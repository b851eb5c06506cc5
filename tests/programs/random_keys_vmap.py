import jax
import jax.numpy as jnp

key = jax.random.key(7)
keys = jax.random.split(key, 4)
print(keys.shape, keys.dtype)
print(keys)

# One draw per key, batched.
z = jax.vmap(jax.random.normal)(keys)
print(z.shape, z.dtype)
print(z)

u = jax.vmap(lambda k: jax.random.uniform(k, (3,)))(keys)
print(u)

# Keys coming out of a vmap stay typed.
children = jax.vmap(lambda k: jax.random.split(k, 2))(keys)
print(children.shape, children.dtype)
print(children)

folded = jax.vmap(jax.random.fold_in, in_axes=(None, 0))(key, jnp.arange(3))
print(repr(folded))
print(jax.vmap(lambda k: jax.random.bits(k, (2,)))(folded))

# Keys mapped along with data, and a key shared by every row.
xs = jnp.arange(8.0).reshape(4, 2)
noisy = jax.vmap(lambda k, x: x + jax.random.normal(k, x.shape))(keys, xs)
print(noisy)
shared = jax.vmap(lambda k, x: x * jax.random.uniform(k), in_axes=(None, 0))(key, xs)
print(shared)

# Raw uint32 keys batch the same way.
raw = jax.random.split(jax.random.PRNGKey(7), 4)
print(jax.vmap(jax.random.normal)(raw))
print(jax.vmap(lambda k: jax.random.bernoulli(k, 0.5, (4,)))(raw))

# A grid of keys, mapped twice.
grid = jax.random.split(key, (2, 3))
print(grid.shape)
print(jax.vmap(jax.vmap(jax.random.normal))(grid))

# vmap inside jit.
print(jax.jit(jax.vmap(lambda k: jax.random.randint(k, (2,), 0, 10)))(keys))
result = [z, u, noisy, shared]
