import jax
import jax.numpy as jnp
from flax import nnx


class Model(nnx.Module):
    def __init__(self, rngs):
        self.layers = nnx.List([nnx.Linear(2, 2, rngs=rngs) for _ in range(2)])
        self.scale = nnx.Param(jnp.array([1.0, 2.0]))

    def __call__(self, x):
        for layer in self.layers:
            x = nnx.tanh(layer(x))
        return x * self.scale


model = Model(nnx.Rngs(params=5))
x = jnp.array([[0.5, -1.0], [1.0, 2.0]])
print(model(x))
print(nnx.grad(lambda m: jnp.sum(m.scale * jnp.array([2.0, 0.5])))(model))
grads = nnx.grad(lambda m: jnp.sum(m(x) ** 2))(model)
for g in jax.tree_util.tree_leaves(grads):
    print(g)
state = nnx.state(model)
print(jax.tree_util.tree_map(lambda a: a.shape, state))
halved = jax.tree_util.tree_map(lambda g: g / 2, grads)
print(halved["scale"][...])
print(model.scale * 3.0)
rngs = nnx.Rngs(0)
print(rngs.params())
print(rngs())
result = {"leaves": jax.tree_util.tree_leaves(grads), "out": model(x)}
