import functools

import jax
import jax.numpy as jnp
import flax.linen as nn


# Residual blocks stacked along axis 0, one set of parameters per layer,
# each drawn from its own split of the params key.
class ResidualBlock(nn.Module):
    @nn.compact
    def __call__(self, x, _):
        h = nn.relu(nn.Dense(features=2)(x))
        return x + h, None


class ResidualStack(nn.Module):
    n_layers: int = 4

    @nn.compact
    def __call__(self, x):
        Stacked = nn.scan(
            ResidualBlock,
            variable_axes={"params": 0},
            variable_broadcast=False,
            split_rngs={"params": True},
            length=self.n_layers,
        )
        x, _ = Stacked()(x, None)
        return x


stack = ResidualStack(n_layers=4)
v = stack.init(jax.random.key(42), jnp.ones((1, 2)))
print(jax.tree_util.tree_map(jnp.shape, v))
print(v["params"]["ScanResidualBlock_0"]["Dense_0"]["kernel"])
print(stack.apply(v, jnp.arange(6.0).reshape(3, 2)))


# An LSTM cell scanned over axis 1 with its parameters shared by every step.
class ScannedLSTM(nn.Module):
    features: int

    @nn.compact
    def __call__(self, x):
        Scanned = nn.scan(
            nn.LSTMCell,
            variable_broadcast="params",
            split_rngs={"params": False},
            in_axes=1,
            out_axes=1,
        )
        lstm = Scanned(self.features)
        carry = lstm.initialize_carry(jax.random.key(0), x[:, 0].shape)
        carry, y = lstm(carry, x)
        return y


x = jax.random.normal(jax.random.key(1), (2, 5, 3))
lstm = ScannedLSTM(features=4)
y, v = lstm.init_with_output(jax.random.key(0), x)
print(jax.tree_util.tree_map(jnp.shape, v))
print(y[:, -1])
print(lstm.apply(v, x * 2)[:, -1])


# The function form: the cell is passed to the scanned function.
class FunctionLSTM(nn.Module):
    features: int

    @nn.compact
    def __call__(self, x):
        cell = nn.LSTMCell(self.features)

        def body(cell, carry, x):
            return cell(carry, x)

        scan = nn.scan(
            body, variable_broadcast="params", split_rngs={"params": False}, in_axes=1, out_axes=1
        )
        carry = cell.initialize_carry(jax.random.key(0), x[:, 0].shape)
        return scan(cell, carry, x)[1]


f = FunctionLSTM(features=4)
vf = f.init(jax.random.key(0), x)
print(jax.tree_util.tree_map(jnp.shape, vf))
print(f.apply(vf, x)[0])


# Dropout keys split per step, a broadcast argument, outputs stacked along
# axis 1, reversed and unrolled by two.
class Block(nn.Module):
    features: int

    @nn.compact
    def __call__(self, c, x, scale):
        h = nn.Dense(self.features)(x) * scale
        h = nn.Dropout(0.5, deterministic=False)(h)
        return c + h.sum(), h


class Blocks(nn.Module):
    @nn.compact
    def __call__(self, xs):
        Scanned = nn.scan(
            Block,
            variable_axes={"params": 0},
            split_rngs={"params": True, "dropout": True},
            in_axes=(0, nn.broadcast),
            out_axes=1,
            reverse=True,
            unroll=2,
        )
        return Scanned(3, name="layers")(jnp.zeros(()), xs, 2.0)


xs = jax.random.normal(jax.random.key(3), (4, 2, 5))
blocks = Blocks()
vb = blocks.init({"params": jax.random.key(0), "dropout": jax.random.key(1)}, xs)
print(jax.tree_util.tree_map(lambda a: (a.shape, a.dtype), vb))
print(vb["params"]["layers"]["Dense_0"]["kernel"][:, 0])
c, ys = blocks.apply(vb, xs, rngs={"dropout": jax.random.key(7)})
print(c, ys.shape)
print(ys[:, 1])


# The decorator form on a compact method, with a raw PRNGKey.
class Encoder(nn.Module):
    @functools.partial(
        nn.scan, variable_broadcast="params", split_rngs={"params": False}, in_axes=1, out_axes=1
    )
    @nn.compact
    def __call__(self, carry, x):
        y = nn.tanh(nn.Dense(4)(jnp.concatenate([carry, x], -1)))
        return y, y * 2


enc = Encoder()
x2 = jax.random.normal(jax.random.key(4), (2, 3, 6))
c0 = jnp.zeros((2, 4))
ve = enc.init(jax.random.PRNGKey(5), c0, x2)
print(jax.tree_util.tree_map(jnp.shape, ve))
ce, ye = enc.apply(ve, c0, x2)
print(ce)
print(ye[1])


# A fixed number of steps with no scanned input; parameters stacked on axis 1.
class Step(nn.Module):
    @nn.compact
    def __call__(self, c, _):
        w = self.param("w", nn.initializers.normal(1.0), (3,))
        return c * w, c.sum()


class Loop(nn.Module):
    @nn.compact
    def __call__(self, c):
        Scanned = nn.scan(Step, variable_axes={"params": 1}, split_rngs={"params": True}, length=5)
        return Scanned()(c, None)


loop = Loop()
vl = loop.init(jax.random.key(9), jnp.ones(3))
print(jax.tree_util.tree_map(jnp.shape, vl))
cl, sums = loop.apply(vl, jnp.ones(3))
print(cl, sums)
result = ys
