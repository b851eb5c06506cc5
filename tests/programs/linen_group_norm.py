# linen GroupNorm (num_groups, group_size, custom reduction axes, no scale,
# custom initializers, an input with extra axes) and InstanceNorm (default
# and two feature axes, without bias); parameter trees and outputs; Flax's
# errors for bad groups, reduction axes missing the channels, and feature
# axes holding the batch.
import jax
import jax.numpy as jnp
import flax.linen as nn

x = jnp.cos(jnp.arange(2 * 3 * 4 * 6, dtype=jnp.float32).reshape(2, 3, 4, 6)) * 3 + 1


def show(name, layer, inputs):
    out, variables = layer.init_with_output(jax.random.key(1), inputs)
    print(name, jax.tree.map(jnp.shape, variables), out.shape)
    print(jnp.round(out.reshape(-1)[:6], 5))
    again = layer.apply(variables, inputs * 2)
    print(jnp.round(again.reshape(-1)[-4:], 5))
    return variables


show('groups', nn.GroupNorm(num_groups=3), x)
show('size', nn.GroupNorm(num_groups=None, group_size=3, epsilon=1e-3), x)
show('one group', nn.GroupNorm(1, use_scale=False), x[:, 0])
show('reduction', nn.GroupNorm(2, reduction_axes=(-2, -1), use_fast_variance=False), x)
v = show('inits', nn.GroupNorm(2, scale_init=nn.initializers.normal(0.5),
                               bias_init=nn.initializers.uniform()), x)
print(jnp.round(v['params']['scale'], 5), jnp.round(v['params']['bias'], 5))
show('instance', nn.InstanceNorm(), x)
show('instance axes', nn.InstanceNorm(feature_axes=(1, -1), use_bias=False), x)
show('instance slow', nn.InstanceNorm(epsilon=1e-2, use_fast_variance=False), x[:, :, 0])


class Block(nn.Module):
    @nn.compact
    def __call__(self, x):
        y = nn.GroupNorm(num_groups=2)(nn.Dense(4)(x))
        return nn.InstanceNorm(name='inorm')(nn.swish(y))


bv = show('block', Block(), x)
g = jax.grad(lambda p: jnp.sum(Block().apply({'params': p}, x) * x[..., :4]))(bv['params'])
print(jax.tree.map(lambda a: jnp.round(a, 4), g['GroupNorm_0']))
for bad in [nn.GroupNorm(4), nn.GroupNorm(num_groups=None, group_size=4),
            nn.GroupNorm(num_groups=2, group_size=3), nn.GroupNorm(num_groups=None),
            nn.GroupNorm(2, reduction_axes=(1, 2)), nn.InstanceNorm(feature_axes=(0, -1))]:
    try:
        bad.init(jax.random.key(0), x)
    except ValueError as e:
        print('ValueError:', e)
result = nn.GroupNorm(2).apply({'params': bv['params']['GroupNorm_0']}, x[..., :4])
