import jax
import jax.numpy as jnp
from flax import nnx

class Scale(nnx.Param):
  pass

class Net(nnx.Module):
  def __init__(self, rngs):
    self.lin = nnx.Linear(2, 3, rngs=rngs)
    self.s = Scale(jnp.array([1.5, -2.0, 0.5]))
    self.stat = nnx.BatchStat(jnp.zeros(3))
    self.layers = nnx.List([nnx.Linear(3, 3, use_bias=False, rngs=rngs)])

  def __call__(self, x):
    return self.layers[0](self.lin(x) * self.s) + self.stat

net = Net(nnx.Rngs(4))
x = jnp.ones((1, 2))
print(net(x))

graphdef, params, stats = nnx.split(net, nnx.Param, nnx.BatchStat)
print(params)
print(stats)
g2, special, rest = nnx.split(net, Scale, ...)
print(special)
print(list(rest.keys()))

params2 = jax.tree.map(lambda p: p * 2, params)
net2 = nnx.merge(graphdef, params2, stats)
print(net2(x))
print(net(x))

nnx.update(net, params2)
print(net(x))

print(nnx.state(net, nnx.BatchStat))
p, b = nnx.state(net, nnx.Param, nnx.BatchStat)
print(len(jax.tree.leaves(p)), len(jax.tree.leaves(b)))
print(nnx.state(net, nnx.PathContains('lin')))
print(list(nnx.state(net, nnx.All(nnx.Param, nnx.Not(Scale))).keys()))
print(nnx.state(net, lambda path, v: path[-1] == 'bias'))
print(nnx.Any(nnx.Param, 'dropout'), nnx.Not(nnx.BatchStat), nnx.All(nnx.Param, nnx.PathContains('a')))
print(nnx.filterlib.to_predicate(...), nnx.filterlib.to_predicate(None), nnx.filterlib.to_predicate(nnx.Param))
print(nnx.OfType(nnx.Param)((), nnx.Param(0)), nnx.WithTag('x')((), nnx.Param(0)))

c = nnx.clone(net)
c.s.value = jnp.zeros(3)
print(net.s.value, c.s.value)

_, flat = nnx.graph.flatten(net)
for path, v in flat:
  print(path, type(v).__name__)
st = nnx.State.from_flat_path({('a', 'b'): nnx.Param(1), ('c',): nnx.BatchStat(2)})
print(st)
try:
  nnx.split(net, nnx.Param)
except ValueError as e:
  print('ValueError')
