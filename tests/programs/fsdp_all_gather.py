import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
from functools import partial
# FSDP-style: every parameter is sharded over the device axis; each device
# all_gathers the full weights before use, and the gradients come back
# reduce-scattered (the transpose of a tiled all_gather is psum_scatter).
mesh = Mesh(np.array(jax.devices()[:4]), ('fsdp',))
w1 = jnp.sin(jnp.arange(8 * 16, dtype=jnp.float32).reshape(8, 16) / 10.0)
w2 = jnp.cos(jnp.arange(16 * 4, dtype=jnp.float32).reshape(16, 4) / 10.0) * 0.5
x = jnp.linspace(-1.0, 1.0, 8 * 8).reshape(8, 8)
y = jnp.linspace(0.0, 1.0, 8 * 4).reshape(8, 4)

def local_loss(w1_shard, w2_shard, xb, yb):
    w1_full = jax.lax.all_gather(w1_shard, 'fsdp', tiled=True)
    w2_full = jax.lax.all_gather(w2_shard, 'fsdp', tiled=True)
    h = jnp.tanh(xb @ w1_full)
    return jnp.mean((h @ w2_full - yb) ** 2)

@partial(jax.shard_map, mesh=mesh, in_specs=(P('fsdp'), P('fsdp'), P('fsdp'), P('fsdp')),
         out_specs=(P(), P('fsdp'), P('fsdp')))
def grads(w1_shard, w2_shard, xb, yb):
    l, (g1, g2) = jax.value_and_grad(local_loss, argnums=(0, 1))(w1_shard, w2_shard, xb, yb)
    # The global loss is the mean of the 4 local losses.
    return jax.lax.pmean(l, 'fsdp'), g1 / 4, g2 / 4

def full_loss(w1, w2):
    return jnp.mean((jnp.tanh(x @ w1) @ w2 - y) ** 2)

l0, g1, g2 = grads(w1, w2, x, y)
r1, r2 = jax.grad(full_loss, argnums=(0, 1))(w1, w2)
print(jnp.allclose(g1, r1, atol=1e-5), jnp.allclose(g2, r2, atol=1e-5))
losses = []
for i in range(5):
    l, g1, g2 = grads(w1, w2, x, y)
    w1, w2 = w1 - 0.2 * g1, w2 - 0.2 * g2
    losses.append(l)
print([round(float(v), 5) for v in losses])
result = {'loss0': l0, 'g1': r1, 'g2': r2, 'losses': losses, 'w2': w2}
