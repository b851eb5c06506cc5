# nnx.Einsum: kernel and bias drawn from the params stream, the bias
# broadcast to the output axes the kernel's letters name.
import jax
import jax.numpy as jnp
from flax import nnx

layer = nnx.Einsum('nta,hab->nthb', (3, 2, 4), (3, 4), rngs=nnx.Rngs(0))
print(layer.kernel.shape, layer.bias.shape)
print(layer.kernel[...][0])
x = jnp.arange(12.0).reshape(2, 3, 2) / 4
y = layer(x)
print(y.shape)
print(y[1, 2])
layer.bias[...] = jnp.arange(12.0).reshape(3, 4)
print(layer(x)[0, 0])
print(layer(x, 'nta,hab->nhtb').shape)

plain = nnx.Einsum('bi,io->bo', (2, 5), rngs=nnx.Rngs(1))
print(plain.bias)
print(plain(jnp.ones((3, 2))))

custom = nnx.Einsum(
    'ab,bc -> ac', (2, 2), (2,),
    kernel_init=nnx.initializers.ones, bias_init=nnx.initializers.constant(0.5),
    rngs=nnx.Rngs(2),
)
print(custom.einsum_str, custom.kernel_shape, custom.bias_shape)
print(custom(jnp.array([[1.0, 2.0]])))
try:
    nnx.Einsum('ab,bc', (2, 2), rngs=nnx.Rngs(0))
except ValueError as e:
    print('ValueError:', e)
try:
    nnx.Einsum('ab,bc,cd->ad', (2, 2), rngs=nnx.Rngs(0))
except ValueError as e:
    print('ValueError:', e)
