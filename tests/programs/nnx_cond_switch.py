import jax
import jax.numpy as jnp
from flax import nnx

class Counter(nnx.Module):
    def __init__(self):
        self.count = nnx.BatchStat(jnp.array(0))
        self.total = nnx.BatchStat(jnp.array(0.0))

def add_one(c, x):
    c.count[...] += 1
    c.total[...] += x
    return x * 2.0

def add_ten(c, x):
    c.count[...] += 10
    return -x

c = Counter()
print(nnx.cond(True, add_one, add_ten, c, 3.0))
print(c.count[...], c.total[...])
print(nnx.cond(jnp.array(False), add_one, add_ten, c, 3.0))
print(c.count[...], c.total[...])

@nnx.jit
def step(c, x):
    return nnx.cond(x > 0, add_one, add_ten, c, x)

print(step(c, 1.5), step(c, -2.0))
print(c.count[...], c.total[...])

model = nnx.Linear(2, 2, rngs=nnx.Rngs(0))
x = jnp.array([1.0, -1.0])
def scale(m, x):
    m.kernel[...] *= 2.0
    return m(x)
def keep(m, x):
    return m(x)
def zero(m, x):
    m.bias[...] = jnp.ones(2)
    return m(x) * 0.0
branches = [scale, keep, zero]
print(nnx.switch(0, branches, model, x))
print(model.kernel[...])
print(nnx.switch(jnp.array(5), branches, model, x))
print(model.bias[...])
print(nnx.jit(lambda m, i, x: nnx.switch(i, branches, m, x))(model, 1, x))

def loss(m, x, flag):
    return jnp.sum(nnx.cond(flag, keep, lambda m, x: m(x) ** 2, m, x))
g = nnx.grad(loss)(model, x, False)
print(g['kernel'][...], g['bias'][...])
result = model.kernel[...]
