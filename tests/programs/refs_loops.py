# Refs in loop bodies and transformations: scan, fori_loop, while_loop and
# lax.map carry a closed-over ref from step to step, vmap maps a ref
# argument and refuses writes to a closed-over one, and grad reads outer
# refs but refuses to write a differentiated value to them.
import jax
import jax.numpy as jnp

total = jax.new_ref(0)
hist = jax.new_ref(jnp.zeros(3))


def step(c, x):
    total[...] += x
    hist[x % 3] += 1.0
    return c * 2, total[...]


print(jax.lax.scan(step, 1, jnp.arange(7)), total, hist)
print(jax.jit(lambda xs: jax.lax.scan(step, 1, xs)[1])(jnp.arange(3)), total, hist)

peak = jax.new_ref(jnp.float32(-1.0))


def body(i, acc):
    v = jnp.sin(i * 1.3)
    peak[...] = jnp.maximum(peak[...], v)
    return acc + v


print(jax.lax.fori_loop(0, 6, body, 0.0), peak)
n = jnp.int32(4)
print(jax.lax.fori_loop(0, n, body, 0.0), peak)

calls = jax.new_ref(jnp.int32(0))


def halve(x):
    calls[...] += 1
    return x / 2


print(jax.lax.while_loop(lambda x: x > 1.0, halve, 40.0), calls)
print(jax.lax.map(lambda x: (calls.__setitem__(..., calls[...] + x), x * x)[1], jnp.arange(4)), calls)


def dist(x, y, out):
    out[...] = jnp.sum(jnp.abs(x - y))


pts = jnp.array([[0.0, 1.0], [2.0, 0.5], [-1.0, -1.0]])
table = jax.new_ref(jnp.zeros((3, 3)))
jax.vmap(jax.vmap(dist, (None, 0, 0)), (0, None, 0))(pts, pts, table)
print(table)
col = jax.new_ref(jnp.zeros((2, 3)))

try:
    jax.vmap(lambda v: col.__setitem__((0, 0), v))(jnp.arange(3.0))
except Exception as e:
    print(type(e).__name__, e)

scale = jax.new_ref(3.0)
print(jax.grad(lambda x: x * scale[...] ** 2)(2.0))
log = jax.new_ref(0.0)


def tracked(x):
    y = jnp.tanh(x)
    log[...] += jax.lax.stop_gradient(y)
    return y


print(jax.grad(tracked)(0.5), log)


def leaky(x):
    log[...] = x * 2
    return x


try:
    jax.grad(leaky)(1.0)
except Exception as e:
    print(type(e).__name__, e)


def inner_ref(x):
    r = jax.new_ref(jnp.zeros(2))
    r[0] = x**2
    r[1] = jnp.sin(r[0])
    return r[1] + r[0]


print(jax.grad(inner_ref)(0.7), jax.jit(jax.grad(inner_ref))(0.7))
result = (total[...], hist[...], table[...], peak[...])
