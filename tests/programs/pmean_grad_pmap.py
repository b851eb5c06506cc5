import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
from functools import partial
def body(w, xs):
    g = jax.grad(lambda w: jnp.sum(xs * w * w - xs))(w)
    return jax.lax.pmean(g, 'd')
w = jnp.array(2.0)
x = jnp.arange(16.0).reshape(8, 2)
out = jax.pmap(body, axis_name='d', in_axes=(None, 0))(w, x)
print(out)
result = out
