# JAX's shape error shows the shape as the function read it: the tuple or
# list it was given, a number as JAX wraps it ((n,) for creation functions,
# [n] for reshape), including traced dimensions under jit.
import jax
import jax.numpy as jnp

attempts = [
    lambda: jnp.zeros((2, 1.5)),
    lambda: jnp.zeros(1.5),
    lambda: jnp.ones([2, "a"]),
    lambda: jnp.arange(6).reshape(2.0, 3),
    lambda: jnp.arange(6).reshape((2.0, 3)),
    lambda: jnp.reshape(jnp.arange(6), 6.0),
    lambda: jnp.broadcast_shapes((2, 1.5)),
]
for attempt in attempts:
    try:
        attempt()
    except TypeError as e:
        print("TypeError:", e)


@jax.jit
def flat(x):
    return x.reshape(jnp.array(x.shape).prod())


@jax.jit
def two(x):
    return x.reshape(x.shape[0], x.sum())


@jax.jit
def fill(x):
    return jnp.zeros(x.sum())


for f, arg in [(flat, jnp.ones((2, 3))), (two, jnp.ones(3, dtype=jnp.int32)), (fill, jnp.ones(3, dtype=jnp.int32))]:
    try:
        f(arg)
    except TypeError as e:
        print("TypeError:", str(e).splitlines()[0])
