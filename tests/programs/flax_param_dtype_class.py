# Flax layers default their param_dtype to jnp.float32, the class: it prints
# as one, is jnp.float32, and is what an initializer is given as its dtype.
import jax
import jax.numpy as jnp
import flax.linen as nn
from flax import nnx

seen = []


def init(key, shape, dtype):
    seen.append(dtype)
    return jnp.ones(shape, dtype)


rngs = nnx.Rngs(0)
layer = nnx.Linear(2, 3, kernel_init=init, rngs=rngs)
print(layer.param_dtype, repr(layer.param_dtype), layer.dtype, layer.param_dtype is jnp.float32)
print(seen, seen[0] == jnp.float32, seen[0] == layer.kernel[...].dtype)
print(nnx.Embed(3, 2, rngs=rngs).param_dtype, nnx.LayerNorm(3, rngs=rngs).param_dtype)
print(nnx.Conv(2, 2, kernel_size=(3,), rngs=rngs).param_dtype, nnx.LinearGeneral(2, 3, rngs=rngs).param_dtype)
explicit = nnx.Linear(2, 3, param_dtype=jnp.float32, rngs=rngs)
print(explicit.param_dtype, explicit.kernel[...].dtype, nnx.MultiHeadAttention(2, 4, decode=False, rngs=rngs).param_dtype)
print(nn.Embed(3, 2).param_dtype, nn.LayerNorm().param_dtype)
text = repr(layer)
print("param_dtype=float32" in text, "<class" in text)
result = float(layer(jnp.ones((1, 2))).sum())
