import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import nnx
from jax.sharding import Mesh, PartitionSpec as P

mesh = Mesh(np.array(jax.devices()[:4]), ("data",))
model = nnx.Linear(3, 2, rngs=nnx.Rngs(0))
optimizer = nnx.Optimizer(model, optax.adam(0.05), wrt=nnx.Param)
x = jax.random.normal(jax.random.PRNGKey(0), (8, 3))
y = jax.random.normal(jax.random.PRNGKey(1), (8, 2))


def step(model, optimizer, x, y):
    loss, grads = nnx.value_and_grad(lambda m: jnp.mean((m(x) - y) ** 2))(model)
    grads = jax.tree_util.tree_map(lambda g: jax.lax.pmean(g, "data"), grads)
    optimizer.update(model, grads)
    return model, optimizer, jax.lax.pmean(loss, "data")


train = jax.shard_map(step, mesh=mesh, in_specs=(P(), P(), P("data"), P("data")),
                      out_specs=(P(), P(), P()))
for i in range(3):
    model, optimizer, loss = train(model, optimizer, x, y)
    print(i, loss)
print(model.kernel[...])
print(optimizer.step[...])
result = [model.kernel[...], model.bias[...]]
