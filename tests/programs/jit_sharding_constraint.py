# with_sharding_constraint and reshard, eagerly and under jit.
import numpy as np
import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P, AxisType

values = np.arange(16.0).reshape(4, 4)
auto = jax.make_mesh((2, 4), ("a", "b"), axis_types=(AxisType.Auto,) * 2)
explicit = jax.make_mesh((2, 4), ("a", "b"), axis_types=(AxisType.Explicit,) * 2)
x = jax.device_put(values, NamedSharding(auto, P("a")))

cols = NamedSharding(auto, P(None, "b"))
y = jax.lax.with_sharding_constraint(x, cols)
print(y.sharding.spec, float(y.sum()))
print(jax.lax.with_sharding_constraint(values, cols).sharding.spec)
pair = jax.lax.with_sharding_constraint((x, x * 2), (cols, NamedSharding(auto, P())))
print(pair[0].sharding.spec, pair[1].sharding.spec)


def f(v):
    w = jax.lax.with_sharding_constraint(v * v, cols)
    return w, w.sum(0), w.sum(1)


print(jax.make_jaxpr(f)(x))
for out in jax.jit(f)(x):
    print(out.sharding.spec, out)
with jax.set_mesh(auto):
    print(jax.make_jaxpr(lambda v: jax.lax.with_sharding_constraint(v, P("b")))(x))
    print(jax.jit(lambda v: jax.lax.with_sharding_constraint(v + 1, P("b")))(x).sharding.spec)

e = jax.device_put(values, NamedSharding(explicit, P("a")))
r = jax.sharding.reshard(e, NamedSharding(explicit, P(None, "b")))
print(r.sharding.spec, jax.typeof(r))
try:
    jax.reshard(e, P("b"))
except ValueError as err:
    print(err)


@jax.jit
def g(v):
    w = jax.reshard(v * 2, NamedSharding(explicit, P(None, "b")))
    print(jax.typeof(w), w)
    return w + 1


print(g(e).sharding.spec)
with jax.set_mesh(explicit):
    print(jax.jit(lambda v: jax.sharding.reshard(v, P("b", "a")))(e).sharding.spec)
grads = jax.grad(lambda v: jax.lax.with_sharding_constraint(v * v, cols).sum())(values)
result = grads
