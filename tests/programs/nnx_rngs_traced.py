import jax
import jax.numpy as jnp
from flax import nnx


class Noisy(nnx.Module):
    def __init__(self, rngs):
        self.linear = nnx.Linear(3, 4, rngs=rngs)
        self.drop = nnx.Dropout(0.5, rngs=rngs)
        self.rngs = rngs

    def __call__(self, x):
        return self.drop(self.linear(x)) + 0.01 * jax.random.normal(self.rngs.noise(), (4,))


model = Noisy(nnx.Rngs(params=0, dropout=5, noise=9))
graphdef, state = nnx.split(model)


@jax.jit
def step(state, x):
    m = nnx.merge(graphdef, state)
    y = m(x)
    return y, nnx.state(m)


x = jnp.ones((2, 3))
for _ in range(3):
    y, state = step(state, x)
    print(y)
nnx.update(model, state)
print(model.drop.rngs.count[...], model.rngs.noise.count[...], model.rngs.dropout.count[...])
print(model(x))
result = y
try:
    model.rngs.noise((4,))
except TypeError as e:
    print("TypeError", e)
