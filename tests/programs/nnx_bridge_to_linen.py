# nnx modules inside linen through nnx.bridge.to_linen / ToLinen: the
# parameters linen's init makes from its rng, apply with given variables,
# a wrapper inside a compact linen module, and a module without rngs.
import jax
import jax.numpy as jnp
from flax import linen as nn
from flax import nnx
from flax.nnx import bridge


class Scale(nnx.Module):
  def __init__(self, din, dout, *, rngs):
    self.w = nnx.Param(nnx.initializers.lecun_normal()(rngs.params(), (din, dout)))
    self.inner = nnx.Linear(dout, 2, rngs=rngs)

  def __call__(self, x):
    return self.inner(x @ self.w)

  def project(self, x):
    return x @ self.w


x = jax.random.normal(jax.random.key(1), (3, 4))
model = bridge.to_linen(Scale, 4, dout=5)
variables = model.init(jax.random.key(0), x)
print(jax.tree.map(jnp.shape, variables))
print(variables['params']['w'][0])
print(variables['params']['inner']['kernel'][1])
y = model.apply(variables, x)
print(y)
print(model.apply(variables, x, nnx_method='project')[0])
doubled = jax.tree.map(lambda p: 2 * p, variables)
print(model.apply(doubled, x)[2])


class Outer(nn.Module):
  @nn.compact
  def __call__(self, x):
    h = bridge.to_linen(Scale, x.shape[-1], 6)(x)
    b = self.param('b', nn.initializers.ones, (2,))
    return nn.Dense(3)(h + b)


outer = Outer()
out, ov = outer.init_with_output(jax.random.key(3), x)
print(jax.tree.map(jnp.shape, ov))
print(ov['params']['ToLinen_0']['w'][1])
print(out[0])


class Shift(nnx.Module):
  def __init__(self, by):
    self.by = nnx.Param(jnp.full((4,), by))

  def __call__(self, x):
    return x + self.by


shift = bridge.ToLinen(Shift, args=(0.5,), skip_rng=True)
sv = shift.init(jax.random.key(0), x)
print(sv)
print(shift.apply({'params': {'by': jnp.arange(4.0)}}, x)[1])
result = y
