import jax
import jax.numpy as jnp

key = jax.random.PRNGKey(7)


@jax.jit
def draw(k):
    k1, k2 = jax.random.split(k)
    a = jax.random.normal(k1, (2, 3))
    b = jax.random.uniform(k2, (5,))
    return a, b, k1


a, b, k1 = draw(key)
print(a)
print(b)
print(k1, k1.dtype)


@jax.jit
def step(k, i):
    k = jax.random.fold_in(k, i)
    bits = jax.random.bits(k, (4,))
    coin = jax.random.bernoulli(k, 0.25, (8,))
    ints = jax.random.randint(k, (6,), -3, 20)
    return k, bits, coin, ints


k2, bits, coin, ints = step(key, 11)
print(k2)
print(bits, bits.dtype)
print(coin)
print(ints, ints.dtype)

eager = jax.random.normal(jax.random.split(key)[0], (2, 3))
print(bool(jnp.all(eager == a)))

uni = jax.jit(lambda k: jax.random.uniform(k, (3,), minval=-1.0, maxval=3.0))(key)
print(uni)
wide = jax.jit(lambda k: jax.random.split(k, (2, 3)))(key)
print(wide.shape)
print(wide)
result = [a, b, k1, k2, bits, coin, ints, uni, wide]
