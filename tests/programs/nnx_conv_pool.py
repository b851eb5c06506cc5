import jax, jax.numpy as jnp
from jax import lax
from flax import nnx
conv = nnx.Conv(3, 4, kernel_size=(3, 3), rngs=nnx.Rngs(0))
print(conv.kernel.value.shape, conv.bias.value.shape)
print(conv.kernel.value[:, :, 0, 1])
x = jnp.sin(jnp.arange(2 * 6 * 5 * 3, dtype=jnp.float32) * 0.3).reshape(2, 6, 5, 3)
y = conv(x)
print(y.shape, y[1, :, :, 2])
c2 = nnx.Conv(3, 6, kernel_size=2, strides=2, padding='VALID', feature_group_count=3, use_bias=False, rngs=nnx.Rngs(1))
print(c2.kernel.value.shape, c2.bias, c2(x)[0, :, :, 5])
c3 = nnx.Conv(3, 2, kernel_size=(2, 3), padding=((1, 0), (2, 1)), kernel_dilation=(2, 1),
              kernel_init=nnx.initializers.normal(0.5), bias_init=nnx.initializers.constant(0.25), rngs=nnx.Rngs(params=7))
print(c3(x[0]).shape, c3(x[0])[:, :, 1])
c1 = nnx.Conv(2, 3, kernel_size=(4,), padding=1, rngs=nnx.Rngs(3))
print(c1(jnp.cos(jnp.arange(20.0)).reshape(2, 5, 2))[1])
print(nnx.avg_pool(x, window_shape=(2, 2), strides=(2, 2))[0, :, :, 0])
print(nnx.max_pool(x, (3, 2), strides=(1, 2), padding='SAME')[1, :, :, 1])
print(nnx.avg_pool(x[0], (2, 2), padding=((1, 0), (0, 1)))[:, :, 2])
print(lax.reduce_window(x, 0.0, lax.add, (1, 2, 2, 1), (1, 1, 2, 1), 'VALID')[0, :, :, 0])
print(lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 1, 1), (1, 2, 1, 1), ((0, 0), (1, 1), (0, 0), (0, 0)))[1, :, :, 2])
print(jax.make_jaxpr(lambda v: nnx.avg_pool(v, (2, 2), strides=(2, 2)))(x))
def loss(m, v):
    return (nnx.avg_pool(jax.nn.relu(m(v)), (2, 2), strides=(2, 2)) ** 2).mean()
g = nnx.grad(loss)(conv, x)
print(g['kernel'].value[:, :, 1, 0], g['bias'].value)
gx = jax.grad(lambda v: nnx.avg_pool(v, (3, 2), strides=(2, 1), padding='SAME').sum())(x)
print(gx[0, :, :, 0])
print(jax.jit(lambda v: conv(v))(x)[0, 0])
class CNN(nnx.Module):
    def __init__(self, rngs):
        self.c = nnx.Conv(1, 4, kernel_size=(3, 3), rngs=rngs)
        self.l = nnx.Linear(4 * 4 * 4, 3, rngs=rngs)
    def __call__(self, v):
        v = nnx.avg_pool(nnx.relu(self.c(v)), window_shape=(2, 2), strides=(2, 2))
        return self.l(v.reshape(v.shape[0], -1))
m = CNN(nnx.Rngs(0))
imgs = jnp.cos(jnp.arange(2 * 8 * 8, dtype=jnp.float32) * 0.7).reshape(2, 8, 8, 1)
print(m(imgs))
import optax
opt = nnx.Optimizer(m, optax.sgd(0.1), wrt=nnx.Param)
@nnx.jit
def step(m, opt, v):
    l, gr = nnx.value_and_grad(lambda mm: (mm(v) ** 2).mean())(m)
    opt.update(m, gr)
    return l
print(step(m, opt, imgs), step(m, opt, imgs))
try:
    nnx.max_pool(x, (2, 2), strides=(1,))
except AssertionError as e:
    print("AssertionError", e)
result = [y, g['kernel'].value, gx, m(imgs)]
