import jax
import jax.numpy as jnp
from flax import nnx


class Noisy(nnx.Module):
    def __init__(self, rngs):
        self.dense = nnx.Linear(4, 3, rngs=rngs)
        self.drop = nnx.Dropout(0.5, rngs=rngs)

    def __call__(self, x):
        return self.drop(self.dense(x))


model = Noisy(nnx.Rngs(params=0, dropout=7))
x = jnp.arange(8.0).reshape(2, 4) / 8

# Each of the 3 slices draws its own dropout mask; the weights are shared.
axes = nnx.prefix(model, {"dropout": 0, ...: None}, graph=False)


@nnx.with_rngs(split=3, only="dropout", graph=False)
@nnx.vmap(in_axes=(axes, None), out_axes=0, graph=False)
def sample(m, x):
    return m(x)


ys = sample(model, x)
print(ys.shape)
print(jnp.round(ys, 4))
print(model.drop.rngs.count[...])


# Stacked weights on axis 0, one bias for all (no rng streams: traced).
class Affine(nnx.Module):
    def __init__(self):
        self.w = nnx.Param(jnp.arange(6.0).reshape(3, 2))
        self.b = nnx.Param(jnp.array([0.5, -0.5]))
        self.calls = nnx.BatchStat(jnp.zeros(3))

    def __call__(self, x):
        self.calls[...] = self.calls[...] + 1
        return x * self.w[...] + self.b[...]


aff = Affine()
aff_axes = nnx.prefix(aff, lambda path, v: None if path[-1] == "b" else 0, graph=False)


@nnx.vmap(in_axes=(aff_axes, 0), out_axes=0, graph=False)
def apply(m, x):
    return m(x)


print(apply(aff, jnp.array([1.0, 2.0, 3.0])))
print(aff.calls[...])


# A scan whose module broadcasts its weights and a counter and scans its
# dropout streams: the counter's updates survive the loop.
class Count(nnx.Variable):
    pass


class Cell(nnx.Module):
    def __init__(self, rngs):
        self.dense = nnx.Linear(5, 3, rngs=rngs)
        self.drop = nnx.Dropout(0.3, rngs=rngs, rng_collection="loop")
        self.count = Count(jnp.array(0, jnp.uint32))

    def __call__(self, h, x):
        h = self.drop(h)
        h = jnp.tanh(self.dense(jnp.concatenate([h, x], axis=-1)))
        self.count[...] = self.count[...] + 1
        return h, h


cell = Cell(nnx.Rngs(params=1, loop=2))


def run(cell, xs):
    wide = nnx.with_rngs(cell, broadcast=xs.shape[0], graph=False)
    cell_axes = nnx.prefix(wide, {"loop": 0, ...: None}, graph=False)

    @nnx.scan(in_axes=(cell_axes, nnx.Carry, 0), out_axes=(nnx.Carry, 0), graph=False)
    def unroll(c, h, x):
        return c(h, x)

    return unroll(wide, jnp.ones((2, 3)), xs)


h, ys = run(cell, jnp.linspace(-1.0, 1.0, 4 * 2 * 2).reshape(4, 2, 2))
print(ys.shape, jnp.round(h, 4))
print(cell.count[...])


# Without rng streams the loop is traced; a broadcast counter still counts.
class Acc(nnx.Module):
    def __init__(self):
        self.scale = nnx.Param(jnp.array([1.0, 2.0, 3.0]))
        self.steps = Count(jnp.array(0))

    def __call__(self, c, s):
        self.steps[...] = self.steps[...] + 1
        return c + s * self.scale[...], c


acc = Acc()


@nnx.scan(in_axes=(nnx.prefix(acc, lambda path, v: 0 if path[-1] == "scale" else None, graph=False), nnx.Carry), out_axes=(nnx.Carry, 0), graph=False)
def go(m, c):
    return m(c, 2.0)


total, trail = go(acc, jnp.array(0.5))
print(total, trail, acc.steps[...])
result = [ys, h, total, trail]
