# Forking, splitting and broadcasting rng streams whose keys are traced
# (inside nnx.jit), and nnx.fork_rngs / split_rngs in both update modes.
import jax
import jax.numpy as jnp
from flax import nnx


@nnx.jit
def forked_draws(rngs):
    f = rngs.dropout.fork()
    s = rngs.params.split(3)
    b = rngs.params.broadcast(2)
    return f(), jax.random.key_data(s.key[...]), jax.random.key_data(b.key[...]), rngs.params()


rngs = nnx.Rngs(params=0, dropout=1)
a, s, b, p = forked_draws(rngs)
print(jax.random.key_data(a))
print(s)
print(b)
print(jax.random.key_data(p))
print(rngs.params.count[...], rngs.dropout.count[...])


class Cell(nnx.Module):
    def __init__(self, rngs):
        self.linear = nnx.Linear(6, 4, rngs=rngs)
        self.drop = nnx.Dropout(0.5, rngs=rngs)

    def __call__(self, h, x):
        h = self.drop(h)
        y = nnx.relu(self.linear(jnp.concatenate([h, x], axis=-1)))
        return y, y


cell = Cell(nnx.Rngs(params=0, dropout=7))


@nnx.jit(graph=False)
def unrolled(cell, x):
    h = jnp.ones((x.shape[0], 4))
    bcell = nnx.with_rngs(cell, broadcast=x.shape[1], graph=False)
    axes = nnx.prefix(bcell, {'dropout': 0, ...: None}, graph=False)

    @nnx.scan(in_axes=(axes, nnx.Carry, 1), out_axes=(nnx.Carry, 1), graph=False)
    def run(c, h, x):
        return c(h, x)

    _, ys = run(bcell, h, x)
    return ys


ys = unrolled(cell, jnp.linspace(-1.0, 1.0, 2 * 5 * 2).reshape(2, 5, 2))
print(ys.shape)
print(ys[0, :, 0])
print(ys[1, :, 1])


@nnx.jit
def split_draws(rngs):
    backups = nnx.fork_rngs(rngs, split={'params': 2})
    k1 = jax.random.key_data(rngs.params.key[...])
    k2 = jax.random.key_data(rngs.dropout.key[...])
    nnx.restore_rngs(backups)
    with nnx.split_rngs(rngs, splits=4, only='dropout'):
        k3 = jax.random.key_data(rngs.dropout.key[...])
    return k1, k2, k3, rngs.dropout()


for out in split_draws(nnx.Rngs(params=3, dropout=4)):
    print(out)

rngs = nnx.Rngs(params=0, dropout=1)
backups = nnx.fork_rngs(rngs)
print(jax.random.key_data(rngs.params.key[...]), rngs.params.count[...])
print(jax.random.uniform(rngs.dropout(), (3,)))
nnx.restore_rngs(backups)
print(jax.random.key_data(rngs.params.key[...]), rngs.params.count[...])

copy = nnx.fork_rngs(rngs, split=2, graph_updates=False)
print(jax.random.key_data(copy.params.key[...]), copy.params.count[...])
print(jax.random.key_data(rngs.params.key[...]), rngs.params.count[...])
copy = nnx.split_rngs(rngs, splits=3, only='params', graph_updates=False)
print(jax.random.key_data(copy.params.key[...]).shape, copy.dropout.count[...])


@nnx.fork_rngs(split=2)
def shapes(rngs):
    return rngs.params.key[...].shape, rngs.dropout.count[...].shape


print(shapes(rngs))
print(rngs.params.key[...].shape, rngs.params.count[...])
