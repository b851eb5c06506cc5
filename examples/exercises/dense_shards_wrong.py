import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P


def dense_by_hand(n, x, w, b):
    k = w.shape[1] // n
    blocks = []
    for i in range(n):
        cols = slice(i * k, (i + 1) * k)
        blocks.append(jax.nn.relu(x @ w[:, cols] + b[cols]))
    # The blocks are stacked as rows, though each one holds columns.
    return jnp.concatenate(blocks, axis=0)


def dense_both(mesh, x, w, b):
    n = mesh.shape['model']
    simulated = dense_by_hand(n, x, w, b)

    def local(x, w_block, b_block):
        return jax.nn.relu(x @ w_block + b_block)

    # The same mistake in the real form: the output blocks are laid out
    # along the rows.
    real = jax.shard_map(local, mesh=mesh, in_specs=(P(), P(None, 'model'), P('model')),
                         out_specs=P('model'))(x, w, b)
    return simulated, real
