# jax.debug.inspect_array_sharding: at once on concrete arrays, and inside
# jit once per compilation, with the sharding the compiled program uses.
import numpy as np
import jax
import jax.numpy as jnp
from jax.sharding import AxisType, Mesh, NamedSharding, PartitionSpec as P

explicit = jax.make_mesh((2, 4), ("data", "model"))
auto = Mesh(np.array(jax.devices()).reshape(4, 2), ("a", "b"), axis_types=(AxisType.Auto, AxisType.Auto))

grid = jax.device_put(jnp.linspace(0.0, 1.0, 32).reshape(8, 4), NamedSharding(explicit, P("data", "model")))
rows = jax.device_put(jnp.arange(16.0).reshape(8, 2), NamedSharding(auto, P("a")))

seen = []


def report(tag):
    def callback(sharding):
        seen.append(tag)
        print(tag, sharding, getattr(sharding, "spec", None), type(sharding).__name__)

    return callback


print(jax.debug.inspect_array_sharding(grid, callback=report("grid")))
jax.debug.inspect_array_sharding(rows, callback=report("rows"))
jax.debug.inspect_array_sharding(jnp.zeros(2), callback=report("plain"))
jax.debug.inspect_array_sharding({"g": grid, "r": (rows,)}, callback=report("tree"))


@jax.jit
def step(x):
    print("tracing step")
    jax.debug.inspect_array_sharding(x, callback=report("x in jit"))
    z = jnp.cos(x) * 3 + 1
    jax.debug.inspect_array_sharding(z, callback=report("z in jit"))
    jax.debug.print("running step {}", z.sum())
    print("traced step")
    return z.sum()


@jax.jit
def auto_step(y):
    jax.debug.inspect_array_sharding((y * 2, jnp.exp(y)), callback=report("y in jit"))
    return y - 1


print(step(grid))
print("again")
print(step(grid))
print("new input")
print(step(grid * 0))
print(auto_step(rows).sum())
print(seen)

print(jax.make_jaxpr(lambda x: (jax.debug.inspect_array_sharding(x, callback=report("jaxpr")), x + 1)[1])(rows))

try:
    jax.debug.inspect_array_sharding(grid)
except TypeError as e:
    print(e)
result = step(grid)
