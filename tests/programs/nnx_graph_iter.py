# Walking nnx graphs: iter_graph, iter_modules, iter_children,
# iter_module_children, and the state helpers filter_state / split_state.
import jax
import jax.numpy as jnp
from flax import nnx


class Pair(nnx.Module):
    def __init__(self, rngs):
        self.first = nnx.Linear(2, 3, rngs=rngs)
        self.second = nnx.Linear(3, 2, use_bias=False, rngs=rngs)


class Net(nnx.Module):
    def __init__(self, rngs):
        self.pair = Pair(rngs)
        self.norm = nnx.BatchNorm(2, rngs=rngs)
        self.drop = nnx.Dropout(0.1)
        self.scale = nnx.Param(jnp.ones((2,)))
        self.depth = 3


net = Net(nnx.Rngs(0))
for path, m in nnx.iter_modules(net):
    print(path, type(m).__name__)
for key, child in nnx.iter_children(net):
    print(key, type(child).__name__)
for key, child in nnx.iter_module_children(net):
    print(key, type(child).__name__)
print(list(nnx.iter_module_children(nnx.Linear(2, 2, rngs=nnx.Rngs(1)))))


class Stack(nnx.Module):
    def __init__(self, rngs):
        self.layers = nnx.List([nnx.Linear(2, 2, rngs=rngs), nnx.Linear(2, 1, rngs=rngs)])


print([path for path, _ in nnx.iter_modules(Stack(nnx.Rngs(2)))])
print([key for key, _ in nnx.iter_module_children(Stack(nnx.Rngs(2)))])


class Tiny(nnx.Module):
    def __init__(self):
        self.w = nnx.Param(jnp.arange(3.0))
        self.n = 4


tiny = Tiny()
for path, value in nnx.iter_graph([tiny, {'again': tiny, 'x': 1.5}]):
    print(path, type(value).__name__)

state = nnx.state(net)
params = nnx.filter_state(state, nnx.Param)
print(sorted(params.keys()))
stats, params2 = nnx.filter_state(state, nnx.BatchStat, nnx.Param)
print(jax.tree.map(jnp.shape, stats))
print(len(jax.tree.leaves(params2)), len(jax.tree.leaves(params)))
p, s = nnx.split_state(state, nnx.Param, nnx.BatchStat)
print(jax.tree.map(jnp.shape, p['pair']))
print(jax.tree.map(jnp.sum, s))
