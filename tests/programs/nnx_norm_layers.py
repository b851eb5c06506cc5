import jax
import jax.numpy as jnp
from flax import nnx

rngs = nnx.Rngs(0)
bn = nnx.BatchNorm(4, momentum=0.9, rngs=rngs)
x = jax.random.normal(jax.random.key(1), (6, 4)) * 3.0 + 1.0
y = bn(x)
print(y)
print(bn.mean[...])
print(bn.var[...])
y2 = bn(x * 2.0, use_running_average=True)
print(y2)
print(bn.mean.get_value())

bn3 = nnx.BatchNorm(3, axis=1, use_running_average=False, epsilon=1e-3, rngs=rngs)
z = jax.random.uniform(jax.random.key(2), (2, 3, 5))
print(bn3(z))
print(bn3.var[...])

ln = nnx.LayerNorm(5, rngs=rngs)
print(ln(z))
ln2 = nnx.LayerNorm(5, use_bias=False, epsilon=0.1, rngs=rngs)
print(ln2(z))
print(ln2.bias)

rms = nnx.RMSNorm(5, rngs=rngs)
print(rms(z))
print(rms.scale[...])

lin = nnx.Linear(5, 2, rngs=rngs)
print(lin.kernel[...])

state = nnx.state(bn, nnx.BatchStat)
print(jax.tree_util.tree_map(lambda a: a.shape, state))
print(len(jax.tree_util.tree_leaves(nnx.state(bn3, nnx.Param))))
