# nnx.Conv's padding modes that pad the input before a VALID convolution
# (CIRCULAR, REFLECT, CAUSAL) and a masked kernel.
import jax
import jax.numpy as jnp
from flax import nnx

x = jax.random.normal(jax.random.key(0), (2, 6, 3))
for mode in ['CIRCULAR', 'REFLECT', 'CAUSAL']:
  layer = nnx.Conv(3, 2, kernel_size=(3,), padding=mode, rngs=nnx.Rngs(1))
  y = layer(x)
  print(mode, y.shape)
  print(y[1])

dilated = nnx.Conv(3, 2, kernel_size=(2,), kernel_dilation=2, padding='CIRCULAR',
                   rngs=nnx.Rngs(2))
print(dilated(x)[0, :3])

img = jax.random.normal(jax.random.key(3), (1, 5, 4, 2))
conv2 = nnx.Conv(2, 3, kernel_size=(3, 2), strides=2, padding='CIRCULAR',
                 rngs=nnx.Rngs(4))
print(conv2(img).shape)
print(conv2(img)[0, 1])
print(nnx.Conv(2, 3, kernel_size=(3, 3), padding='REFLECT', rngs=nnx.Rngs(4))(img)[0, 4])
print(nnx.Conv(2, 3, kernel_size=(3, 3), padding='CIRCULAR', rngs=nnx.Rngs(4))(img[0]).shape)

mask = jnp.tril(jnp.ones((3, 3, 2)))
masked = nnx.Conv(3, 2, kernel_size=(3,), mask=mask, padding='VALID', rngs=nnx.Rngs(5))
print(masked(x)[0])
try:
  nnx.Conv(3, 2, kernel_size=(2,), mask=mask, rngs=nnx.Rngs(5))(x)
except ValueError as e:
  print(e)
try:
  nnx.Conv(2, 3, kernel_size=(3, 3), padding='CAUSAL', rngs=nnx.Rngs(4))(img)
except ValueError as e:
  print(e)
result = masked(x)
