import jax
import jax.numpy as jnp
from flax import nnx

class Block(nnx.Module):
  def __init__(self, rngs):
    self.lin = nnx.Linear(3, 4, rngs=rngs)
    self.norm = nnx.BatchNorm(4, rngs=rngs)
    self.drop = nnx.Dropout(0.5, rngs=rngs)
    self.extra = nnx.data([nnx.Linear(4, 2, rngs=rngs), {'w': nnx.Param(jnp.ones(2)), 'n': 3}])

  def __call__(self, x):
    return self.extra[0](self.drop(self.norm(self.lin(x))))

model = Block(nnx.Rngs(0))

def show(path, node):
  if isinstance(node, (nnx.Module, nnx.Variable, list, dict)):
    print(path, type(node).__name__)
  return node

same = nnx.recursive_map(show, model)
print(same is model, same.lin is model.lin, same.lin.kernel is model.lin.kernel)
print(same.extra is model.extra, same.extra[1]['w'] is model.extra[1]['w'])

def double_linears(path, node):
  if isinstance(node, nnx.Linear):
    return nnx.Sequential(node, node)
  return node

twice = nnx.recursive_map(double_linears, model)
print(type(twice.lin).__name__, twice.lin.layers[0] is model.lin)
print(type(model.lin).__name__)

eval_model = nnx.view(model, deterministic=True, use_running_average=True)
train_model = nnx.view(model, deterministic=False, use_running_average=False)
print(eval_model.drop.deterministic, eval_model.norm.use_running_average)
print(train_model.drop.deterministic, model.drop.deterministic, model.norm.use_running_average)
x = jax.random.normal(jax.random.key(1), (5, 3))
y_train = train_model(x)
print(model.norm.mean[...])
y_eval = eval_model(x)
print(y_eval)
print(nnx.view(model, only=nnx.Dropout, deterministic=True).drop.deterministic)

class Custom(nnx.Module):
  def __init__(self):
    self.mode = 'a'
    self.inner = nnx.Dropout(0.1)

  def set_view(self, mode=None):
    if mode is not None:
      self.mode = mode

c = nnx.view(Custom(), mode='b', deterministic=True)
print(c.mode, c.inner.deterministic)
for bad in [lambda: nnx.view(model, foo=1, bar=2), lambda: nnx.view(Custom(), use_running_average=True)]:
  try:
    bad()
  except ValueError as e:
    print(type(e).__name__, e)
print(nnx.view(Custom(), foo=1, raise_if_not_found=False).mode)
result = y_eval
