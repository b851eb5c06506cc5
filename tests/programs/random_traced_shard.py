import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4,), ("d",))
key = jax.random.PRNGKey(21)


def per_device(k, x):
    k = jax.random.fold_in(k, jax.lax.axis_index("d"))
    noise = jax.random.normal(k, (2,))
    return x[:2] + noise, jax.random.bits(k, (1,))


f = jax.shard_map(per_device, mesh=mesh, in_specs=(P(), P()), out_specs=(P("d"), P("d")))
y, b = f(key, jnp.arange(4.0))
print(y)
print(b)
result = [y, b]
