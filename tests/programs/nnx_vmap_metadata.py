# nnx.vmap's transform_metadata and axis_size: a stacked layer's sharding
# names gain the mapped axis (named or None) where its variables leave the
# transform and lose it where they enter one, with Flax's error when the
# entry removed is another name; axis_size maps a function none of whose
# arguments is mapped. Stacked layers then run under lax.scan and jit.
import jax, jax.numpy as jnp, optax
from flax import nnx
from jax.sharding import PartitionSpec as P, AxisType

mesh = jax.make_mesh((2, 4), ('data', 'model'), axis_types=(AxisType.Auto,) * 2)
init = nnx.initializers.lecun_normal()


class Block(nnx.Module):
    def __init__(self, rngs):
        self.lin = nnx.Linear(4, 8, kernel_init=nnx.with_partitioning(init, (None, 'model')),
                              rngs=rngs)
        self.w = nnx.Param(jnp.ones((8, 4)), out_sharding=('model', None), eager_sharding=False)
        self.plain = nnx.Param(jnp.zeros((3,)))


@nnx.vmap(transform_metadata={nnx.PARTITION_NAME: 'layer'})
def make(r):
    return Block(r)


with jax.set_mesh(mesh):
    stack = make(nnx.Rngs(0).fork(split=3))
print(stack.lin.kernel.shape, stack.lin.kernel.out_sharding, stack.w.out_sharding)
print(hasattr(stack.plain, 'out_sharding'), stack.lin.kernel.sharding.spec)
print(stack.lin.kernel[1, 0])


@nnx.vmap(in_axes=(0, None), transform_metadata={nnx.PARTITION_NAME: 'layer'})
def apply(block, x):
    print('inside', block.lin.kernel.out_sharding, block.w.out_sharding)
    return block.lin(x) @ block.w[...]


out = apply(stack, jnp.ones((2, 4)))
print(out.shape, bool(jnp.allclose(out[2, 0], (jnp.ones(4) @ stack.lin.kernel[2] + stack.lin.bias[2]) @ stack.w[2])))
print(stack.lin.kernel.out_sharding)


@nnx.vmap(in_axes=(0, None), transform_metadata={nnx.PARTITION_NAME: 'other'})
def apply2(block, x):
    return block.lin(x)


try:
    apply2(stack, jnp.ones((2, 4)))
except ValueError as e:
    print('ValueError:', e)


@nnx.vmap(in_axes=None, out_axes=1, axis_size=2, transform_metadata={nnx.PARTITION_NAME: 'layer'})
def make2(x):
    return Block(nnx.Rngs(0))


with jax.set_mesh(mesh):
    s2 = make2(jnp.ones(3))
print(s2.lin.kernel.shape, s2.lin.kernel.out_sharding, s2.w.out_sharding)


@nnx.vmap(axis_size=3, in_axes=None)
def const(x):
    return x * 2


print(const(jnp.arange(2.)))
print(nnx.vmap(lambda a, b: a * b, in_axes=(0, None), axis_size=2)(jnp.arange(2.), 3.))


@nnx.vmap(transform_metadata={nnx.PARTITION_NAME: None, 'extra': 'e'})
def make3(r):
    return Block(r)


with jax.set_mesh(mesh):
    s3 = make3(nnx.Rngs(0).fork(split=2))
print(s3.lin.kernel.out_sharding, s3.w.out_sharding)


class DotRelu(nnx.Module):
    def __init__(self, depth, rngs):
        self.dot1 = nnx.Linear(depth, depth, use_bias=False, rngs=rngs,
                               kernel_init=nnx.with_partitioning(init, (None, 'model')))
        self.w2 = nnx.Param(init(rngs.params(), (depth, depth)), out_sharding=('model', None))

    def __call__(self, x):
        y = jax.nn.relu(self.dot1(x))
        y = jax.lax.with_sharding_constraint(y, P('data', 'model'))
        return jnp.dot(y, self.w2[...])


class Stacked(nnx.Module):
    def __init__(self, depth, n, rngs):
        @nnx.vmap(transform_metadata={nnx.PARTITION_NAME: None})
        def layers(r):
            return DotRelu(depth, r)
        self.layers = layers(rngs.fork(split=n))

    def __call__(self, x):
        x, _ = jax.lax.scan(lambda x, layer: (layer(x), None), x, self.layers)
        return x


@jax.jit
def train_step(model, optimizer, x, y):
    loss, grads = jax.value_and_grad(lambda m: jnp.mean((m(x) - y) ** 2))(model)
    optimizer.update(model, grads)
    return model, loss


with jax.set_mesh(mesh):
    x = jax.device_put(jax.random.normal(jax.random.key(1), (8, 16)), P('data', None))
    y = jax.device_put(jax.random.normal(jax.random.key(2), (8, 16)), P('data', None))
    model = Stacked(16, 2, rngs=nnx.Rngs(0))
    print(model.layers.dot1.kernel.out_sharding, model.layers.w2.out_sharding)
    print(model.layers.dot1.kernel.sharding.spec, model.layers.w2.sharding.spec)
    optimizer = nnx.Optimizer(model, optax.adam(1e-2), wrt=nnx.Param)
    for _ in range(3):
        model, loss = train_step(model, optimizer, x, y)
        print(round(float(loss), 5))
    print(model.layers.w2.sharding.spec, model.layers.w2[1, 0, :4])
