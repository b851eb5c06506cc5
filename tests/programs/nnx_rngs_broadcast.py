# Rngs.broadcast: every stream, or per filter (None keeps a stream), and
# the keys it makes; a broadcast stream's next key is JAX's ValueError.
import jax
import jax.numpy as jnp
from flax import nnx

r = nnx.Rngs(0, params=1).broadcast(3)
print(type(r).__name__, r.params.key.shape, r.default.key.shape)
print(jax.random.key_data(r.params.key[...]))
print(jnp.all(r.default.key[...][0] == r.default.key[...][2]))
r2 = nnx.Rngs(params=1, dropout=2, noise=3).broadcast({"params": 2, "dropout": None, ...: (2, 2)})
print(r2.params.key.shape, r2.dropout.key.shape, r2.noise.key.shape)
print(jax.random.key_data(r2.noise.key[...]).shape, r2.dropout())
r3 = nnx.Rngs(5).broadcast((2, 1))
print(r3.default.key.shape, r3.default.count[...])
s = nnx.Rngs(7).params.broadcast(4)
print(type(s).__name__, s.key.shape)
keys = jax.vmap(lambda k: jax.random.normal(k, (2,)))(r.params.key[...])
print(keys)
try:
    r.params()
except ValueError as e:
    print("ValueError:", e)
