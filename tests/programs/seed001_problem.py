import jax
import jax.numpy as jnp
import flax.linen as nn


def shard_map_simulate(seed, x, num_shards, features):
    num_shards = int(num_shards)
    features = int(features)
    model = nn.Dense(features)
    chunk_size = x.shape[0] // num_shards
    first_shard = jax.lax.dynamic_slice_in_dim(x, 0, chunk_size, axis=0)
    params = model.init(jax.random.PRNGKey(int(seed)), first_shard)
    outs = []
    for i in range(num_shards):
        shard = jax.lax.dynamic_slice_in_dim(x, i * chunk_size, chunk_size, axis=0)
        outs.append(model.apply(params, shard))
    return jnp.concatenate(outs, axis=0).reshape(-1)


example = shard_map_simulate(0.0, jnp.arange(12.0).reshape(4, 3), 2.0, 2.0)
print(example)
outs = [example]
for k, (n, d, shards, feats) in enumerate([(8, 3, 4.0, 5.0), (6, 4, 3.0, 2.0), (4, 2, 1.0, 3.0)]):
    x = jax.random.normal(jax.random.PRNGKey(100 + k), (n, d))
    y = shard_map_simulate(float(k + 1), x, shards, feats)
    print(y.shape, y)
    outs.append(y)
result = outs
