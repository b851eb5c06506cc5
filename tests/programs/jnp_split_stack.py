# atleast_*d, array_split/hsplit/vsplit/dsplit, dstack, column_stack,
# fliplr/flipud, unstack, append, matrix_transpose, permute_dims, rollaxis.
import jax, jax.numpy as jnp

print(jnp.atleast_1d(2.0), jnp.atleast_2d(jnp.arange(3)), jnp.atleast_3d(jnp.arange(6).reshape(2, 3)).shape)
print(jnp.atleast_1d(1, jnp.arange(2)), [v.shape for v in jnp.atleast_3d(1.0, jnp.arange(4))])
print(jnp.array_split(jnp.arange(8), 3), jnp.array_split(jnp.arange(12).reshape(2, 6), [1, 4], axis=1))
print(jnp.hsplit(jnp.arange(6), 3), jnp.hsplit(jnp.arange(8).reshape(2, 4), 2))
print(jnp.vsplit(jnp.arange(8).reshape(4, 2), [3]), jnp.dsplit(jnp.arange(8).reshape(1, 2, 4), 2))
try:
    jnp.hsplit(jnp.arange(8).reshape(2, 4), 3)
except ValueError as e:
    print("ValueError:", e)
print(jnp.dstack([jnp.arange(3), jnp.arange(3, 6)]), jnp.column_stack([jnp.arange(2), jnp.ones((2, 2))]))
print(jnp.fliplr(jnp.arange(6).reshape(2, 3)), jnp.flipud(jnp.arange(6).reshape(2, 3)))
print(jnp.unstack(jnp.arange(6).reshape(2, 3), axis=1), jnp.append(jnp.arange(3), jnp.ones((2, 2))))
print(jnp.append(jnp.ones((1, 2)), jnp.zeros((2, 2)), axis=0))
t = jnp.ones((2, 3, 4))
print(jnp.matrix_transpose(t).shape, jnp.permute_dims(t, (1, 2, 0)).shape, jnp.rollaxis(t, 2, 1).shape, jnp.rollaxis(t, 0, 3).shape)
print(jax.jit(lambda v: jnp.array_split(v, 2)[1])(jnp.arange(5.0)))
print(jax.grad(lambda v: (jnp.fliplr(v) * jnp.arange(3.0)).sum())(jnp.ones((2, 3))))
result = jnp.column_stack([jnp.arange(3), jnp.arange(3)])
