# Plain Variables' modes: nnx.var_defaults reports hijax=False and ref=False
# (as a mapping, a context and a decorator), nnx.with_vars to those modes
# copies the graph around the same Variables (sharing kept, a Variable
# returned as it is), and mutable= fails as it does for Flax's plain
# Variables, eagerly and under jit.
import jax
import jax.numpy as jnp
from flax import nnx

v = nnx.Variable(jnp.array(0))
print(nnx.with_vars(v, hijax=False) is v, v.hijax, v.ref, nnx.Param(jnp.ones(2)).ref)
print(nnx.Variable(jnp.ones(2), hijax=False, ref=False))


class Shared(nnx.Module):
    def __init__(self):
        self.a = nnx.Linear(2, 2, rngs=nnx.Rngs(0))
        self.b = self.a
        self.n = 3
        self.stats = nnx.BatchStat(jnp.zeros(2))


s = Shared()
s2 = nnx.with_vars(s, hijax=False, ref=False, only=nnx.Param)
print(s2 is s, s2.a is s2.b, s2.a is s.a, s2.a.kernel is s.a.kernel, s2.n)
print(s2.stats is s.stats, type(s2).__name__)
s2.a.bias[...] = jnp.ones(2)
print(s.a.bias[...])
copied = nnx.with_vars([v, {'x': v}], ref=False)
print(type(copied).__name__, copied[1]['x'] is v, copied[0] is v)
for node in (s, v):
    try:
        nnx.with_vars(node, mutable=False)
    except AttributeError as e:
        print('AttributeError:', e)
print(nnx.with_vars(Shared(), hijax=False, allow_duplicates=True).n)


@jax.jit
def f(m):
    try:
        nnx.with_vars(m, mutable=True)
    except AttributeError as e:
        print('AttributeError:', e)
    return nnx.with_vars(m, hijax=False).a.bias[...] * 2


print(f(s))

print(nnx.var_defaults())
ctx = nnx.var_defaults(hijax=False)
print(type(ctx).__name__, nnx.var_defaults().hijax, nnx.var_defaults().ref)
with nnx.var_defaults(ref=False, hijax=False):
    print(nnx.var_defaults())
d = nnx.var_defaults()
print(len(d), list(d), d['hijax'], d['ref'], d == nnx.var_defaults())


@nnx.var_defaults(hijax=False)
def g(x):
    return nnx.var_defaults().hijax, x


print(g(1), g.__name__)
