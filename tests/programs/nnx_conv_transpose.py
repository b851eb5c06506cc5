import jax
import jax.numpy as jnp
from flax import nnx

x = jax.random.normal(jax.random.key(0), (2, 5, 5, 3))

ct = nnx.ConvTranspose(3, 4, kernel_size=(3, 3), strides=2, rngs=nnx.Rngs(0))
y = ct(x)
print(y.shape, y.dtype, ct.kernel.shape, ct.kernel_shape, ct.strides, ct.padding)
print(y[0, :3, :3, 0])
print(ct.kernel[...][1, 2])

v = nnx.ConvTranspose(3, 2, kernel_size=(3, 3), strides=(2, 1), padding='VALID', use_bias=False,
                      rngs=nnx.Rngs(1))
yv = v(x)
print(yv.shape, v.bias)
print(yv[1, :, 2, 1])

t = nnx.ConvTranspose(3, 2, kernel_size=(2, 3), strides=2, transpose_kernel=True,
                      bias_init=nnx.initializers.constant(0.5), rngs=nnx.Rngs(2))
print(t.kernel.shape)
print(t(x)[0, 1])

p = nnx.ConvTranspose(3, 2, kernel_size=(3, 3), padding=((1, 0), (2, 1)),
                      kernel_dilation=2, rngs=nnx.Rngs(3))
yp = p(x)
print(yp.shape)
print(yp[1, 2, :4])

c = nnx.ConvTranspose(3, 2, kernel_size=(3,), strides=2, padding='CIRCULAR', rngs=nnx.Rngs(4))
seq = x[:, :, 0]
yc = c(seq)
print(yc.shape)
print(yc[0])
ct2 = nnx.ConvTranspose(3, 2, kernel_size=(2,), strides=3, padding='CIRCULAR',
                        transpose_kernel=True, rngs=nnx.Rngs(4))
print(ct2(seq)[1])

# Unbatched and doubly batched inputs.
one = nnx.ConvTranspose(3, 2, kernel_size=2, rngs=nnx.Rngs(5))
print(one(seq[0]).shape, one(jnp.stack([seq, seq])).shape)
print(jnp.allclose(one(seq[0]), one(seq)[0]))

rngs = nnx.Rngs(6)
nnx.ConvTranspose(2, 2, kernel_size=2, rngs=rngs)
print(nnx.Linear(2, 2, rngs=rngs).kernel[...])

m = nnx.ConvTranspose(3, 2, kernel_size=2, mask=jnp.ones((2, 2, 2)), rngs=nnx.Rngs(0))
try:
    m(seq)
except ValueError as e:
    print("ValueError:", e)
result = jnp.sum(y)
