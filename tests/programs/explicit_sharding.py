# Explicit sharding: over a mesh whose axes are Explicit, where an array
# lives is part of its type. jax.typeof shows it (float32[8@data,4]), every
# operation says where its result goes, and moving data between devices is
# written in the program (out_sharding=, jax.sharding.reshard) rather than
# chosen by the compiler.
import jax, jax.numpy as jnp
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((2, 4), ('data', 'model'), axis_types=(AxisType.Explicit, AxisType.Explicit))
jax.sharding.set_mesh(mesh)

x = jax.device_put(jnp.arange(32.0).reshape(8, 4), P('data', None))
w = jax.device_put(jnp.arange(16.0).reshape(4, 4) / 8, P(None, 'model'))
print(jax.typeof(x), jax.typeof(w))

@jax.jit
def layer(x, w):
    # x's rows stay split over 'data', w's columns over 'model': the product
    # is split both ways, and its type says so.
    h = x @ w
    print('h inside jit:', jax.typeof(h))
    # Ask for the rows alone: out_sharding makes the result P('data', None).
    y = jnp.matmul(x, w, out_sharding=P('data', None))
    return h, y

h, y = layer(x, w)
print(jax.typeof(h), jax.typeof(y))

# reshard moves an array to another layout: columns over 'model' now.
z = jax.sharding.reshard(y, P(None, 'model'))
print(jax.typeof(z), z.sharding.spec)

# A sum over the split rows: the result's type keeps the columns' split.
s = jax.jit(lambda a: a.sum(axis=0))(z)
print(jax.typeof(s))
result = {'h': h, 'y': y, 'z': z, 's': s}
