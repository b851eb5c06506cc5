import jax
import jax.numpy as jnp
from flax import nnx
from jax.sharding import PartitionSpec as P

# An initializer wrapped with metadata returns the array and the metadata;
# a variable made from it keeps both.
init = nnx.with_metadata(nnx.initializers.normal(0.5), optimizer_sharding=P('a', None), note='w')
meta = init(jax.random.key(3), (3, 2), jnp.float32)
print(type(meta).__name__, meta.metadata)
print(meta.raw_value.shape, meta.on_set_value)

p = nnx.Param(meta, tag=1)
print(p.get_metadata())
print(p.get_metadata('note'), p.get_metadata('absent', 0), p.optimizer_sharding)
print(p.get_metadata(exclude_required=True))

layer = nnx.Linear(3, 2, kernel_init=init, rngs=nnx.Rngs(5))
print(layer.kernel)
print(layer.bias)
nnx.display(layer.kernel)
result = layer.kernel.value
print(jax.tree.structure(p))
print(jax.tree.structure(nnx.state(layer)))
