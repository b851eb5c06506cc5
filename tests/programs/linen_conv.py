# linen convolutions made inside __call__ from the first input: Conv with
# 'SAME'/'VALID'/'CIRCULAR'/'REFLECT'/'CAUSAL', int and pair padding,
# strides, kernel and input dilation, feature groups, no bias, an input
# without a batch dimension and one with two; ConvTranspose with strides,
# 'CIRCULAR' and transpose_kernel; a weight mask and Flax's mask error;
# parameters printed as shape trees and digits.
import jax
import jax.numpy as jnp
import flax.linen as nn

key = jax.random.key(0)
x = jnp.sin(jnp.arange(2 * 6 * 6 * 3, dtype=jnp.float32).reshape(2, 6, 6, 3))


def show(name, layer, inputs, k=key):
    out, variables = layer.init_with_output(k, inputs)
    print(name, jax.tree.map(jnp.shape, variables), out.shape)
    print(jnp.round(out.reshape(-1)[:5], 5))
    again = layer.apply(variables, inputs)
    print(bool(jnp.all(again == out)))
    return variables, out


v, _ = show('same', nn.Conv(4, (3, 3)), x)
print(jnp.round(v['params']['kernel'][0, 0], 5), v['params']['bias'])
show('valid strided', nn.Conv(features=5, kernel_size=(2, 3), strides=(2, 1), padding='VALID'), x)
show('circular', nn.Conv(2, (3, 3), padding='CIRCULAR', use_bias=False), x)
show('reflect', nn.Conv(2, 3, padding='REFLECT'), x[0, 0])
show('causal', nn.Conv(3, (3,), padding='CAUSAL', kernel_dilation=2), x[:, 0])
show('int pad', nn.Conv(2, (3, 3), padding=1, kernel_dilation=(1, 2)), x)
show('pairs', nn.Conv(2, (2, 2), padding=((1, 0), (0, 2)), input_dilation=2), x)
show('groups', nn.Conv(6, (3, 3), feature_group_count=3), x, jax.random.key(3))
show('unbatched', nn.Conv(3, (3, 3)), x[0])
show('two batch dims', nn.Conv(3, (3,)), x[:, :, 0])
mask = jnp.tril(jnp.ones((3, 3, 4)))
show('masked', nn.Conv(4, 3, mask=mask, padding='VALID'), x[:, 0])
show('transpose', nn.ConvTranspose(4, (3, 3), strides=(2, 2)), x)
show('transpose valid', nn.ConvTranspose(features=2, kernel_size=(3,), padding='VALID'), x[:, 0])
show('transpose circular', nn.ConvTranspose(2, (4, 4), strides=(2, 2), padding='CIRCULAR', transpose_kernel=True), x)
show('transpose dilated', nn.ConvTranspose(2, (2, 2), kernel_dilation=(2, 1), use_bias=False), x)


class Net(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.relu(nn.Conv(8, (3, 3), strides=2)(x))
        x = nn.ConvTranspose(3, (3, 3), strides=(2, 2))(x)
        return nn.Conv(1, (1, 1), name='head')(x)


net_vars, net_out = show('net', Net(), x, jax.random.key(7))
print(jnp.round(net_vars['params']['head']['kernel'].reshape(-1), 5))
grads = jax.grad(lambda p: jnp.sum(Net().apply({'params': p}, x) ** 2))(net_vars['params'])
print(jax.tree.map(lambda g: jnp.round(jnp.sum(g), 4), grads))
try:
    nn.Conv(4, 3, mask=jnp.ones((3, 2, 4))).init(key, x[:, 0])
except ValueError as e:
    print('ValueError:', e)
result = net_out
