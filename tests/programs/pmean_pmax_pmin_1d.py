import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
from functools import partial
mesh = Mesh(np.array(jax.devices()[:4]), ('x',))
@partial(jax.shard_map, mesh=mesh, in_specs=P('x'), out_specs=(P(), P(), P()))
def stats(v):
    return jax.lax.pmean(v, 'x'), jax.lax.pmax(v, 'x'), jax.lax.pmin(v, 'x')
x = jnp.array([3.0, -1.0, 4.0, 1.5, -5.0, 9.0, 2.0, 6.0])
m, hi, lo = stats(x)
print(m, hi, lo)
result = {'mean': m, 'max': hi, 'min': lo}
