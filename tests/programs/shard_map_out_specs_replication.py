# An output that still varies over a mesh axis its out_spec leaves out is
# refused, with JAX's message: under jit every failing output is listed
# with its key path; outside jit only the first one.
import jax, jax.numpy as jnp, numpy as np
from jax.sharding import Mesh, PartitionSpec as P

grid = Mesh(np.array(jax.devices()[:4]).reshape(2, 2), ('a', 'b'))
line = Mesh(np.array(jax.devices()[:2]), ('i',))


def two_outputs(x):
    return x * 2, x + 1


def both(wrap):
    for f, mesh, ins, outs, arg in [
        (two_outputs, grid, P('a', 'b'), (P('a'), P()), jnp.ones((4, 4))),
        (lambda x: {'u': x, 'v': x.sum()}, line, P('i'), {'u': P(), 'v': P()}, jnp.ones((4,))),
        (lambda x: [x], line, P('i'), P(), jnp.arange(4.0)),
    ]:
        try:
            wrap(jax.shard_map(f, mesh=mesh, in_specs=ins, out_specs=outs))(arg)
        except ValueError as e:
            print(e)


both(lambda f: f)
both(jax.jit)
# Reduced first, the same output is fine.
ok = jax.shard_map(lambda x: jax.lax.psum(x, 'i'), mesh=line, in_specs=P('i'), out_specs=P())
result = ok(jnp.arange(4.0))
print(result)
