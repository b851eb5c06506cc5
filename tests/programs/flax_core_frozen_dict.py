# flax.core.FrozenDict: an immutable mapping that prints indented, freezes
# nested dicts (reading one gives a FrozenDict), copies and pops into new
# FrozenDicts, and is a pytree node (tree.map keeps it a FrozenDict).
import jax
import jax.numpy as jnp
from flax.core import FrozenDict, freeze, unfreeze, copy, pop, pretty_repr
from flax.core import frozen_dict

variables = freeze({'params': {'w': jnp.ones((2,)), 'b': jnp.zeros(())}, 'count': 3})
print(variables)
print(type(variables['params']).__name__, variables['params']['w'], variables['count'])
print(len(variables), 'params' in variables, 'x' in variables, list(variables))
print(variables.keys(), variables.get('missing', 7))
try:
    variables['count'] = 4
except ValueError as e:
    print('ValueError:', e)
rest, params = variables.pop('params')
print(rest, type(params).__name__, sorted(params))
bigger = variables.copy({'extra': {'z': 1}})
print(sorted(bigger), type(bigger['extra']).__name__, len(variables))
plain = unfreeze(variables)
print(type(plain).__name__, type(plain['params']).__name__, plain['count'])
plain['params']['w'] = 5
print(variables['params']['w'])
print(jax.tree.map(jnp.shape, variables))
doubled = jax.tree.map(lambda x: x * 2, variables)
print(type(doubled).__name__, doubled['count'], doubled['params']['w'])
print(jax.tree_util.tree_structure(FrozenDict({'b': 1, 'a': 2})))
print(jax.tree.leaves(FrozenDict({'b': 1, 'a': 2})))
paths = jax.tree_util.tree_flatten_with_path(FrozenDict({'b': 1, 'a': {'c': 2}}))[0]
print([jax.tree_util.keystr(p) for p, _ in paths])
print(FrozenDict(a=1, b=FrozenDict(c=2)) == {'a': 1, 'b': {'c': 2}})
print(pretty_repr({'a': {'b': 1}, 'c': []}, num_spaces=2))
print(FrozenDict({}).pretty_repr(), FrozenDict({'k': {}}))
print(copy({'a': 1}, {'b': 2}), pop({'a': 1, 'b': 2}, 'a'))
print(frozen_dict.FrozenDict is FrozenDict, isinstance(variables, FrozenDict))
g = jax.grad(lambda v: jnp.sum(v['w'] * 3.0 + v['b']))(variables['params'])
print(type(g).__name__, g['w'], g['b'])
result = float(jnp.sum(doubled['params']['w']))
