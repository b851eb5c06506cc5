import jax
import jax.numpy as jnp
import flax.linen as nn


class CheckpointedMLP(nn.Module):
    @nn.checkpoint
    @nn.compact
    def __call__(self, x):
        x = nn.relu(nn.Dense(8)(x))
        return nn.Dense(1)(x)


x = jax.random.normal(jax.random.key(1), (3, 4))
mlp = CheckpointedMLP()
v = mlp.init(jax.random.key(0), x)
print(jax.tree_util.tree_map(jnp.shape, v))
print(mlp.apply(v, x))
g = jax.grad(lambda p: mlp.apply(p, x).sum())(v)
print(g["params"]["Dense_1"]["kernel"][:, 0])


# The class form, with a static argument and a policy; dropout keys are
# drawn as a direct call draws them.
class Block(nn.Module):
    features: int

    @nn.compact
    def __call__(self, x, train):
        x = nn.Dense(self.features)(x)
        return nn.Dropout(0.3, deterministic=not train)(x)


class Net(nn.Module):
    @nn.compact
    def __call__(self, x, train=True):
        RematBlock = nn.remat(
            Block, static_argnums=(2,), policy=jax.checkpoint_policies.nothing_saveable
        )
        x = RematBlock(5)(x, train)
        PlainBlock = nn.remat(Block, static_argnums=(2,))
        return nn.Dense(2)(PlainBlock(3, name="plain")(x, False))


net = Net()
keys = {"params": jax.random.key(2), "dropout": jax.random.key(3)}
v2 = net.init(keys, x)
print(jax.tree_util.tree_map(jnp.shape, v2))
y = net.apply(v2, x, rngs={"dropout": jax.random.key(4)})
print(y)
print(nn.remat(Block).__name__, nn.checkpoint(Block).__name__)


# The function form over a module passed in.
class Outer(nn.Module):
    @nn.compact
    def __call__(self, x):
        dense = nn.Dense(2)
        f = nn.remat(lambda mdl, x: nn.tanh(mdl(x)))
        return f(dense, x)


o = Outer()
vo = o.init(jax.random.key(5), x)
print(jax.tree_util.tree_map(jnp.shape, vo))
print(o.apply(vo, x))
result = y
