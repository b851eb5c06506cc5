# Arrays committed to different devices cannot meet in one computation;
# an uncommitted one follows the committed one.
import jax, jax.numpy as jnp, numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P

devs = jax.devices()
one = jax.make_mesh((1,), ('x',), devices=devs[:1])
other = jax.make_mesh((1,), ('x',), devices=devs[2:3])
four = jax.make_mesh((4,), ('x',), devices=devs[:4])
back = jax.make_mesh((4,), ('x',), devices=devs[4:])

a = jax.device_put(jnp.float32(1.5), NamedSharding(one, P()))
b = jax.device_put(jnp.float32(2.0), NamedSharding(other, P()))
for name, f in [('add', lambda: a + b), ('mul', lambda: a * b), ('device', lambda: jax.device_put(1.0, devs[3]) - a)]:
    try:
        print(name, f())
    except ValueError as e:
        print(name, 'ValueError:', e)

u = jax.device_put(jnp.arange(8.0), NamedSharding(four, P('x')))
v = jax.device_put(jnp.ones(8), NamedSharding(back, P('x')))
try:
    print(u + v)
except ValueError as e:
    print('ValueError:', e)
w = u + jnp.ones(8)
print(w, w.sharding.mesh.device_ids)
result = (a + 1.0) * 2
