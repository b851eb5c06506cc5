import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
from functools import partial
mesh = Mesh(np.array(jax.devices()[:4]), ('x',))
def loss(w, x):
    def body(w, xs):
        return jax.lax.psum(jnp.sum((xs * w) ** 2), 'x')
    return jax.shard_map(body, mesh=mesh, in_specs=(P(), P('x')), out_specs=P())(w, x)
w = jnp.array(0.5)
x = jnp.arange(8.0)
val, g = jax.value_and_grad(loss)(w, x)
print(val, g)
ref = jax.grad(lambda w, x: jnp.sum((x * w) ** 2))(w, x)
print(ref)
result = [val, g, ref]
