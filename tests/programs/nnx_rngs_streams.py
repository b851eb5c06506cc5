import jax
import jax.numpy as jnp
from flax import nnx

r = nnx.Rngs(3, params=7)
print(r.params())
print(r.dropout())
print(r())
print(r['params'])
print('params' in r, 'noise' in r, len(r), list(r))
print(r.normal((2, 3)))
print(r.params.uniform((4,)))
print(r.params.bernoulli(0.3, (6,)))
print(r.randint((3,), 0, 10))
nnx.display(r)

s = nnx.RngStream(jax.random.key(11), tag='noise')
print(s(), s.count.value)
f = s.fork()
print(f.key.value, f.count.value, s.count.value)

class Block(nnx.Module):
  def __init__(self, rngs):
    self.lin = nnx.Linear(3, 2, rngs=rngs)
    self.w = nnx.Param(rngs.params.normal((2,)), note='extra')
    self.drop = nnx.Dropout(0.25, rngs=rngs)
    self.size = 3

  def __call__(self, x):
    return self.drop(self.lin(x)) * self.w

b = Block(nnx.Rngs(params=1, dropout=2))
print(b(jnp.ones((2, 3))))
print(b.drop(jnp.arange(8.0), deterministic=True))
print(nnx.Dropout(0.5)(jnp.ones(6), rngs=nnx.Rngs(5)))
print(nnx.Dropout(0.5, broadcast_dims=(0,))(jnp.ones((3, 4)), rngs=jax.random.key(2)))
nnx.display(b.drop)
print(b.lin.kernel.value)
c = Block(nnx.Rngs(4))
c.lin = None
nnx.display(c)
print(b.w)
