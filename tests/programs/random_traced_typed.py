import jax
import jax.numpy as jnp

key = jax.random.key(10)


@jax.jit
def sample(k):
    k, sub = jax.random.split(k)
    return k, jax.random.normal(sub, (3,))


k1, x = sample(key)
print(k1)
print(repr(k1))
print(k1.dtype, k1.shape)
print(x)
k2, y = sample(k1)
print(y)


@jax.jit
def fold(k, i):
    f = jax.random.fold_in(k, i)
    return f, jax.random.key_data(f), jax.random.uniform(f, (2,))


f, d, u = fold(key, 4)
print(f)
print(d, d.dtype)
print(u)

wrapped = jax.jit(lambda d: jax.random.wrap_key_data(d))(jax.random.key_data(key))
print(wrapped)
many = jax.jit(lambda k: jax.random.split(k, 3))(key)
print(many.shape, many.dtype)
print(many)
print(jax.random.normal(many[2], (2,)))
result = [x, y, d, u]
