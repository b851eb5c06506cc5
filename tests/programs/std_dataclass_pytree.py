import jax, jax.numpy as jnp
from dataclasses import dataclass, field
@jax.tree_util.register_dataclass
@dataclass
class State:
    w: jax.Array
    b: jax.Array
    name: str = field(default="s", metadata=dict(static=True))
s = State(jnp.ones(2), jnp.zeros(()))
print(jax.tree_util.tree_leaves(s))
t = jax.tree_util.tree_map(lambda x: x + 1, s)
print(t)
@jax.jit
def f(st):
    return jnp.sum(st.w) + st.b
print(f(s))
@dataclass
class P2:
    a: int
    b: int
jax.tree_util.register_dataclass(P2, data_fields=['a'], meta_fields=['b'])
print(jax.tree_util.tree_leaves(P2(1, 2)), jax.tree_util.tree_map(lambda v: v * 10, P2(1, 2)))
result = [t.w, t.b, f(s)]
