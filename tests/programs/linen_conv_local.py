# linen ConvLocal (an unshared kernel and bias per output position) with
# 'VALID', 'SAME', 'CIRCULAR' and explicit padding, strides, dilations, a
# mask, no bias, unbatched and doubly batched inputs; its parameters from
# init, its outputs from apply and its gradient; lax's
# conv_general_dilated_patches and conv_general_dilated_local directly;
# nnx.List is not a list.
import jax
import jax.numpy as jnp
from jax import lax
import flax.linen as nn

x = jnp.sin(jnp.arange(2 * 6 * 5 * 3, dtype=jnp.float32) * 0.7).reshape(2, 6, 5, 3)


def show(name, layer, inp, seed=0):
    out, v = layer.init_with_output(jax.random.key(seed), inp)
    print(name, jax.tree.map(jnp.shape, v), out.shape)
    print(out.reshape(-1)[:6])
    print(v['params']['kernel'].reshape(-1)[-3:])
    return v


v = show('valid 1d', nn.ConvLocal(4, (3,), padding='VALID'), x[:, 0])
show('same 2d', nn.ConvLocal(3, (3, 2)), x)
show('circular strided', nn.ConvLocal(2, (3, 3), strides=2, padding='CIRCULAR'), x, 1)
show('pairs dilated', nn.ConvLocal(2, (2, 2), padding=((1, 0), (2, 1)), kernel_dilation=(2, 1)), x, 2)
show('input dilation', nn.ConvLocal(2, (2, 2), padding=((0, 1), (1, 0)), input_dilation=2, use_bias=False), x[:, :3, :3])
try:
    nn.ConvLocal(2, (2, 2), padding='VALID', input_dilation=2).init(jax.random.key(0), x)
except ValueError as e:
    print('ValueError', e)
show('unbatched', nn.ConvLocal(2, (2,), padding='VALID'), x[0, 0])
show('two batch dims', nn.ConvLocal(2, (3,), padding='VALID'), x[:, :, 0])
mask = jnp.tril(jnp.ones((3, 9, 4)))
show('masked', nn.ConvLocal(4, (3,), mask=mask, padding='VALID'), x[:, 0])

layer = nn.ConvLocal(4, (3,), padding='VALID')
loss = lambda p, a: (layer.apply(p, a) ** 2).sum()
g = jax.grad(loss)(v, x[:, 0])
print(g['params']['kernel'][1, :3], g['params']['bias'][0])
print(jax.jit(layer.apply)(v, x[:, 1])[1, 2])

try:
    nn.ConvLocal(4, (3,), feature_group_count=3).init(jax.random.key(0), x[:, 0])
except NotImplementedError as e:
    print('NotImplementedError', e)
try:
    nn.ConvLocal(4, (3,), mask=jnp.ones((2, 2)), padding='VALID').init(jax.random.key(0), x[:, 0])
except ValueError as e:
    print('ValueError', e)

p = lax.conv_general_dilated_patches(x, (2, 3), (1, 2), 'SAME', dimension_numbers=('NHWC', 'HWIO', 'NHWC'))
print(p.shape, p[1, 2, 1, :8])
q = lax.conv_general_dilated_patches(jnp.moveaxis(x, 3, 1), (3, 2), (2, 1), [(1, 1), (0, 1)], rhs_dilation=(1, 2))
print(q.shape, q[0, :, 1, 2])
w = jnp.cos(jnp.arange(3 * 2 * 18 * 2, dtype=jnp.float32)).reshape(3, 2, 18, 2)
y = lax.conv_general_dilated_local(x, w, (2, 2), 'VALID', (2, 3), dimension_numbers=('NHWC', 'HWIO', 'NHWC'))
print(y.shape, y[1])
wc = jnp.cos(jnp.arange(2 * 18 * 6 * 5, dtype=jnp.float32) * 0.3).reshape(2, 18, 6, 5)
print(lax.conv_general_dilated_local(jnp.moveaxis(x, 3, 1), wc, (1, 1), 'SAME', (3, 2), rhs_dilation=(1, 2), dimension_numbers=('NCHW', 'OIHW', 'NCHW'))[0, 1])

from flax import nnx
lst = nnx.List([1, 2])
print(isinstance(lst, list), isinstance(lst, (list, tuple)), isinstance(lst, (tuple, nnx.List)), isinstance(lst, object), type(lst), isinstance([1], nnx.List))
