# linen MultiHeadDotProductAttention (and its alias MultiHeadAttention) and
# SelfAttention: parameter trees and values of query/key/value/out, self and
# cross attention, qkv_features/out_features, masks, no bias, separate out
# initializers, dropout with the 'dropout' stream and with dropout_rng, sown
# weights, inside a larger module, gradients; Flax's errors for heads that
# do not divide the features and for a missing deterministic.
import jax
import jax.numpy as jnp
import flax.linen as nn

x = jnp.sin(jnp.arange(2 * 4 * 6, dtype=jnp.float32).reshape(2, 4, 6))
y = jnp.cos(jnp.arange(2 * 3 * 5, dtype=jnp.float32).reshape(2, 3, 5) * 0.3)

layer = nn.MultiHeadDotProductAttention(num_heads=2)
out, v = layer.init_with_output(jax.random.key(0), x)
print(jax.tree.map(jnp.shape, v), out.shape)
print(jnp.round(out[0, 0], 5))
print(jnp.round(v['params']['query']['kernel'][:, 0, :], 5))
print(jnp.round(v['params']['out']['kernel'][1, :, 0], 5))
cross = nn.MultiHeadAttention(num_heads=3, qkv_features=9, out_features=4, use_bias=False)
cout, cv = cross.init_with_output(jax.random.key(1), x, y)
print(jax.tree.map(jnp.shape, cv), jnp.round(cout[1, -1], 5))
mask = nn.make_attention_mask(jnp.ones((2, 4)), jnp.array([[1, 1, 0], [1, 0, 0]]))
print(jnp.round(cross.apply(cv, x, y, mask=mask)[1, 0], 5))
kv = nn.MultiHeadDotProductAttention(2, out_kernel_init=nn.initializers.ones,
                                     bias_init=nn.initializers.normal(0.1))
kout, kvv = kv.init_with_output(jax.random.key(2), x, y, y)
print(jnp.round(kout[0, 1], 5), jnp.round(kvv['params']['key']['bias'], 5))

drop = nn.MultiHeadDotProductAttention(2, dropout_rate=0.4)
dv = drop.init(jax.random.key(3), x, deterministic=True)
d1 = drop.apply(dv, x, deterministic=False, rngs={'dropout': jax.random.key(4)})
d2 = drop.apply(dv, x, deterministic=False, dropout_rng=jax.random.key(9))
print(jnp.round(d1[0, 2], 5), jnp.round(d2[1, 3], 5))
_, sown = drop.apply(dv, x, deterministic=True, sow_weights=True, mutable=['intermediates'])
print(jax.tree.map(jnp.shape, sown))

sa = nn.SelfAttention(num_heads=3)
sout, sv = sa.init_with_output(jax.random.key(5), x, nn.make_causal_mask(jnp.ones((2, 4))))
print(jax.tree.map(jnp.shape, sv), jnp.round(sout[0, 1], 5))


class Block(nn.Module):
    @nn.compact
    def __call__(self, x, train):
        h = nn.LayerNorm()(x)
        h = nn.MultiHeadDotProductAttention(num_heads=2, dropout_rate=0.1, deterministic=not train)(h)
        x = x + h
        return nn.Dense(3)(x)


bv = Block().init(jax.random.key(6), x, False)
print(jax.tree.map(jnp.shape, bv))
bo = Block().apply(bv, x, True, rngs={'dropout': jax.random.key(7)})
print(bo[1])
g = jax.grad(lambda p: jnp.sum(Block().apply({'params': p}, x, False) ** 2))(bv['params'])
print(jax.tree.map(lambda t: jnp.round(jnp.sum(jnp.abs(t)), 4), g["MultiHeadDotProductAttention_0"]))
try:
    nn.MultiHeadDotProductAttention(num_heads=4).init(jax.random.key(0), x)
except AssertionError as e:
    print('AssertionError:', e)
try:
    drop.apply(dv, x)
except ValueError as e:
    print('ValueError:', e)
result = bo
