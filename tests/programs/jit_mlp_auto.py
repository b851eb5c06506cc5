# An MLP under jit whose parameters and batch are placed with NamedSharding:
# the batch's rows split over 'data', the first layer's columns and the
# second layer's rows over 'model' (Megatron's layout). jit follows the
# shardings of its arguments: each device computes with its own blocks, and
# the compiler inserts the collectives where an operation needs data that
# other devices hold. The page lists them under each jit call, with the line
# of the operation that needed them.
import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

mesh = Mesh(np.array(jax.devices()[:8]).reshape(2, 4), ('data', 'model'))

def place(a, *spec):
    return jax.device_put(a, NamedSharding(mesh, P(*spec)))

k1, k2, k3 = jax.random.split(jax.random.key(0), 3)
params = {
    'w1': place(jax.random.normal(k1, (4, 8)) * 0.5, None, 'model'),
    'w2': place(jax.random.normal(k2, (8, 2)) * 0.5, 'model', None),
}
x = place(jax.random.normal(k3, (8, 4)), 'data', None)
y = place(jnp.stack([x[:, 0] - x[:, 1], x[:, 2] * 0.5], axis=1), 'data', None)

def loss_fn(params, x, y):
    h = jnp.tanh(x @ params['w1'])     # split over 'data' and 'model'
    out = h @ params['w2']             # contracts 'model': partial sums
    return jnp.mean((out - y) ** 2)    # the mean needs every row

@jax.jit
def step(params, x, y):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    new = jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)
    return new, loss

for i in range(3):
    params, loss = step(params, x, y)
    print(i, loss)
print(jax.typeof(params['w1']), params['w1'].sharding.spec)
print(jax.typeof(params['w2']), params['w2'].sharding.spec)
result = {'loss': loss, 'w1': params['w1'], 'w2': params['w2']}
