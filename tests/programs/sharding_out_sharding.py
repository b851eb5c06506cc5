# out_sharding= on array-making and contracting functions.
import numpy as np
import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

grid = jax.make_mesh((2, 4), ("X", "Y"))
jax.set_mesh(grid)
a = jax.device_put(jnp.arange(32.0).reshape(8, 4), P(None, "X"))
b = jax.device_put(jnp.arange(64.0).reshape(4, 16), P("X", None))
try:
    jnp.dot(a, b)
except Exception as e:
    print(e)
c = jnp.dot(a, b, out_sharding=P("X", None))
print(jax.typeof(c), c.sharding.spec, float(c.sum()))
d = jnp.matmul(a, b, out_sharding=NamedSharding(grid, P(None, "Y")))
print(jax.typeof(d), bool((d == c).all()))
e = jnp.einsum("ij,jk->ik", a, b, out_sharding=P("Y", "X"))
print(jax.typeof(e))
z = jnp.zeros((8, 4), out_sharding=P("X", "Y"))
o = jnp.ones((16,), out_sharding=P(("X", "Y")))
f = jnp.full((4, 8), jnp.float32(2.5), out_sharding=P(None, "Y"))
print(jax.typeof(z), jax.typeof(o), jax.typeof(f), float(f.sum()))
r = jax.random.normal(jax.random.key(0), (8, 4), out_sharding=P("X", "Y"))
print(jax.typeof(r), r.sharding.spec)
print(r)
u = jax.random.uniform(jax.random.key(1), (8,), out_sharding=P("Y"))
print(jax.typeof(u), u)
s = r.sum(0)
print(jax.typeof(s))
try:
    jnp.zeros((6, 4), out_sharding=P("Y"))
except Exception as err:
    print(type(err).__name__)
result = [c, r]
