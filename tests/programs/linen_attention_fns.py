# linen DenseGeneral (several features and axes, no bias, custom
# initializers) and linen's attention functions: weights and outputs with
# a bias, a padding mask and a causal mask combined, batch dimensions
# beyond one, dropout of the weights (broadcast and not, and deterministic),
# weights sown into a module; Flax's rank assertions.
import jax
import jax.numpy as jnp
import flax.linen as nn

x = jnp.sin(jnp.arange(2 * 5 * 6, dtype=jnp.float32).reshape(2, 5, 6))
for layer in [nn.DenseGeneral((2, 3)), nn.DenseGeneral(4, axis=(-2, -1), use_bias=False),
              nn.DenseGeneral(features=(3,), axis=1, kernel_init=nn.initializers.normal(0.3),
                              bias_init=nn.initializers.ones)]:
    y, v = layer.init_with_output(jax.random.key(2), x)
    print(jax.tree.map(jnp.shape, v), y.shape)
    print(jnp.round(y.reshape(-1)[:6], 5), jnp.round(v['params']['kernel'].reshape(-1)[:4], 5))

q = jnp.cos(jnp.arange(2 * 4 * 2 * 3, dtype=jnp.float32).reshape(2, 4, 2, 3))
k = jnp.sin(jnp.arange(2 * 5 * 2 * 3, dtype=jnp.float32).reshape(2, 5, 2, 3) * 0.7)
val = jnp.cos(jnp.arange(2 * 5 * 2 * 3, dtype=jnp.float32).reshape(2, 5, 2, 3) * 1.3)
w = nn.dot_product_attention_weights(q, k)
print(w.shape, jnp.round(w[0, 0], 5))
pad = nn.make_attention_mask(jnp.array([[1, 1, 1, 0], [1, 1, 0, 0]]), jnp.array([[1, 1, 1, 1, 0], [1, 0, 1, 1, 1]]))
causal = nn.make_causal_mask(jnp.ones((2, 5)))[:, :, :4, :]
mask = nn.combine_masks(pad, causal)
print(mask.shape, mask.dtype, mask[1, 0].astype(jnp.int32))
bias = jnp.linspace(-1, 1, 20).reshape(1, 1, 4, 5)
out = nn.dot_product_attention(q, k, val, bias=bias, mask=mask)
print(out.shape, jnp.round(out[1, :, 0], 5))
w2 = nn.dot_product_attention_weights(q, k, mask=mask)
print(jnp.round(w2[1, 0], 5))
out3 = nn.dot_product_attention(q[None], k[None], val[None])
print(out3.shape, jnp.round(out3[0, 1, 2], 5))
d1 = nn.dot_product_attention(q, k, val, dropout_rng=jax.random.key(5), dropout_rate=0.5)
d2 = nn.dot_product_attention_weights(q, k, dropout_rng=jax.random.key(5), dropout_rate=0.3,
                                      broadcast_dropout=False)
d3 = nn.dot_product_attention(q, k, val, dropout_rate=0.5, deterministic=True)
print(jnp.round(d1[0, :, 1], 5), jnp.round(d2[1, 1], 5), bool(jnp.allclose(d3, nn.dot_product_attention(q, k, val))))
g = jax.grad(lambda q: jnp.sum(nn.dot_product_attention(q, k, val, mask=mask) ** 2))(q)
print(jnp.round(g[0, 1], 5))


class Sower(nn.Module):
    @nn.compact
    def __call__(self, q, k, v):
        return nn.dot_product_attention(q, k, v, module=self)


_, state = Sower().apply({}, q, k, val, mutable=['intermediates'])
print(jax.tree.map(jnp.shape, state))
try:
    nn.dot_product_attention(q, k[0], val)
except AssertionError as e:
    print('AssertionError:', e)
try:
    nn.dot_product_attention(q, k, val[:, :3])
except AssertionError as e:
    print('AssertionError:', e)
result = out
