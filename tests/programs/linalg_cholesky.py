# Cholesky factors through jnp.linalg, jax.lax.linalg and jax.scipy.linalg:
# real and complex Hermitian matrices, batches, the upper factor, a matrix
# that is not positive definite (NaNs), and derivatives in both modes.
import jax
import jax.numpy as jnp
import jax.scipy as jsp

spd = jnp.array([[6.0, 2.0, 1.0], [2.0, 5.0, -1.5], [1.0, -1.5, 4.0]])
herm = jnp.array([[9.0, 1.0 - 2.0j, 0.5j], [1.0 + 2.0j, 6.0, 2.0 + 1.0j], [-0.5j, 2.0 - 1.0j, 7.0]])

print(jnp.linalg.cholesky(spd))
print(jnp.linalg.cholesky(spd, upper=True))
print(jnp.linalg.cholesky(herm))
print(jsp.linalg.cholesky(herm))
print(jsp.linalg.cholesky(spd, lower=True))
skew = spd.at[0, 2].set(4.0)
print(jax.lax.linalg.cholesky(skew, symmetrize_input=False))
print(jax.lax.linalg.cholesky(skew))
print(jnp.linalg.cholesky(jnp.array([[1.0, 3.0], [3.0, 1.0]])))
batch = jnp.stack([spd, spd * 2.0 + jnp.eye(3)])
print(jnp.linalg.cholesky(batch))
print(jnp.linalg.cholesky(jnp.array([[4, 2], [2, 3]])))

weights = jnp.arange(9.0).reshape(3, 3) / 4.0


def f(x):
    return jnp.sum(jnp.linalg.cholesky(x) * weights)


def g(x):
    l = jnp.linalg.cholesky(x)
    return jnp.sum((l + jnp.cos(l)) ** 2)


print(jax.grad(f)(spd))
print(jax.jacfwd(f)(spd))
print(jax.jit(jax.grad(f))(spd))
print(jax.grad(g, holomorphic=True)(herm))
print(jax.jvp(jnp.linalg.cholesky, (spd,), (jnp.eye(3),))[1])
print(jax.vmap(jnp.linalg.cholesky)(batch))
for bad in [jnp.ones(3), jnp.ones((2, 3))]:
    try:
        jnp.linalg.cholesky(bad)
    except Exception as e:
        print(type(e).__name__, e)
result = jax.grad(f)(spd * 1.5)
