import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
from functools import partial
mesh = Mesh(np.array(jax.devices()[:4]), ('batch',))
X = jnp.linspace(-2.0, 2.0, 32).reshape(16, 2)
Y = X @ jnp.array([1.5, -0.5]) + 0.25
params = {'w': jnp.zeros(2), 'b': jnp.array(0.0)}
def loss_fn(p, x, y):
    return jnp.mean((x @ p['w'] + p['b'] - y) ** 2)
@partial(jax.shard_map, mesh=mesh, in_specs=(P(), P('batch'), P('batch')), out_specs=(P(), P()), check_vma=False)
def step(p, x, y):
    l, g = jax.value_and_grad(loss_fn)(p, x, y)
    g = jax.lax.pmean(g, 'batch')
    l = jax.lax.pmean(l, 'batch')
    return jax.tree_util.tree_map(lambda a, b: a - 0.1 * b, p, g), l
losses = []
for i in range(20):
    params, l = step(params, X, Y)
    losses.append(float(l))
print(f"final loss {losses[-1]:.6f}")
print(params)
result = {'params': params, 'first': losses[0], 'last': losses[-1]}
