# What a loss function writes into a module's non-differentiated variables
# (BatchNorm's running statistics, a counter of its own) leaves nnx.grad and
# nnx.value_and_grad with the values computed, not as tracers.
import jax
import jax.numpy as jnp
from flax import nnx


class Counter(nnx.Variable):
    pass


class Net(nnx.Module):
    def __init__(self, rngs):
        self.dense = nnx.Linear(3, 2, rngs=rngs)
        self.norm = nnx.BatchNorm(2, momentum=0.5, use_running_average=False, rngs=rngs)
        self.calls = Counter(jnp.array(0))
        self.last = Counter(jnp.zeros((2,)))

    def __call__(self, x):
        self.calls.value = self.calls.value + 1
        h = self.norm(self.dense(x))
        self.last.value = h.mean(axis=0) * 10.0
        return h


model = Net(nnx.Rngs(3))
x = jnp.arange(12.0).reshape(4, 3) / 4.0


def loss_fn(m):
    return (m(x) * jnp.array([[1.0], [2.0], [3.0], [5.0]])).sum()


loss, grads = nnx.value_and_grad(loss_fn)(model)
print("loss", loss)
print("mean", model.norm.mean[...])
print("var", model.norm.var[...])
print("calls", model.calls[...])
print("scale grad", grads["norm"]["scale"][...], "bias grad", grads["norm"]["bias"][...])

g = nnx.grad(loss_fn)(model)
print("calls after grad", model.calls[...])
print("mean after grad", model.norm.mean[...])


def loss_aux(m):
    y = m(x)
    return (y * x[:, :2]).mean(), (y.shape, "batch", y[0])


(l2, shape), g2 = nnx.value_and_grad(loss_aux, has_aux=True)(model)
print("aux", l2, shape)
print("calls after aux", model.calls[...])
print("var after aux", model.norm.var[...])
result = {
    "mean": model.norm.mean[...],
    "var": model.norm.var[...],
    "bias_grad": g2["norm"]["bias"][...],
}


# jax.value_and_grad hands back an aux output's Python leaves as they are.
def plain(w):
    return (w ** 2).sum(), {"n": 3, "tag": "sq", "half": w / 2, "none": None}


v, aux = jax.value_and_grad(plain, has_aux=True)(jnp.array([1.0, 2.0]))
print(v, aux)
