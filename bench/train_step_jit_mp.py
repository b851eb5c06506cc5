# One model-parallel (Megatron-style) training step of the MLP of
# bench/train_step.py with sharded arrays: w1 is split by columns and w2 by
# rows over 8 devices, the batch is replicated, and jax.jit follows the
# shardings (the second layer's contraction over the split hidden dimension
# becomes a psum). bench/jax_times.py --train --train-program
# bench/train_step_jit_mp.py times it as bench/train_step.py.
import jax, jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P, AxisType
STEPS = 1
WIDTH = 1024
BATCH = 256
mesh = jax.make_mesh((8,), ('model',), axis_types=(AxisType.Auto,))
k1, k2, k3, k4 = jax.random.split(jax.random.PRNGKey(0), 4)
put = lambda x, spec: jax.device_put(x, NamedSharding(mesh, spec))
params = {
    'w1': put(jax.random.normal(k1, (WIDTH, WIDTH)) * 0.03, P(None, 'model')),
    'w2': put(jax.random.normal(k2, (WIDTH, WIDTH)) * 0.03, P('model', None)),
    'w3': jax.random.normal(k3, (WIDTH, 1)) * 0.03,
}
X = jax.random.normal(k4, (BATCH, WIDTH))
Y = jnp.sum(X[:, :4], axis=1, keepdims=True)
def loss_fn(p, x, y):
    h = jnp.tanh(x @ p['w1'])
    h = jnp.tanh(h @ p['w2'])
    return jnp.mean((h @ p['w3'] - y) ** 2)
@jax.jit
def step(p, x, y):
    l, g = jax.value_and_grad(loss_fn)(p, x, y)
    return jax.tree_util.tree_map(lambda a, b: a - 0.01 * b, p, g), l
for i in range(STEPS):
    params, l = step(params, X, Y)
print(f"loss after {STEPS} step(s): {float(l):.6f}")
