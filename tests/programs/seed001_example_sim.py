chunk_size = x.shape[0] // num_shards
outs = []
for i in range(num_shards):
    shard = jax.lax.dynamic_slice_in_dim(x, i * chunk_size, chunk_size, axis=0)
    outs.append(model.apply(params, shard))
return jnp.concatenate(outs, axis=0)
result = outs
