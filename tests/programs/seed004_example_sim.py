chunk = x.shape[0] // num_devices
per_shard_grads = []
per_shard_losses = []
for i in range(num_devices):
    x_shard = jax.lax.dynamic_slice_in_dim(x, i*chunk, chunk, axis=0)
    y_shard = jax.lax.dynamic_slice_in_dim(y, i*chunk, chunk, axis=0)
    loss, grads = nnx.value_and_grad(loss_fn)(model, x_shard, y_shard)
    per_shard_losses.append(loss)
    per_shard_grads.append(grads)

mean_loss = jnp.mean(jnp.stack(per_shard_losses))
avg_grads = jax.tree_util.tree_map(
    lambda *xs: sum(xs) / float(num_devices), *per_shard_grads,
)
optimizer.update(model, avg_grads)
result = mean_loss
