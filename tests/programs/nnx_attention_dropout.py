# nnx.dot_product_attention's positional parameters (dropout_rng comes
# before dropout_rate and deterministic), a dropout rate that is switched
# off, attention dropout with a key, and MultiHeadAttention dropping
# attention weights in training mode.
import jax
import jax.numpy as jnp
from flax import nnx

q = jax.random.normal(jax.random.key(1), (2, 4, 2, 3))
k = jax.random.normal(jax.random.key(2), (2, 5, 2, 3))
v = jax.random.normal(jax.random.key(3), (2, 5, 2, 3))
bias = jax.random.normal(jax.random.key(4), (2, 2, 4, 5)) * 0.1
mask = jnp.arange(5) < 4

plain = nnx.dot_product_attention(q, k, v, bias, mask)
print(plain[0, 1])
# A rate given by position with deterministic=True by position: Flax computes
# the weights itself, no dropout applied.
off = nnx.dot_product_attention(q, k, v, bias, mask, True, None, 0.5, True)
print(off[0, 1])
print(jnp.abs(off - plain).max() < 1e-5)
# dropout_rng, dropout_rate and deterministic by position.
key = jax.random.key(7)
drop = nnx.dot_product_attention(q, k, v, None, None, True, key, 0.4, False)
print(drop[1, 2])
same = nnx.dot_product_attention(q, k, v, dropout_rng=key, dropout_rate=0.4)
print(bool((drop == same).all()))
each = nnx.dot_product_attention(q, k, v, None, None, False, key, 0.4, False)
print(each[1, 2])
print(drop[0, 3], each[0, 0])

mha = nnx.MultiHeadAttention(num_heads=2, in_features=4, qkv_features=6,
                             dropout_rate=0.3, decode=False, rngs=nnx.Rngs(0))
x = jax.random.normal(jax.random.key(5), (1, 3, 4))
print(mha(x, deterministic=True)[0, 0])
y1 = mha(x, deterministic=False)
y2 = mha(x, deterministic=False)
print(y1[0, 1], y2[0, 1])
print(mha(x, deterministic=False, rngs=nnx.Rngs(dropout=3))[0, 2])
print(mha(x, deterministic=False, rngs=nnx.Rngs(dropout=3).dropout)[0, 2])

lean = nnx.MultiHeadAttention(num_heads=1, in_features=2, dropout_rate=0.5,
                              keep_rngs=False, decode=False, rngs=nnx.Rngs(1))
try:
    lean(jnp.ones((1, 2, 2)), deterministic=False)
except ValueError as e:
    print("ValueError:", e)


@nnx.jit
def train(model, x):
    return model(x, deterministic=False).sum()


print(train(mha, x), train(mha, x))
