# jax.jacobian/jacfwd/jacrev check their inputs with a tree map that
# rebuilds each custom pytree node once with None leaves: a node whose
# constructor converts its field with jnp.asarray fails there, as in JAX;
# one that accepts None works, and grad never rebuilds its inputs.
import jax
import jax.numpy as jnp
from jax.tree_util import register_pytree_node

built = []


class Strict:
    def __init__(self, a):
        built.append(type(a).__name__)
        self.a = jnp.asarray(a)


class Lenient:  # also checks list.clear and list.remove
    def __init__(self, a):
        built.append(type(a).__name__)
        self.a = a


for cls in (Strict, Lenient):
    register_pytree_node(cls, lambda t: ((t.a,), None), lambda _, c, cls=cls: cls(*c))

for cls in (Strict, Lenient):
    for name, transform in [("jacobian", jax.jacobian), ("jacfwd", jax.jacfwd), ("jacrev", jax.jacrev),
                            ("hessian", jax.hessian), ("grad", jax.grad)]:
        built.clear()
        tree = cls(jnp.arange(3.0))
        try:
            out = transform(lambda t: (t.a ** 2).sum())(tree)
            print(cls.__name__, name, jax.tree.leaves(out))
        except Exception as e:
            print(cls.__name__, name, type(e).__name__, e)
        print("  rebuilt with None:", "NoneType" in built)

log = ["a", "b", "a"]
log.remove("a")
print(log)
try:
    log.remove("z")
except ValueError as e:
    print("ValueError", e)
log.clear()
print(log)
