import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
from functools import partial
mesh = Mesh(np.array(jax.devices()[:8]).reshape(2, 4), ('x', 'y'))
x = jnp.arange(64.0).reshape(8, 8)
shapes = []
for spec in [P(), P('x'), P('x', None), P(None, 'y'), P('x', 'y'), P('y', 'x'), P(('x', 'y')), P(None, ('y', 'x'))]:
    f = jax.shard_map(lambda v: v * 2, mesh=mesh, in_specs=spec, out_specs=spec)
    shapes.append(jax.shard_map(lambda v: jnp.zeros(v.shape[:1]) + v.shape[0] * 10 + v.shape[1], mesh=mesh, in_specs=spec, out_specs=P(spec[0]) if len(spec) else P(), check_vma=False)(x))
    assert jnp.array_equal(f(x), x * 2)
print(shapes[0])
result = shapes
