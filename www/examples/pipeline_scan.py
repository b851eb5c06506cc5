# Pipeline parallelism: each of 4 devices holds one layer (a stage). The
# microbatches enter at stage 0 and move one stage to the right per step of a
# lax.scan, passed on by ppermute, so after a warm-up every stage works on a
# different microbatch at the same time. The last stage's outputs are
# collected and compared with running the 4 layers one after another.
import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
from functools import partial

STAGES, MICRO, WIDTH = 4, 6, 8
mesh = Mesh(np.array(jax.devices()[:STAGES]), ('stage',))
k1, k2 = jax.random.split(jax.random.key(0))
weights = jax.random.normal(k1, (STAGES, WIDTH, WIDTH)) / jnp.sqrt(WIDTH)
batches = jax.random.normal(k2, (MICRO, 2, WIDTH))

def layer(w, h):
    return jnp.tanh(h @ w)

@partial(jax.shard_map, mesh=mesh, in_specs=(P('stage'), P()), out_specs=P())
def pipeline(w, xs):
    w = w[0]                                   # this stage's layer
    me = jax.lax.axis_index('stage')
    right = [(i, (i + 1) % STAGES) for i in range(STAGES)]

    def step(carry, t):
        h, outs = carry
        # Stage 0 takes microbatch t (while there is one); the others take
        # what their left neighbour computed in the previous step.
        fresh = xs[jnp.minimum(t, MICRO - 1)]
        h = jnp.where(me == 0, fresh, h)
        y = layer(w, h)
        # The last stage finishes microbatch t - (STAGES - 1).
        done = t - (STAGES - 1)
        keep = (me == STAGES - 1) & (done >= 0)
        outs = outs.at[jnp.maximum(done, 0)].set(jnp.where(keep, y, outs[jnp.maximum(done, 0)]))
        return (jax.lax.ppermute(y, 'stage', right), outs), None

    # The carries differ from device to device, so they start as 'varying'
    # over 'stage' (without the pcast, scan refuses the carry's type).
    h0 = jax.lax.pcast(jnp.zeros_like(xs[0]), 'stage', to='varying')
    outs0 = jax.lax.pcast(jnp.zeros_like(xs), 'stage', to='varying')
    (_, outs), _ = jax.lax.scan(step, (h0, outs0), jnp.arange(MICRO + STAGES - 1))
    # Only the last stage holds the outputs; a psum hands them to everyone.
    return jax.lax.psum(outs, 'stage')

out = pipeline(weights, batches)

def sequential(xs):
    h = xs
    for s in range(STAGES):
        h = layer(weights[s], h)
    return h

ref = sequential(batches)
print(out.shape, jnp.allclose(out, ref, atol=1e-6))
print(jnp.round(out[0], 4))
result = {'out': out, 'max_err': jnp.max(jnp.abs(out - ref))}
