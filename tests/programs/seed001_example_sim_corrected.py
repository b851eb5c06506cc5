import jax
import jax.numpy as jnp
import flax.linen as nn

def simulate(x, num_shards, model, params):
    chunk_size = x.shape[0] // num_shards
    outs = []
    for i in range(num_shards):
        shard = jax.lax.dynamic_slice_in_dim(x, i * chunk_size, chunk_size, axis=0)
        outs.append(model.apply(params, shard))
    return jnp.concatenate(outs, axis=0)

model = nn.Dense(4)
x = jnp.arange(18.0).reshape(6, 3) - 8.0
chunk_size = x.shape[0] // 3
first_shard = jax.lax.dynamic_slice_in_dim(x, 0, chunk_size, axis=0)
params = model.init(jax.random.PRNGKey(7), first_shard)
out = simulate(x, 3, model, params)
print(out)
print(jnp.allclose(out, model.apply(params, x)))
result = out
