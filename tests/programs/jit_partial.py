import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
from functools import partial
@jax.jit
def f(x, y):
    return x * y + 1.0
@partial(jax.jit, static_argnums=(1,))
def g(x, n):
    for _ in range(n):
        x = x * 2
    return x
h = jax.jit(lambda v: jnp.sum(v ** 2))
x = jnp.arange(3.0)
print(f(x, 2.0), g(x, 3), h(x))
print(jax.device_count(), len(jax.devices()), jax.local_device_count())
print(jax.tree_util.tree_leaves({'b': 1, 'a': (2, 3)}), jax.tree_util.tree_structure({'b': 1, 'a': (2, 3)}))
result = [f(x, 2.0), g(x, 3), h(x), jax.tree_util.tree_map(lambda v: v * 10, {'b': 1.0, 'a': [2.0, 3.0]})]
