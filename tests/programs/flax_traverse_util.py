# Flattening and unflattening nested parameter dicts with
# flax.traverse_util and nnx.traversals, and renaming paths on the way.
import jax
import jax.numpy as jnp
import flax
from flax import nnx, traverse_util

params = {'encoder': {'dense': {'kernel': jnp.ones((2, 3)), 'bias': jnp.zeros(3)},
                      'norm': {}},
          'head': {'w': jnp.arange(3.0)}, 'step': 4}
flat = traverse_util.flatten_dict(params)
print(list(flat))
print(list(traverse_util.flatten_dict(params, sep='/')))
kept = traverse_util.flatten_dict(params, keep_empty_nodes=True)
print(list(kept))
print(kept[('encoder', 'norm')] is traverse_util.empty_node)
back = traverse_util.unflatten_dict(kept)
print(jax.tree.map(jnp.shape, back))
print(traverse_util.unflatten_dict(traverse_util.flatten_dict(params, sep='.'), sep='.').keys())
leafy = traverse_util.flatten_dict(params, is_leaf=lambda path, x: path == ('encoder', 'dense'))
print(list(leafy))

scaled = traverse_util.path_aware_map(
    lambda path, x: x * 2 if 'kernel' in path else x, params)
print(scaled['encoder']['dense']['kernel'][0], scaled['encoder']['norm'], scaled['step'])

renamed = {tuple('layer' if k == 'dense' else k for k in path): v
           for path, v in flat.items()}
print(jax.tree.map(jnp.shape, traverse_util.unflatten_dict(renamed)))

model = nnx.Linear(2, 3, rngs=nnx.Rngs(0))
state = nnx.state(model)
print(list(nnx.traversals.flatten_mapping(state)))
seq = nnx.traversals.flatten_to_sequence({'a': {'b': 1, 'c': {'d': 2}}, 'e': 3})
print(seq)
print(nnx.traversals.unflatten_mapping(seq))
print(nnx.traversals.unflatten_mapping({'x/y': 1, 'x/z': 2}, sep='/'))
print(nnx.traversals.flatten_mapping({'a': {}, 'b': 1}, keep_empty_nodes=True)[('a',)]
      is traverse_util.empty_node)
print(flax.traverse_util.flatten_dict({'q': {'r': 5}}, sep='-'))
try:
  traverse_util.flatten_dict([1, 2])
except AssertionError as e:
  print('AssertionError', e)
result = traverse_util.unflatten_dict(flat)['encoder']['dense']['kernel']
