# auto_axes and explicit_axes: a function body that sees some mesh axes as
# Auto (or Explicit), with its arguments and result resharded around it.
import numpy as np
import jax
import jax.numpy as jnp
from jax.sharding import AxisType, auto_axes, explicit_axes

grid = jax.make_mesh((2, 4), ("r", "c"))
jax.set_mesh(grid)

a = jax.device_put(np.arange(24.0).reshape(8, 3), jax.P("c", None))
b = jax.device_put(np.arange(24.0).reshape(8, 3) * 0.5, jax.P(None, None))


@auto_axes
def scaled(u, v):
    print("body mesh:", jax.sharding.get_abstract_mesh())
    print("body types:", jax.typeof(u), jax.typeof(v))
    return u * 3.0 - v


out = scaled(a, b, out_sharding=jax.P("r", None))
print(jax.typeof(out), out.sharding.spec)
print(out)


@auto_axes(axes="c", out_sharding=jax.P(None, "r"))
def half(u):
    print("half mesh:", jax.sharding.get_abstract_mesh())
    return u / 2


h = half(a.T)
print(jax.typeof(h))
print(h)

# Both axes already Auto: the body runs under the caller's mesh.
loose = jax.make_mesh((2, 4), ("r", "c"), (AxisType.Auto, AxisType.Auto))
with jax.set_mesh(loose):
    p = jax.device_put(np.arange(8.0), jax.P("c"))

    @auto_axes
    def same(u):
        print("same mesh:", jax.sharding.get_abstract_mesh())
        print("spec of the type:", jax.typeof(u).sharding.spec, "of the value:", u.sharding.spec)
        return jnp.cos(u)

    print(same(p, out_sharding=jax.P("c")))

    @explicit_axes
    def strict(u):
        print("strict mesh:", jax.sharding.get_abstract_mesh())
        print("strict type:", jax.typeof(u))
        w = u * u + u
        print("strict result:", jax.typeof(w))
        return w

    @jax.jit
    def outer(u):
        v = u - 1.0
        return strict(v, in_sharding=jax.P("r", "c")) * 2

    q = jax.device_put(np.arange(16.0).reshape(2, 8), jax.P("r", "c"))
    res = outer(q)
    print(res)

try:
    scaled(a, b)
except TypeError as e:
    print("TypeError:", e)

# An elementwise result may not split two dimensions over one explicit axis.
x = jax.device_put(np.arange(64).reshape(8, 8), jax.P("c", None))
y = jax.device_put(np.arange(64).reshape(8, 8), jax.P(None, "c"))
try:
    x * y
except Exception as e:
    print(type(e).__name__, e)
try:
    x < y
except Exception as e:
    print(type(e).__name__, e)
result = out
