# flax.linen.Dropout inside a compact module, on its own, with an explicit
# key, and through nnx.bridge.ToNNX.
import jax
import jax.numpy as jnp
import flax.linen as nn
from flax import nnx
from flax.nnx import bridge


class Net(nn.Module):
    features: int

    @nn.compact
    def __call__(self, x, train):
        x = nn.Dense(self.features)(x)
        x = nn.Dropout(0.5, deterministic=not train)(x)
        return nn.Dense(2)(x)


x = (jnp.arange(12.0) / 4 - 1.5).reshape(3, 4)
net = Net(5)
variables = net.init({'params': jax.random.key(0), 'dropout': jax.random.key(1)}, x, True)
print(jax.tree.map(jnp.shape, variables))
print(net.apply(variables, x, False))
print(net.apply(variables, x, True, rngs={'dropout': jax.random.key(2)}))
print(net.apply(variables, x, True, rngs={'dropout': jax.random.key(3)}))

drop = nn.Dropout(rate=0.25, broadcast_dims=(0,))
print(drop)
y = drop.apply({}, jnp.ones((3, 6)), deterministic=False, rngs={'dropout': jax.random.key(4)})
print(y)
print(drop.apply({}, jnp.ones((2, 3)), False, jax.random.key(5)))
print(drop.apply({}, jnp.ones((2, 3)), deterministic=True))
print(nn.Dropout(0.0).apply({}, x, deterministic=False))
print(nn.Dropout(1.0).apply({}, x, deterministic=False))
try:
    drop.apply({}, x)
except ValueError as e:
    print('ValueError:', e)
try:
    nn.Dropout(0.5, deterministic=True).apply({}, x, deterministic=False)
except ValueError as e:
    print('ValueError:', e)


class Custom(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.Dropout(0.3, rng_collection='noise')(x, deterministic=False)


print(Custom().apply({}, jnp.ones((2, 4)), rngs={'noise': jax.random.key(6)}))

model = bridge.ToNNX(nn.Dropout(rate=0.5, deterministic=False), rngs=nnx.Rngs(dropout=0))
bridge.lazy_init(model, x)
y1, y2 = model(x), model(x)
print(y1)
print(bool(jnp.allclose(y1, y2)))
nnx.reseed(model, dropout=0)
y3 = model(x)
nnx.reseed(model, dropout=0)
print(bool(jnp.allclose(y3, model(x))))
print(y3)
