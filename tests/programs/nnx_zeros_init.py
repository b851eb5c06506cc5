# Flax's initializer factories zeros_init()/ones_init() (nnx, linen and
# linen.initializers) give the shape-only initializers; used as a layer's
# kernel_init/bias_init they fill the parameters.
import jax
import jax.numpy as jnp
from flax import nnx
import flax.linen as nn

z, o = nnx.initializers.zeros_init(), nnx.initializers.ones_init()
key = jax.random.key(0)
print(z(key, (2, 3)), o(key, (2,), jnp.int32))
print(nn.zeros_init()(key, (1, 2)), nn.initializers.ones_init()(key, (2,), jnp.float16))
print(z is nnx.initializers.zeros, nn.ones_init() is nn.initializers.ones, nnx.PARTITION_NAME)
layer = nnx.Linear(3, 2, kernel_init=nnx.initializers.ones_init(), bias_init=nnx.initializers.zeros_init(), rngs=nnx.Rngs(0))
print(layer.kernel.value, layer.bias.value)
print(layer(jnp.array([[1.0, 2.0, 3.0]])))
dense = nn.Dense(2, kernel_init=nn.ones_init(), bias_init=nn.zeros_init())
v = dense.init(key, jnp.ones((1, 3)))
print(v)
result = dense.apply(v, jnp.array([[0.5, 1.0, -1.0]]))
