# How JAX spells the sharding of results over an Auto mesh axis: a result
# laid out like the first operand is spelled as that operand's spec; when the
# first operand is unplaced (a Python scalar, an uncommitted array) XLA's
# spelling without trailing Nones is reported; operands split in conflicting
# ways give the first split operand's layout. Optax's states follow their
# parameters' shardings.
import jax, jax.numpy as jnp, optax
from jax.sharding import PartitionSpec as P, NamedSharding, AxisType

mesh = jax.make_mesh((4,), ('d',), axis_types=(AxisType.Auto,))
rows = jax.device_put(jnp.arange(32.0).reshape(8, 4), NamedSharding(mesh, P('d', None)))
cols = jax.device_put(jnp.ones((8, 4)), NamedSharding(mesh, P(None, 'd')))
plain = jnp.full((8, 4), 3.0)

def spec(a):
    return a.sharding.spec

print('scalar first', spec(0.5 * rows), spec(rows * 0.5))
print('unplaced first', spec(plain + rows), spec(rows + plain))
print('array scalar first', spec(jnp.float32(2) * rows), spec(rows ** 2))
print('maximum', spec(jnp.maximum(0, rows)), spec(jnp.maximum(rows, 0)))
print('where', spec(jnp.where(rows > 4, rows, 0)))
print('conflict', spec(cols + rows), spec(rows + cols), spec(cols * rows + 1))
f = jax.jit(lambda a, b: a * b)
print('jit', spec(f(0.5, rows)), spec(f(plain, rows)), spec(f(rows, plain)), spec(f(rows, 0.5)))
print('like', spec(jnp.zeros_like(rows)), spec(jnp.ones_like(cols)), spec(jnp.full_like(rows, 7)))
print(jnp.zeros_like(rows).sharding == rows.sharding)

tx = optax.adam(0.1)
state = tx.init({'w': rows})
print('adam init', spec(state[0].mu['w']), spec(state[0].nu['w']))
updates, state = tx.update({'w': rows * 0.01}, state)
print('adam eager update', spec(updates['w']), spec(state[0].mu['w']))
updates, state = jax.jit(tx.update)({'w': rows * 0.01}, state)
print('adam jit update', spec(updates['w']), spec(state[0].mu['w']))
print(optax.tree.zeros_like({'w': rows})['w'].sharding.spec)
result = {'updates': updates['w'], 'mu': state[0].mu['w'], 'sum': cols * rows + 1}
