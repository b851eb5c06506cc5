import jax
import jax.numpy as jnp
import flax.linen as nn


class Block(nn.Module):
    features: int

    @nn.compact
    def __call__(self, x):
        return nn.gelu(nn.Dense(self.features)(x)) + x


class Net(nn.Module):
    width: int
    depth: int

    @nn.compact
    def __call__(self, x):
        x = nn.Dense(self.width, name="embed")(x)
        for _ in range(self.depth):
            x = Block(self.width)(x)
        return nn.Dense(1)(x)


net = Net(width=3, depth=2)
x = jnp.ones((2, 2))
params = net.init(jax.random.key(3), x)
print(jax.tree_util.tree_map(lambda a: a.shape, params))
out = net.apply(params, x)
print(out)
print(params["params"]["Block_1"]["Dense_0"]["kernel"])
dense = nn.Dense(2)
p = dense.init(jax.random.PRNGKey(0), jnp.ones((1, 4)))
print(p)
result = {"out": out, "dense": p}
