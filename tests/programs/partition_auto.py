# Computation that follows sharding over auto mesh axes: sums, maxima and
# contractions over split dimensions, changes of split, and the shardings
# XLA gives the results.
import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P, AxisType

mesh = jax.make_mesh((4, 2), ('x', 'y'), axis_types=(AxisType.Auto, AxisType.Auto))
x = jax.device_put(jnp.arange(64.0).reshape(8, 8) / 5, NamedSharding(mesh, P('x', 'y')))
w = jax.device_put(jnp.arange(32.0).reshape(8, 4) / 11 - 1, NamedSharding(mesh, P('y', None)))
v = jax.device_put(jnp.arange(8, dtype=jnp.int32), NamedSharding(mesh, P('x')))

total = jnp.sum(x)
cols = jnp.sum(x, axis=0)
rows = x.max(axis=1)
print(total, cols, rows)
print(cols.sharding.spec, rows.sharding.spec)
print(jnp.min(v), jnp.sum(v), jnp.sum(v * v))

y = x * 3 - 1
print(y.sharding.spec, y[3])


@jax.jit
def layer(x, w):
    return x @ w


h = layer(x, w)
print(h)
print(h.sharding.spec)


@jax.jit
def mlp(x, w):
    h = jnp.maximum(x @ w, 0.0)
    return jnp.mean(h * h), h.sum(axis=0)


loss, colsum = mlp(x, w)
print(loss, colsum)


@jax.jit
def move(x):
    return jax.lax.with_sharding_constraint(x, NamedSharding(mesh, P('y', 'x')))


z = move(x)
print(z.sharding.spec, jnp.sum(z, axis=1))


@jax.jit
def gathered(x):
    return jax.lax.with_sharding_constraint(x, NamedSharding(mesh, P()))


g = gathered(x)
print(g.sharding.spec, g[7])

data = jax.device_put(jnp.arange(32.0).reshape(8, 4) / 8, NamedSharding(mesh, P('x')))
params = jnp.ones((4, 3)) / 4


@jax.jit
def grad_step(p, d):
    return jax.grad(lambda p: jnp.sum(jnp.tanh(d @ p) ** 2))(p)


gp = grad_step(params, data)
print(gp)
result = [total, cols, rows, h, loss, colsum, z, gp]
