import jax, jax.numpy as jnp, numpy as np
from jax import lax
from jax.sharding import Mesh, PartitionSpec as P
mesh = Mesh(np.array(jax.devices()[:4]), ('x',))
perm = [(j, (j + 1) % 4) for j in range(4)]
def collective_matmul(a, b):
    idx = lax.axis_index('x')
    def step(i, carry):
        acc, blk = carry
        k = (idx - i) % 4
        acc = acc + lax.dynamic_slice_in_dim(a, k * 2, 2, axis=1) @ blk
        return acc, lax.ppermute(blk, 'x', perm)
    acc0 = lax.pcast(jnp.zeros((a.shape[0], b.shape[1]), jnp.float32), 'x', to='varying')
    return lax.fori_loop(0, 4, step, (acc0, b))[0]
A = jnp.arange(32.0).reshape(4, 8)
B = jnp.arange(16.0).reshape(8, 2)
mm = jax.shard_map(collective_matmul, mesh=mesh, in_specs=(P(), P('x')), out_specs=P('x'))
r1 = mm(A, B)
r2 = jax.jit(mm)(A, B)
def pipeline(v):
    def body(c, x):
        s = lax.psum(x * c, 'x')
        return c + 1.0, s
    return lax.scan(body, jnp.float32(1.0), v)
r3 = jax.shard_map(pipeline, mesh=mesh, in_specs=P(None, 'x'), out_specs=(P(), P()))(jnp.arange(12.0).reshape(3, 4))
def shift(v):
    return lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, lax.ppermute(c[1], 'x', perm) + 1.0), (0, v))[1]
r4 = jax.shard_map(shift, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(jnp.arange(4.0))
r5 = jax.shard_map(lambda v: lax.cond(lax.axis_index('x') % 2 == 0, lambda u: u * 10.0, lambda u: -u, v), mesh=mesh, in_specs=P('x'), out_specs=P('x'))(jnp.arange(8.0))
r6 = jax.pmap(lambda v: lax.fori_loop(0, 3, lambda i, c: lax.psum(c, 'i') * 0.5, v), axis_name='i')(jnp.arange(4.0))
r7 = jax.shard_map(lambda v: jax.vmap(lambda r: lax.fori_loop(0, 2, lambda i, c: lax.psum(c, 'x') + r, r))(v), mesh=mesh, in_specs=P(None, 'x'), out_specs=P(None, 'x'), check_vma=False)(jnp.arange(8.0).reshape(2, 4))
g = jax.grad(lambda w: jnp.sum(jax.shard_map(lambda v: lax.fori_loop(0, 3, lambda i, c: lax.ppermute(c * w, 'x', perm), v), mesh=mesh, in_specs=P('x'), out_specs=P('x'))(jnp.arange(4.0) + 1.0) ** 2))(1.5)
print(r1)
print(r2)
print(r3[0], r3[1])
print(r4, r5, r6)
print(r7, g)
try:
    jax.shard_map(lambda v: lax.fori_loop(0, 2, lambda i, c: c + v, jnp.zeros(1)), mesh=mesh, in_specs=P('x'), out_specs=P('x'))(jnp.arange(4.0))
except TypeError as err:
    print("TypeError:", err)
result = [r1, r2, r3[0], r3[1], r4, r5, r6, r7, g]
