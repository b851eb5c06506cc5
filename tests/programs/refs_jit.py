# Refs and jit: a ref passed in or closed over is updated in place by the
# jitted function (the program is traced once and each call sees the ref's
# value at that call), refs created inside stay internal, and JAX's rules
# against aliasing and returning refs raise its errors.
import jax
import jax.numpy as jnp

counts = jax.new_ref(jnp.zeros(4, dtype=jnp.int32))


@jax.jit
def tally(labels):
    for k in range(4):
        counts[k] += jnp.sum(labels == k).astype(jnp.int32)
    return labels.shape[0]


print(tally(jnp.array([0, 1, 1, 3])), counts)
print(tally(jnp.array([3, 3, 2, 0])), counts)


@jax.jit
def axpy(a, x_ref, y_ref):
    y_ref[...] = a * x_ref[...] + y_ref[...]
    x_ref[0] = -1.0


xs = jax.new_ref(jnp.array([1.0, 2.0, 3.0]))
ys = jax.new_ref(jnp.ones(3))
axpy(2.0, xs, ys)
axpy(0.5, x_ref=xs, y_ref=ys)
print(xs, ys)


@jax.jit
def local(v):
    r = jax.new_ref(v)
    r[1:] = r[:-1] * 10.0
    r[...] += v
    return r[...], jax.freeze(r)


print(local(jnp.arange(4.0)))
print(jax.grad(lambda v: local(v)[0].sum())(jnp.arange(4.0)))

box = jax.new_ref(5.0)


def report(f, *args):
    try:
        f(*args)
    except Exception as e:
        print(type(e).__name__, e)


@jax.jit
def give_back(r):
    r[...] = 1.0
    return r


@jax.jit
def give_new(v):
    return {"a": [v, jax.new_ref(v)]}


@jax.jit
def pair(a, b):
    return a[...] + b[...]


@jax.jit
def both(a):
    return a[...] + box[...]


report(give_back, box)
report(give_new, 1.0)
report(pair, box, box)
report(both, box)
print(box)

steps = jax.new_ref(0)


@jax.jit
def loss(w):
    steps[...] += 1
    return jnp.sum(w**3 * 0.5)


print(jax.grad(loss)(jnp.array([0.5, -1.0])), steps)
print(jax.value_and_grad(loss)(jnp.array([0.5, -1.0])), steps)
print(jax.vmap(lambda w: w * box[...])(jnp.arange(3.0)))
