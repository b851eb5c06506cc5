# A linen module inside nnx through flax.nnx.bridge.ToNNX and lazy_init:
# its parameters become nnx.Param attributes named as in linen, each call
# draws one key per rng stream, and the linen module prints as Flax prints it.
from typing import Any, Callable

import jax
import jax.numpy as jnp
from flax import linen as nn
from flax import nnx
from flax.nnx import bridge


class Affine(nn.Module):
  width: int
  scale_init: Callable[..., Any] = nn.initializers.lecun_normal()

  @nn.compact
  def __call__(self, x):
    a = self.param('a', self.scale_init, (x.shape[-1], self.width))
    c = self.param('c', nn.initializers.zeros, (self.width,))
    return jnp.tanh(x @ a + c)


print(Affine(5))
print(nn.initializers.lecun_normal().__name__, nn.initializers.normal(0.5).__name__)

x = jnp.linspace(-1.0, 1.0, 12).reshape(3, 4)
layer = bridge.ToNNX(Affine(5), rngs=nnx.Rngs(3))
same = bridge.lazy_init(layer, x)
print(same is layer, type(layer.a).__name__, layer.a.shape, layer.c.shape)
y = layer(x)
print(jnp.round(y, 4))
nnx.display(layer)

layer.a[...] = jnp.ones((4, 5)) * 0.1
print(jnp.round(layer(x), 4))


class Outer(nnx.Module):
  def __init__(self, rngs):
    self.inner = bridge.ToNNX(Affine(2), rngs=rngs)
    self.shift = nnx.Param(jax.random.uniform(rngs.params(), (2,)))

  def __call__(self, x):
    return self.inner(x) + self.shift


outer = Outer(nnx.Rngs(params=11))
print(sorted(nnx.state(outer, nnx.Param).keys()))
outer = bridge.lazy_init(outer, x)
print(jnp.round(outer(x), 4))
params = nnx.state(outer, nnx.Param)
print(jax.tree.map(jnp.shape, params))

keyed = bridge.ToNNX(Affine(3), rngs=jax.random.key(5)).lazy_init(x)
print(type(keyed).__name__, keyed.a[0])
result = outer(x)
