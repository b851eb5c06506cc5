# The tables jax.debug.visualize_array_sharding draws.
import numpy as np
import jax
import jax.numpy as jnp
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

mesh = Mesh(np.array(jax.devices()).reshape(2, 4), ("x", "y"))
m8 = Mesh(np.array(jax.devices()), ("d",))
square = jnp.arange(64.0).reshape(8, 8)
wide = jnp.arange(32.0).reshape(4, 8)
for spec in [P("x", "y"), P("y", "x"), P("x"), P(None, "y"), P(), P(None, ("x", "y"))]:
    print(spec)
    jax.debug.visualize_array_sharding(jax.device_put(square, NamedSharding(mesh, spec)))
    jax.debug.visualize_array_sharding(jax.device_put(wide, NamedSharding(mesh, spec)))
vec = jnp.arange(16.0)
for spec in [P("d"), P()]:
    jax.debug.visualize_array_sharding(jax.device_put(vec, NamedSharding(m8, spec)))
jax.debug.visualize_array_sharding(jax.device_put(vec, NamedSharding(mesh, P("y"))))
jax.debug.visualize_array_sharding(jax.device_put(vec, NamedSharding(mesh, P(("y", "x")))))
jax.debug.visualize_array_sharding(jnp.ones((3, 5)))
jax.debug.visualize_array_sharding(jax.device_put(jnp.ones(5), jax.devices()[7]))
jax.debug.visualize_sharding((16, 4), NamedSharding(mesh, P("x", "y")))
jax.debug.visualize_sharding((4,), NamedSharding(m8, P()))
tall = jnp.arange(64.0).reshape(32, 2)
jax.debug.visualize_array_sharding(jax.device_put(tall, NamedSharding(m8, P("d"))))
try:
    jax.debug.visualize_array_sharding(jnp.ones((2, 2, 2)))
except ValueError as e:
    print("ValueError:", e)
