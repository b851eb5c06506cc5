import jax, jax.numpy as jnp
from collections import namedtuple
Params = namedtuple('Params', ['w', 'b'])
p = Params(jnp.ones(3), jnp.zeros(()))
print(jax.tree_util.tree_leaves(p))
q = jax.tree_util.tree_map(lambda x: x * 2, p)
print(q, type(q).__name__, q.w)
@jax.jit
def f(params, x):
    return jnp.sum(params.w * x) + params.b
print(f(p, jnp.arange(3.0)))
g = jax.grad(lambda params: jnp.sum(params.w ** 2) + params.b)(p)
print(g)
result = [q.w, q.b, g.w]
