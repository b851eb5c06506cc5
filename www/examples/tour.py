# A tour of JAX's SPMD model on 8 devices. The same text runs in JAX
# (XLA_FLAGS=--xla_force_host_platform_device_count=8) and in shardlab
# (`shardlab run examples/tour.py`), and prints the same numbers.
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, PartitionSpec as P

devices = np.array(jax.devices()[:8])

# 1. Each of 8 devices sums its 2 elements; psum adds the 8 partial sums.
mesh = Mesh(devices, ('data',))
total = jax.shard_map(lambda x: jax.lax.psum(jnp.sum(x), 'data'),
                      mesh=mesh, in_specs=P('data'), out_specs=P())
print("psum of arange(16) over 8 devices:", total(jnp.arange(16.0)))

# 2. A 2x4 mesh: sum over 'y' only. The result still varies over 'x',
#    so out_specs must keep 'x'.
mesh2 = Mesh(devices.reshape(2, 4), ('x', 'y'))
rows = jax.shard_map(lambda b: jax.lax.psum(b, 'y'),
                     mesh=mesh2, in_specs=P('x', 'y'), out_specs=P('x', None))
print("psum over 'y' on a 2x4 mesh:")
print(rows(jnp.arange(32.0).reshape(4, 8)))

# 3. A ring: every device passes its block to the next one.
ring = jax.shard_map(lambda b: jax.lax.ppermute(b, 'data', [(i, (i + 1) % 8) for i in range(8)]),
                     mesh=mesh, in_specs=P('data'), out_specs=P('data'))
print("ppermute ring:", ring(jnp.arange(8.0)))

# 4. Gradients. The weight w is replicated (P()); the data is split over 'data'.
def loss(w, x):
    per_device = lambda w, x: jax.lax.psum(jnp.sum((x @ w) ** 2), 'data')
    return jax.shard_map(per_device, mesh=mesh, in_specs=(P(), P('data')), out_specs=P())(w, x)

w = jnp.array([1.0, -0.5])
x = jnp.arange(32.0).reshape(16, 2) / 8  # exact in float32, so every sum is too
print("loss:", loss(w, x))
print("grad w.r.t. the replicated weight:", jax.grad(loss)(w, x))

# 5. pmean of a gradient taken inside the body: with check_vma=True (the
#    default) the gradient of a replicated input is already summed over the
#    devices, so pmean returns the sum; with check_vma=False it is the mean.
def inner(check_vma):
    def body(w, x):
        g = jax.grad(lambda w: jnp.sum((x @ w) ** 2))(w)
        return jax.lax.pmean(g, 'data')
    return jax.shard_map(body, mesh=mesh, in_specs=(P(), P('data')), out_specs=P(),
                         check_vma=check_vma)(w, x)

print("pmean(grad) inside shard_map, check_vma=True: ", inner(True))
print("pmean(grad) inside shard_map, check_vma=False:", inner(False))

result = {"total": total(jnp.arange(16.0)), "grad": jax.grad(loss)(w, x),
          "pmean_vma": inner(True), "pmean_novma": inner(False)}
