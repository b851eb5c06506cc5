import jax
import jax.numpy as jnp
from flax import nnx

rngs = nnx.Rngs(3)
emb = nnx.Embed(num_embeddings=7, features=4, rngs=rngs)
print(emb.embedding[...])
idx = jnp.array([[0, 6, 2], [-1, -3, 1]])
out = emb(idx)
print(out.shape)
print(out)
print(emb.attend(jnp.ones((2, 4))))
one = nnx.Embed(1, 3, rngs=rngs)
print(one(jnp.array([0, 0])))
custom = nnx.Embed(3, 2, embedding_init=nnx.initializers.ones, rngs=rngs)
print(custom(jnp.array([2])))
lin = nnx.Linear(4, 2, rngs=rngs)
print(lin.kernel[...])
model = nnx.Sequential(emb, nnx.LayerNorm(4, rngs=rngs), nnx.Linear(4, 3, rngs=rngs))
print(model(jnp.array([1, 2, 3])))
try:
  emb(jnp.ones((2,)))
except ValueError as e:
  print('ValueError:', e)
