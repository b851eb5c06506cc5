# One data-parallel training step of the MLP of bench/train_step.py, written
# with sharded arrays instead of shard_map: the batch is split over 8 devices
# with device_put, the parameters are replicated, and jax.jit follows the
# shardings (the gradient contractions over the split batch become psums).
# bench/jax_times.py --train --train-program bench/train_step_jit_dp.py runs
# it with STEPS = 1 and STEPS = 1 + r and divides the difference by r.
import jax, jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P, AxisType
STEPS = 1
WIDTH = 1024
BATCH = 256
mesh = jax.make_mesh((8,), ('batch',), axis_types=(AxisType.Auto,))
k1, k2, k3, k4 = jax.random.split(jax.random.PRNGKey(0), 4)
params = {
    'w1': jax.random.normal(k1, (WIDTH, WIDTH)) * 0.03,
    'w2': jax.random.normal(k2, (WIDTH, WIDTH)) * 0.03,
    'w3': jax.random.normal(k3, (WIDTH, 1)) * 0.03,
}
X = jax.device_put(jax.random.normal(k4, (BATCH, WIDTH)), NamedSharding(mesh, P('batch')))
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
