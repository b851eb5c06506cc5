# One data-parallel training step of a 3-layer MLP with 1024-wide hidden
# layers on a global batch of 256 over 8 devices: the gradients (about 8 MiB
# of float32) are averaged with pmean. bench/jax_times.py --train runs it
# with STEPS = 1 and STEPS = 1 + r in JAX and in `shardlab run` and divides
# the difference by r.
import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
from functools import partial
STEPS = 1
WIDTH = 1024
BATCH = 256
mesh = Mesh(np.array(jax.devices()[:8]), ('batch',))
k1, k2, k3, k4 = jax.random.split(jax.random.PRNGKey(0), 4)
params = {
    'w1': jax.random.normal(k1, (WIDTH, WIDTH)) * 0.03,
    'w2': jax.random.normal(k2, (WIDTH, WIDTH)) * 0.03,
    'w3': jax.random.normal(k3, (WIDTH, 1)) * 0.03,
}
X = jax.random.normal(k4, (BATCH, WIDTH))
Y = jnp.sum(X[:, :4], axis=1, keepdims=True)
def loss_fn(p, x, y):
    h = jnp.tanh(x @ p['w1'])
    h = jnp.tanh(h @ p['w2'])
    return jnp.mean((h @ p['w3'] - y) ** 2)
@jax.jit
@partial(jax.shard_map, mesh=mesh, in_specs=(P(), P('batch'), P('batch')), out_specs=(P(), P()), check_vma=False)
def step(p, x, y):
    l, g = jax.value_and_grad(loss_fn)(p, x, y)
    g = jax.lax.pmean(g, 'batch')
    l = jax.lax.pmean(l, 'batch')
    return jax.tree_util.tree_map(lambda a, b: a - 0.01 * b, p, g), l
for i in range(STEPS):
    params, l = step(params, X, Y)
print(f"loss after {STEPS} step(s): {float(l):.6f}")
