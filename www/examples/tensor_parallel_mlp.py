import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
from functools import partial
mesh = Mesh(np.array(jax.devices()[:4]), ('model',))
k = jnp.arange(8 * 16, dtype=jnp.float32).reshape(8, 16) / 100.0
w1 = jnp.sin(k)
w2 = jnp.cos(k.T) * 0.5
x = jnp.linspace(-1.0, 1.0, 24).reshape(3, 8)
def mlp_local(x, w1, w2):
    h = jnp.tanh(x @ w1)
    return jax.lax.psum(h @ w2, 'model')
mlp = jax.shard_map(mlp_local, mesh=mesh, in_specs=(P(), P(None, 'model'), P('model', None)), out_specs=P())
y = mlp(x, w1, w2)
ref = jnp.tanh(x @ w1) @ w2
print(jnp.allclose(y, ref, atol=1e-5))
loss = lambda w1, w2: jnp.mean(mlp(x, w1, w2) ** 2)
g1, g2 = jax.grad(loss, argnums=(0, 1))(w1, w2)
r1, r2 = jax.grad(lambda a, b: jnp.mean((jnp.tanh(x @ a) @ b) ** 2), argnums=(0, 1))(w1, w2)
print(jnp.allclose(g1, r1, atol=1e-5), jnp.allclose(g2, r2, atol=1e-5))
result = {'y': y, 'g1': g1, 'g2': g2}
