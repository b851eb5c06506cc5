import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import nnx
from jax.sharding import Mesh, PartitionSpec as P

mesh = Mesh(np.array(jax.devices()[:4]), ("data",))
model = nnx.Linear(3, 2, rngs=nnx.Rngs(0))
tx = optax.sgd(0.1)
params = {"w": model.kernel[...], "b": model.bias[...]}
opt_state = tx.init(params)
x = jax.random.normal(jax.random.PRNGKey(0), (8, 3))
y = jax.random.normal(jax.random.PRNGKey(1), (8, 2))


def loss_fn(p, x, y):
    return jnp.mean((x @ p["w"] + p["b"] - y) ** 2)


def step(p, s, x, y):
    loss, g = jax.value_and_grad(loss_fn)(p, x, y)
    g = jax.tree_util.tree_map(lambda t: jax.lax.pmean(t, "data"), g)
    updates, s = tx.update(g, s, p)
    return optax.apply_updates(p, updates), s, jax.lax.pmean(loss, "data")


train = jax.shard_map(step, mesh=mesh, in_specs=(P(), P(), P("data"), P("data")),
                      out_specs=(P(), P(), P()), check_vma=True)
for i in range(3):
    params, opt_state, loss = train(params, opt_state, x, y)
    print(i, loss)
print(params)
result = params
