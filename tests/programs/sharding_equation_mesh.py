# The mesh a shard_map equation names (the context's abstract mesh, or the
# mesh passed), and how a jitted result over Auto axes spells its spec.
import numpy as np
import jax
import jax.numpy as jnp
from jax.sharding import AxisType, Mesh, PartitionSpec as P

line = jax.make_mesh((4,), ("k",))
with jax.set_mesh(line):
    @jax.shard_map(in_specs=(P("k"), P()), out_specs=P("k"))
    def scale(u, s):
        return u * s

    u = jax.device_put(jnp.arange(8.0), P("k"))
    print(jax.make_jaxpr(scale)(u, jnp.float32(2.0)))

given = Mesh(np.array(jax.devices()[:2]), ("g",))
shifted = jax.shard_map(lambda v: v + 1.0, mesh=given, in_specs=P("g"), out_specs=P("g"))
print(jax.make_jaxpr(shifted)(jnp.zeros(6)))

loose = jax.make_mesh((2, 4), ("a", "b"), (AxisType.Auto, AxisType.Auto))
with jax.set_mesh(loose):
    l = jax.device_put(np.ones((4, 8)), P(None, "b"))
    r = jax.device_put(np.ones((8, 16)), P("b", None))

    @jax.jit
    def product(l, r):
        return jax.lax.with_sharding_constraint(l @ r, P("b", None))

    out = product(l, r)
    print(out.sharding.spec)
    same = jax.jit(lambda r, l: jax.lax.with_sharding_constraint(l @ r, P("b", None)))(r, l)
    print(same.sharding.spec)
    result = out
