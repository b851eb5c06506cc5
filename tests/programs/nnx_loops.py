# nnx.fori_loop and nnx.while_loop over carries that hold modules: the
# loop runs over the module's state and the module passed in is updated.
import jax
import jax.numpy as jnp
from flax import nnx


class Counter(nnx.Variable):
    pass


class Acc(nnx.Module):
    def __init__(self, rngs):
        self.linear = nnx.Linear(3, 3, rngs=rngs)
        self.steps = Counter(jnp.array(0))

    def __call__(self, x):
        self.steps[...] += 1
        return jnp.tanh(self.linear(x))


def step(i, carry):
    model, x = carry
    model.linear.bias[...] = model.linear.bias[...] + i
    return model, model(x)


model = Acc(nnx.Rngs(0))
x = jnp.array([0.5, -1.0, 2.0])
out_model, y = nnx.fori_loop(1, 4, step, (model, x))
print(out_model is model)
print(y)
print(model.steps[...], model.linear.bias[...])


def cond(carry):
    _, _, n = carry
    return n > 0


def body(carry):
    model, x, n = carry
    return model, model(x) * 2.0, n - 1


m2, y2, n = nnx.while_loop(cond, body, (model, x, 3))
print(m2 is model, n)
print(y2)
print(model.steps[...])


@nnx.jit
def run(model, x):
    _, y = nnx.fori_loop(0, 2, step, (model, x))
    return y


print(run(model, x))
print(model.steps[...], model.linear.bias[...])
