# pure_callback under vmap, by vmap_method: how many calls the function
# gets and the shapes of what it is handed (sequential: one call per index;
# expand_dims / broadcast_all / legacy_vectorized: one call, the batched
# operands stacked in front and an unbatched one given an axis of 1,
# broadcast, or left alone); an unordered io_callback runs index by index;
# JAX's errors for a missing vmap_method and an ordered io_callback.
import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import io_callback

calls = []


def host_add(x, y):
    calls.append((np.shape(x), np.shape(y)))
    return (np.asarray(x) + np.asarray(y)).astype(np.float32)


def add_cb(method):
    def f(x, y):
        return jax.pure_callback(host_add, jax.ShapeDtypeStruct(x.shape, x.dtype), x, y, vmap_method=method)

    return f


xs = jnp.arange(6.0).reshape(3, 2)
y = jnp.array([10.0, 20.0])
for method in ["sequential", "sequential_unrolled", "expand_dims", "broadcast_all", "legacy_vectorized"]:
    calls = []
    out = jax.vmap(add_cb(method), in_axes=(0, None))(xs, y)
    print(method, out.tolist(), calls)
    calls = []
    out = jax.jit(jax.vmap(add_cb(method), in_axes=(None, 0)))(y, xs)
    print(method, "jit", out.tolist(), calls)

calls = []
both = jax.vmap(add_cb("expand_dims"))(xs, xs * 2)
print(both.tolist(), calls)

calls = []
unbatched = jax.vmap(lambda x: add_cb("sequential")(y, y) + x)(xs)
print(unbatched.tolist(), calls)

calls = []
nested = jax.vmap(jax.vmap(add_cb("broadcast_all"), in_axes=(0, None)), in_axes=(0, None))(
    jnp.ones((2, 3, 2)), y
)
print(nested.shape, calls)

order = []


def note(v):
    order.append(float(v))
    return np.float32(float(v) * 2)


print(jax.vmap(lambda v: io_callback(note, jax.ShapeDtypeStruct((), jnp.float32), v))(jnp.array([3.0, 1.0, 2.0])), order)

for f, args in [
    (lambda x: jax.pure_callback(host_add, jax.ShapeDtypeStruct((2,), jnp.float32), x, x), (xs,)),
    (lambda x: io_callback(note, jax.ShapeDtypeStruct((), jnp.float32), x, ordered=True), (jnp.ones(3),)),
]:
    try:
        jax.vmap(f)(*args)
    except (NotImplementedError, ValueError) as e:
        print(type(e).__name__, e)

result = jax.vmap(add_cb("broadcast_all"))(xs, xs)
