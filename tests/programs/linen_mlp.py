import jax
import jax.numpy as jnp
import flax.linen as nn


class MLP(nn.Module):
    hidden: int
    out: int = 2

    @nn.compact
    def __call__(self, x):
        x = nn.Dense(self.hidden)(x)
        x = nn.relu(x)
        x = nn.Dense(self.hidden)(x)
        x = nn.tanh(x)
        return nn.Dense(self.out, use_bias=False)(x)


model = MLP(4)
x = jnp.arange(6.0).reshape(2, 3) / 3.0 - 0.5
variables = model.init(jax.random.PRNGKey(1), x)
print(jax.tree_util.tree_map(lambda a: a.shape, variables))
print(variables["params"]["Dense_0"]["kernel"])
y = model.apply(variables, x)
print(y)

def loss(params):
    return jnp.mean(model.apply(params, x) ** 2)

g = jax.grad(loss)(variables)
print(jax.tree_util.tree_map(lambda a: a.shape, g))
print(g["params"]["Dense_2"]["kernel"])
result = {"y": y, "grads": g}
