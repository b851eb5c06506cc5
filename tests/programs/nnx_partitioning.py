# Flax's sharding annotations: with_partitioning on an initializer (inside
# and outside jit), eager sharding on and off, the Rngs initializer methods
# and nnx.nn.linear's defaults; variables drawn with visualize_array_sharding.
import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P
from flax import nnx

mesh = jax.make_mesh((2, 4), ('data', 'model'))
print(nnx.using_eager_sharding())
rngs = nnx.Rngs(0)
with jax.set_mesh(mesh):
    w = nnx.Param(rngs.lecun_normal()((4, 8)), out_sharding=(None, 'model'))
    print(w.sharding.spec)
    jax.debug.visualize_array_sharding(w)
    with nnx.use_eager_sharding(False):
        print(nnx.using_eager_sharding())
        v = nnx.Param(jnp.ones((4, 8)), out_sharding=(None, 'model'))
        print(v)
    print(nnx.using_eager_sharding())


@jax.jit
def make(key):
    init = nnx.with_partitioning(nnx.nn.linear.default_kernel_init, (None, 'model'))
    return nnx.Linear(4, 8, use_bias=False, rngs=nnx.Rngs(key), kernel_init=init)


with jax.set_mesh(mesh):
    layer = make(rngs())
    print(layer.kernel.sharding.spec, layer.kernel.get_metadata()['out_sharding'])
    print(layer.kernel[...].sum())
    y = jax.jit(lambda m, x: m(x))(layer, jax.device_put(jnp.ones((16, 4)), P('data', None)))
    print(y.sharding.spec)
print(rngs.glorot_uniform()((2, 3)), rngs.default.he_normal()((3,2)).shape)
print(nnx.nn.linear.default_bias_init(rngs(), (3,)))
result = layer.kernel[...]
