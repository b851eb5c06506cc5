# The layout of a concatenation whose operands are laid out differently over
# an Auto mesh axis: the first split operand that keeps the joined dimension
# whole gives the result's layout; when every split operand splits the
# joined dimension, the first of them does. The same under jit, for three
# operands, and for stack (a concatenation of expanded operands).
import jax, jax.numpy as jnp
from jax.sharding import PartitionSpec as P, NamedSharding, AxisType

mesh = jax.make_mesh((4,), ('d',), axis_types=(AxisType.Auto,))
base = jnp.arange(32.0).reshape(8, 4) / 4
layouts = {'rows': P('d', None), 'cols': P(None, 'd'), 'whole': P()}

def put(a, name):
    return jax.device_put(a, NamedSharding(mesh, layouts[name]))

for first in layouts:
    for second in layouts:
        x, y = put(base, first), put(base - 1, second)
        for axis in (0, 1):
            eager = jnp.concatenate([x, y], axis=axis)
            jitted = jax.jit(lambda a, b: jnp.concatenate([a, b], axis=axis))(x, y)
            assert (eager == jitted).all()
            print(first, second, axis, eager.sharding.spec, jitted.sharding.spec, eager.shape)

r, c, w = put(base, 'rows'), put(base + 2, 'cols'), put(base * 3, 'whole')
three = jnp.concatenate([w, r, c], axis=0)
print('three', three.sharding.spec, jnp.concatenate([w, c, r], axis=1).sharding.spec)
print('three sum', three.sum(axis=0))
print('stack', jnp.stack([c, r]).sharding.spec, jnp.stack([r, c]).sharding.spec)
print('stack values', jnp.stack([r, c])[1, :2])
print('hstack', jnp.hstack([c[:, :2], r]).sharding.spec)
