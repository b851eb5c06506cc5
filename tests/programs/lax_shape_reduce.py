# lax's shape functions (transpose, reshape, rev, squeeze, expand_dims,
# concatenate, split, collapse, iotas, full), reductions, argmax, sort and
# batch_matmul, eagerly and under jit, vmap and grad.
import jax
import jax.numpy as jnp
from jax import lax

m = jnp.arange(24.0).reshape(2, 3, 4)
print(lax.transpose(m, (2, 0, 1)).shape, lax.transpose(m, (1, 0, 2))[1])
print(lax.reshape(m, (6, 4))[5], lax.reshape(m, (4, 6), dimensions=(2, 1, 0))[0])
print(lax.rev(m, (0, 2))[0, 0], lax.rev(m, (2,))[1, 2])
print(lax.squeeze(jnp.ones((1, 3, 1)), (0, -1)).shape, lax.expand_dims(m, (0, 4)).shape)
print(lax.concatenate([m[0], m[1], m[0]], 1).shape, lax.concatenate([jnp.arange(2), jnp.arange(3)], 0))
print(lax.split(jnp.arange(10), (3, 0, 7)))
print(lax.split(m, (1, 3), axis=2)[1].shape)
print(lax.collapse(m, 0, 2).shape, lax.collapse(m, 1).shape, lax.collapse(m, -2, None).shape)
print(lax.iota(jnp.int32, 4), lax.iota(jnp.float32, 3), lax.broadcasted_iota(jnp.int32, (2, 3), 1))
print(lax.broadcasted_iota(jnp.uint8, (3, 2), 0))
print(lax.full((2, 2), 3.5), lax.full((3,), 2, jnp.float32), lax.full((), True).dtype)
print(lax.full_like(m[0], 7).dtype, lax.full_like(jnp.arange(3), 1.9), lax.full_like(m, 0, shape=(2,)))
print(lax.broadcast_to_rank(jnp.arange(3.0), 3).shape, lax.broadcast_shapes((2, 1), (1, 3), (3,)))
print(lax.dynamic_index_in_dim(m, 2, axis=2), lax.dynamic_index_in_dim(m, -1, 1, False).shape)
print(lax.dynamic_update_slice_in_dim(jnp.zeros(6), jnp.ones(2), 5, 0))
print(lax.dynamic_update_index_in_dim(jnp.zeros((3, 2)), jnp.array([4.0, 5.0]), 1, 0))

print(lax.reduce_sum(m, (0, 2)), lax.reduce_prod(m[:, :, 1:3], (1,)))
print(lax.reduce_max(m, (1,)), lax.reduce_min(-m, (0, 1, 2)))
flags = jnp.array([[True, False, True], [True, True, True]])
print(lax.reduce_and(flags, (1,)), lax.reduce_or(flags, (0,)), lax.reduce_xor(flags, (1,)))
print(lax.reduce(m, 0.0, lax.add, (2,)), lax.reduce(m, -jnp.inf, lax.max, (0, 1)))
print(lax.reduce(jnp.arange(1, 5), 10, lax.mul, (0,)))
s = jnp.array([[3.0, 1.0, 2.0, 1.0], [0.0, jnp.nan, -1.0, 5.0]])
print(lax.argmax(s, 1, jnp.int32), lax.argmin(s, 0, jnp.int32), lax.argmax(s, 1, jnp.uint8).dtype)
print(lax.sort(s), lax.sort(s, dimension=0))
k1 = jnp.array([2, 1, 2, 1, 0])
k2 = jnp.array([5, 9, 1, 3, 7])
vals = jnp.array([10.0, 20.0, 30.0, 40.0, 50.0])
print(lax.sort((k1, k2, vals), num_keys=2))
print(lax.sort([k1, vals]))
print(lax.sort_key_val(k2, vals))
print(lax.batch_matmul(jnp.ones((2, 3, 4)), m.reshape(2, 4, 3)))
bits = lax.bitcast_convert_type(jnp.array([1.0, -2.0]), jnp.int32)
print(bits, lax.bitcast_convert_type(bits, jnp.float32), lax.bitcast_convert_type(bits, jnp.uint32))


@jax.jit
def f(x):
    y = lax.reshape(lax.transpose(x, (1, 0, 2)), (3, 8))
    parts = lax.split(y, (3, 5), axis=1)
    return lax.reduce_sum(parts[1], (1,)), lax.argmax(y, 1, jnp.int32), lax.sort(lax.rev(y, (1,)))[0]


print(f(m))
print(jax.make_jaxpr(lambda x: (lax.reduce_max(lax.transpose(x, (0, 2, 1)), (1,)), lax.reduce_sum(x, (0,))))(m[:1]))
print(jax.vmap(lambda r: lax.sort_key_val(r, lax.iota(jnp.int32, 4)))(s))
print(jax.vmap(lambda x: lax.concatenate([x, lax.full((2,), 9.0)], 0))(m[0]))
g = jax.grad(lambda x: (lax.reduce_sum(lax.transpose(x, (2, 1, 0)) ** 2, (0, 1, 2))
                        + lax.reduce_max(x, (0, 1, 2)) + lax.split(x, (2, 2), axis=2)[1].sum()))(m)
print(g[1])
print(jax.grad(lambda x: lax.batch_matmul(x, x).sum())(jnp.eye(2)[None] * 2.0))
print(jax.grad(lambda x: lax.dynamic_update_slice_in_dim(x, x[:2] * 3, 1, 0).sum())(jnp.ones(4)))

for bad in [lambda: lax.transpose(m, (0, 0, 1)),
            lambda: lax.squeeze(m, (1,)), lambda: lax.full((2,), jnp.ones(2))]:
    try:
        bad()
    except (TypeError, ValueError) as e:
        print(type(e).__name__, e)

P = lax.Precision
print(P.HIGHEST, repr(P.HIGH), P('float32'), P(0), P.DEFAULT.value, P.HIGHEST.name)
print(P('highest') == P.HIGHEST, P.HIGH == P.HIGHEST, isinstance(P.HIGH, P))
e = jnp.eye(2) * 3.0
print(lax.dot(e, e, precision=P.HIGHEST), lax.dot(e, e, precision=(P.HIGH, P.DEFAULT)))
print(lax.batch_matmul(e[None], e[None], precision=P.HIGHEST))

result = lax.reduce_sum(m, (1,))
