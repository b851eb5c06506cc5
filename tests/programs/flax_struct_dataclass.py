# flax.struct: frozen dataclasses that are pytrees. `pytree_node=False`
# fields are static (kept with the node, untouched by tree.map and jit),
# `replace` makes an updated copy, and PyTreeNode subclasses are made
# dataclasses by the class statement.
import dataclasses
from typing import Any, Callable

import jax
import jax.numpy as jnp
from flax import struct


@struct.dataclass
class Model:
    params: Any
    apply_fn: Callable = struct.field(pytree_node=False)
    scale: float = 2.0


def apply(p, x):
    return p['w'] * x + p['b']


m = Model({'w': jnp.array([1.0, 2.0]), 'b': jnp.float32(0.5)}, apply)
print(m.scale, type(m).__name__, dataclasses.is_dataclass(m))
leaves, treedef = jax.tree_util.tree_flatten(m)
print(len(leaves), [jnp.shape(l) for l in leaves])
doubled = jax.tree.map(lambda a: a * 2, m)
print(doubled.params['w'], doubled.params['b'], doubled.scale, doubled.apply_fn is apply)
m2 = m.replace(scale=3.0)
print(m.scale, m2.scale, m2.params is m.params)
try:
    m.scale = 5.0
except dataclasses.FrozenInstanceError as e:
    print('frozen:', type(e).__name__, e)


@jax.jit
def run(model, x):
    return model.apply_fn(model.params, x) * model.scale


print(run(m, jnp.array([3.0, 4.0])))
g = jax.grad(lambda mm: jnp.sum(run(mm, jnp.array([3.0, 4.0]))))(m)
print(type(g).__name__, g.params['w'], g.params['b'], g.scale)


class State(struct.PyTreeNode):
    step: int
    count: jax.Array
    name: str = struct.field(pytree_node=False, default='opt')

    def bump(self):
        return self.replace(step=self.step + 1, count=self.count + 1)


s = State(step=0, count=jnp.zeros(2))
s = s.bump().bump()
print(s.step, s.count, s.name, isinstance(s, struct.PyTreeNode))
print(jax.tree.leaves(s))
print(s == State(2, s.count, 'opt'), s.replace(name='other').name)


class Child(State):
    extra: float = 1.0


c = Child(1, jnp.ones(2))
print(c.extra, c.name, len(jax.tree.leaves(c)))


@struct.dataclass(frozen=False)
class Mutable:
    x: Any

mu = Mutable(jnp.ones(1))
mu.x = jnp.zeros(1)
print(mu.x, jax.tree.leaves(mu))
result = float(jnp.sum(g.params['w']))
