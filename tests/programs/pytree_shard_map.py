import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
from functools import partial
mesh = Mesh(np.array(jax.devices()[:4]), ('x',))
params = {'w': jnp.arange(8.0), 'b': jnp.ones(4)}
def body(p, scale):
    return {'w': jax.lax.psum(p['w'] * scale, 'x'), 'b': p['b'] + scale}
out = jax.shard_map(body, mesh=mesh, in_specs=({'w': P('x'), 'b': P()}, P()), out_specs={'w': P(), 'b': P()}, check_vma=False)(params, jnp.array(2.0))
print(out['w'], out['b'])
result = out
