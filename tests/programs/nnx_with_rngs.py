import jax
import jax.numpy as jnp
from flax import nnx


def show(r):
    for name in ("params", "dropout", "noise"):
        s = getattr(r, name)
        print(name, s.key.shape, s.count[...], jax.random.key_data(s.key[...]).ravel()[:4])


rngs = nnx.Rngs(params=0, dropout=1, noise=2)
show(nnx.with_rngs(rngs, split=3, graph=False))
print("after split", rngs.params.count[...], rngs.dropout.count[...])

rngs = nnx.Rngs(params=0, dropout=1, noise=2)
show(nnx.with_rngs(rngs, split={"params": 4, ...: (2, 2)}, graph=False))

rngs = nnx.Rngs(params=0, dropout=1, noise=2)
show(nnx.with_rngs(rngs, split={"params": 2}, fork=nnx.Not("params"), graph=False))

rngs = nnx.Rngs(params=0, dropout=1, noise=2)
show(nnx.with_rngs(rngs, broadcast=3, only="dropout", graph=False))
b = nnx.with_rngs(rngs, broadcast={"noise": (2,)}, graph=False)
print(jnp.array_equal(jax.random.key_data(b.noise.key[...][0]), jax.random.key_data(b.noise.key[...][1])))
print(b.params(), b.noise.count[...])


class Model(nnx.Module):
    def __init__(self, rngs):
        self.linear = nnx.Linear(2, 3, rngs=rngs)
        self.drop = nnx.Dropout(0.5, rngs=rngs)


m = Model(nnx.Rngs(params=0, dropout=1))
m2 = nnx.with_rngs(m, split=5, only="dropout", graph=False)
print(m2.drop.rngs.key.shape, m.drop.rngs.key.shape, m2.linear.kernel is m.linear.kernel)


@nnx.with_rngs(split=2, graph=False)
def shapes(model, scale=1):
    return model.drop.rngs.key.shape, model.drop.rngs.count[...] * scale


print(shapes(m, scale=2))
print(m.drop.rngs.count[...])

try:
    nnx.with_rngs(rngs, split={"params": 2}, fork="params", graph=False)
except ValueError as e:
    print("ValueError", e)
try:
    nnx.with_rngs(rngs, split=2)
except NotImplementedError as e:
    print("NotImplementedError", e)
result = m2.drop.rngs.count[...]
try:
    b.noise()
except ValueError as e:
    print("ValueError", e)
