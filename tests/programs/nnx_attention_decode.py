# Autoregressive decoding with nnx.MultiHeadAttention's cache, checked
# against attending over the whole causal sequence, and LinearGeneral on
# its own.
import jax
import jax.numpy as jnp
from flax import nnx

mha = nnx.MultiHeadAttention(num_heads=2, in_features=4, qkv_features=6,
                             out_features=5, rngs=nnx.Rngs(7))
x = jax.random.normal(jax.random.key(3), (3, 4, 4))
mha.init_cache(x.shape)
print(jax.tree.map(jnp.shape, nnx.state(mha, nnx.Cache)))
steps = [mha(x[:, i:i + 1], decode=True) for i in range(4)]
print(mha.cache_index[...])
decoded = jnp.concatenate(steps, axis=1)
full = mha(x, mask=nnx.make_causal_mask(x[..., 0]), decode=False)
print(jnp.allclose(decoded, full, atol=1e-5))
print(decoded[2, 3])

try:
  mha(x[:, :2], decode=True)
except ValueError as e:
  print(e)

fresh = nnx.MultiHeadAttention(num_heads=1, in_features=4, rngs=nnx.Rngs(0))
try:
  fresh(x)
except ValueError as e:
  print('no decode given')

lg = nnx.LinearGeneral((2, 3), 4, axis=(-2, -1), rngs=nnx.Rngs(1))
print(lg.kernel.shape, lg.bias.shape)
print(lg.kernel[1, 2])
y = jnp.arange(12.0).reshape(2, 2, 3)
print(lg(y))
lg2 = nnx.LinearGeneral(3, (2, 2), axis=0, use_bias=False,
                        kernel_init=nnx.initializers.ones, rngs=nnx.Rngs(1))
print(lg2(jnp.ones((3, 5))).shape, lg2.bias)
result = lg(y)
