import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
from functools import partial
def f(p, x):
    y = jnp.tanh(p['a'] * x + p['b'])
    return jnp.sum(y ** 2), {'mean': jnp.mean(y), 'n': x.shape[0]}
p = {'a': jnp.array(0.3), 'b': jnp.array([0.1, -0.2, 0.3])}
x = jnp.array([1.0, 2.0, -1.0])
(v, aux), g = jax.value_and_grad(f, has_aux=True)(p, x)
print(v, aux['mean'], aux['n'])
print(g['a'], g['b'])
gx = jax.grad(lambda p, x: f(p, x)[0], argnums=1)(p, x)
result = [v, aux['mean'], g, gx]
