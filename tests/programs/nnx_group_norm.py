import jax
import jax.numpy as jnp
from flax import nnx

x = jax.random.normal(jax.random.key(3), (2, 3, 4, 6)) * 2.0 + 0.5

gn = nnx.GroupNorm(6, num_groups=3, rngs=nnx.Rngs(0))
y = gn(x)
print(y[0, 0])
print(y.shape, y.dtype, gn.num_groups, gn.group_size, gn.feature_axis)
print(gn.scale[...], gn.bias[...], gn.epsilon, gn.reduction_axes)

gs = nnx.GroupNorm(6, num_groups=None, group_size=3, epsilon=1e-3,
                   use_fast_variance=False, rngs=nnx.Rngs(0))
print(gs.num_groups, gs.group_size)
print(gs(x)[1, 2])

flat = jax.random.uniform(jax.random.key(4), (5, 8))
g2 = nnx.GroupNorm(8, num_groups=2, use_bias=False,
                   scale_init=nnx.initializers.normal(1.0), rngs=nnx.Rngs(7))
print(g2.bias, g2.scale[...])
print(g2(flat))

seq = jax.random.normal(jax.random.key(5), (2, 5, 4))
g3 = nnx.GroupNorm(4, num_groups=2, reduction_axes=(1, 2), rngs=nnx.Rngs(1))
print(g3(seq)[1])

inn = nnx.InstanceNorm(6, rngs=nnx.Rngs(0))
yi = inn(x)
print(yi[1, 1])
print(inn.num_features, inn.feature_axes, inn.epsilon)
print(jnp.allclose(yi, nnx.GroupNorm(6, num_groups=6, rngs=nnx.Rngs(0))(x), atol=1e-6))
in2 = nnx.InstanceNorm(3, feature_axes=1, use_scale=False, epsilon=0.5,
                       bias_init=nnx.initializers.constant(0.25), rngs=nnx.Rngs(0))
print(in2(seq.transpose(0, 2, 1)[:, :3]))
print(nnx.state(in2))

# The keys a layer draws: the parameters of the next layer are Flax's.
rngs = nnx.Rngs(11)
nnx.GroupNorm(4, num_groups=2, rngs=rngs)
nnx.InstanceNorm(4, use_bias=False, rngs=rngs)
print(nnx.Linear(2, 2, rngs=rngs).kernel[...])

for bad in [dict(num_groups=4), dict(num_groups=None), dict(num_groups=2, group_size=3),
            dict(num_groups=None, group_size=4)]:
    try:
        nnx.GroupNorm(6, rngs=nnx.Rngs(0), **bad)
    except ValueError as e:
        print("ValueError:", e)
try:
    nnx.InstanceNorm(4, feature_axes=0, rngs=nnx.Rngs(0))(jnp.ones((4, 4)))
except ValueError as e:
    print("ValueError:", e)
result = gn(x[:1, :1])
