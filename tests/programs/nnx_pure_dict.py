import jax
import jax.numpy as jnp
from flax import nnx

class Model(nnx.Module):
    def __init__(self, rngs):
        self.layers = nnx.List([nnx.Linear(2, 3, rngs=rngs), nnx.Linear(3, 1, rngs=rngs)])
        self.bn = nnx.BatchNorm(3, rngs=rngs)

model = Model(nnx.Rngs(0))
state = nnx.state(model)
pure = nnx.to_pure_dict(state)
print(type(pure).__name__, list(pure.keys()), list(pure['layers'].keys()))
print(sorted(pure['layers'][0].keys()), type(pure['layers'][0]['kernel']).__name__)
print(pure['bn']['mean'])
print(jax.tree_util.tree_map(jnp.shape, pure))

shapes = nnx.to_pure_dict(state, extract_fn=lambda v: v.value.shape)
print(shapes['layers'][1])

new = jax.tree_util.tree_map(lambda x: x + 1.0, pure)
params = nnx.state(model, nnx.Param)
nnx.replace_by_pure_dict(params, {'layers': {'0': {'bias': new['layers'][0]['bias']}}})
print(params['layers'][0]['bias'][...])
print(model.layers[0].bias[...])
nnx.update(model, params)
print(model.layers[0].bias[...])

full = nnx.state(model)
nnx.replace_by_pure_dict(full, new)
graphdef = nnx.graphdef(model)
restored = nnx.merge(graphdef, full)
print(restored.bn.var[...], restored.layers[1].kernel[...][:, 0])
nnx.replace_by_pure_dict(full, {'bn': {'mean': jnp.zeros(3)}},
                         replace_fn=lambda v, x: v.replace(x - 5.0))
print(full['bn']['mean'][...])
try:
    nnx.replace_by_pure_dict(full, {'bn': {'gamma': jnp.zeros(3)}})
except ValueError as e:
    print("ValueError:", e)
result = nnx.to_pure_dict(nnx.state(restored, nnx.Param))['layers'][1]['kernel']
