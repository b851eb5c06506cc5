# Multi-head attention in nnx: parameters from the seed, self and cross
# attention, causal and padding masks, grouped key/value heads and the
# functional attention on its own.
import re

import jax
import jax.numpy as jnp
from flax import nnx

mha = nnx.MultiHeadAttention(num_heads=2, in_features=6, qkv_features=8,
                             decode=False, rngs=nnx.Rngs(3))
print(mha.head_dim, mha.qkv_features, mha.out_features)
print(mha.query.kernel.shape, mha.key.bias.shape, mha.out.kernel.shape)
print(mha.query.kernel[0, 0])
print(mha.out.kernel[1, 2])
print(jax.tree.map(jnp.shape, nnx.state(mha, nnx.Param)))

x = jax.random.normal(jax.random.key(1), (2, 5, 6))
y = jax.random.normal(jax.random.key(2), (2, 3, 6))
print(mha(x)[0, :2])
print(mha(x, y)[1, -1])

causal = nnx.make_causal_mask(jnp.ones((2, 5)))
print(causal.shape, causal.dtype)
print(causal[0, 0])
print(mha(x, mask=causal)[0, 0])
print(mha(x, is_causal=True)[1, 4])

tokens = jnp.array([[3, 1, 0, 0, 0], [4, 4, 2, 7, 0]])
pad = nnx.make_attention_mask(tokens > 0, tokens > 0)
print(pad.shape, pad[1, 0, 3])
both = nnx.combine_masks(pad, causal)
print(both[1, 0])
print(mha(x, mask=both)[1])

gqa = nnx.MultiHeadAttention(num_heads=4, in_features=6, qkv_features=8,
                             out_features=3, num_kv_heads=2, decode=False,
                             use_bias=False, rngs=nnx.Rngs(0))
print(gqa.key.kernel.shape, gqa.bias if hasattr(gqa, 'bias') else None)
print(gqa(x, y)[0])

q = jax.random.normal(jax.random.key(5), (2, 4, 3, 2))
k = jax.random.normal(jax.random.key(6), (2, 6, 3, 2))
v = jax.random.normal(jax.random.key(7), (2, 6, 3, 2))
print(nnx.dot_product_attention(q, k, v)[1, 2])
m = jnp.arange(6) < 4
print(nnx.dot_product_attention(q, k, v, mask=m)[0, 0])
print(jax.nn.dot_product_attention(q, k, v, is_causal=False)[0, 3])

small = nnx.MultiHeadAttention(1, 2, rngs=nnx.Rngs(0))
print(re.sub(r'0x[0-9a-f]+', '0x', repr(small)))


def loss(model, x):
  return jnp.mean(model(x) ** 2)


grads = nnx.grad(loss)(mha, x)
print(grads['query']['kernel'][...][2, 1])
result = mha(x)
