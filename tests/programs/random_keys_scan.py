import jax
import jax.numpy as jnp
from jax import lax

key = jax.random.key(3)


def step(k, _):
    k, sub = jax.random.split(k)
    return k, jax.random.normal(sub, (2,))


last, draws = lax.scan(step, key, None, length=4)
print(repr(last))
print(draws)


# Scanning over a batch of keys.
def over_keys(total, k):
    x = jax.random.uniform(k)
    return total + x, x


total, each = lax.scan(over_keys, 0.0, jax.random.split(key, 5))
print(total, each)


# Keys as scan outputs.
def emit(k, _):
    k, sub = jax.random.split(k)
    return k, sub


_, subs = lax.scan(emit, key, None, length=3)
print(subs.shape, subs.dtype)
print(subs)


# fori_loop folding in the index.
def body(i, carry):
    k, acc = carry
    return k, acc + jax.random.normal(jax.random.fold_in(k, i), (2,))


k_out, acc = lax.fori_loop(0, 5, body, (key, jnp.zeros(2)))
print(k_out)
print(acc)


# A key carried through fori_loop, split every step.
def walk(i, carry):
    k, x = carry
    k, sub = jax.random.split(k)
    return k, x + jax.random.uniform(sub)


print(lax.fori_loop(0, 3, walk, (key, 0.0)))

# Raw keys in a scan carry.
raw_last, raw_draws = lax.scan(step, jax.random.PRNGKey(3), None, length=2)
print(raw_last, raw_draws)

# Inside jit.
print(jax.jit(lambda k: lax.scan(step, k, None, length=2)[1])(key))

# while_loop with a key in the carry.
def cond(c):
    return c[1] < 3


def wbody(c):
    k, n = c
    return jax.random.split(k)[0], n + 1


print(lax.while_loop(cond, wbody, (key, 0)))


# A key traced by a staged loop prints as a tracer of the key type.
def shows(c, k):
    print(k, k.shape, k.dtype)
    return c + jax.random.uniform(k), None


print(lax.scan(shows, 0.0, jax.random.split(key, 3))[0])

# cond and lax.map on keys.
print(lax.cond(True, lambda k: jax.random.split(k)[0], lambda k: k, key))
print(lax.map(lambda k: jax.random.bits(k, (2,)), jax.random.split(key, 3)))
result = [draws, each, acc]
