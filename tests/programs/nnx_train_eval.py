# Module.train / eval / set_attributes and nnx.with_attributes switch
# Dropout and BatchNorm between training and evaluation behaviour.
import jax
import jax.numpy as jnp
from flax import nnx


class MLP(nnx.Module):
    def __init__(self, rngs):
        self.linear = nnx.Linear(4, 3, rngs=rngs)
        self.bn = nnx.BatchNorm(3, rngs=rngs)
        self.drop = nnx.Dropout(0.5, rngs=rngs)

    def __call__(self, x):
        return self.drop(self.bn(self.linear(x)))


model = MLP(nnx.Rngs(0))
x = jnp.arange(8.0).reshape(2, 4) / 8
print(model.drop.deterministic, model.bn.use_running_average)
model.eval()
print(model.drop.deterministic, model.bn.use_running_average)
print(model(x))
model.train()
print(model.drop.deterministic, model.bn.use_running_average)
print(jnp.round(model(x), 3))
print(model.bn.mean[...])

model.set_attributes(deterministic=True)
print(model.drop.deterministic, model.bn.use_running_average)
model.set_attributes(nnx.BatchNorm, use_running_average=True, raise_if_not_found=False)
print(model.drop.deterministic, model.bn.use_running_average)
try:
    model.set_attributes(not_there=1)
except ValueError as e:
    print('ValueError:', e)
model.eval(momentum=0.5)
print(model.bn.momentum)

view = nnx.with_attributes(model, deterministic=False, use_running_average=False)
print(view.drop.deterministic, model.drop.deterministic, view.bn.use_running_average)
print(view.linear.kernel is model.linear.kernel)
only = nnx.with_attributes(
    model, only=nnx.Dropout, deterministic=False, use_running_average=False, raise_if_not_found=False
)
print(only.drop.deterministic, only.bn.use_running_average)
try:
    nnx.with_attributes(model, missing=3)
except ValueError as e:
    print('ValueError:', e)
