# Triangular solves: jax.scipy.linalg.solve_triangular with vectors and
# matrices, trans, lower and unit_diagonal; lax.linalg.triangular_solve on
# either side; complex operands; derivatives in a and b; shape errors.
import jax
import jax.numpy as jnp
import jax.scipy as jsp

a = jnp.array([[3.0, 0.5, -1.0], [1.5, 2.0, 0.25], [-0.5, 1.0, 4.0]])
b = jnp.array([1.0, -2.0, 3.0])
bm = jnp.array([[1.0, 2.0], [0.5, -1.0], [3.0, 0.0]])
solve = jsp.linalg.solve_triangular

print(solve(a, b, lower=True))
print(solve(a, b))
print(solve(a, bm, trans=1))
print(solve(a, bm, trans="T", lower=True, unit_diagonal=True))
print(solve(a, jnp.array([1, 2, 3])))
ac = a + 1j * jnp.tril(a)
print(solve(ac, b, lower=True, trans=2))
print(solve(ac, bm + 0.5j, lower=True))
tri = jax.lax.linalg.triangular_solve
print(tri(a, bm, left_side=True, lower=True))
print(tri(a, bm.T, lower=False, transpose_a=True))
print(tri(ac, bm + 0j, left_side=True, lower=True, transpose_a=True, conjugate_a=True))
print(jax.make_jaxpr(lambda x, y: tri(x, y, left_side=True, lower=True))(a, bm))


def loss(x, y):
    return jnp.sum(solve(x, y, lower=True) ** 2)


def loss_right(x):
    return jnp.sum(jnp.sin(tri(x, bm.T, lower=False, transpose_a=True, unit_diagonal=True)))


print(jax.grad(loss, argnums=(0, 1))(a, b))
print(jax.grad(loss, argnums=(0, 1))(a, bm))
print(jax.jacfwd(loss, argnums=(0, 1))(a, b))
print(jax.grad(loss_right)(a))
print(jax.jacfwd(loss_right)(a))
print(jax.grad(lambda x: jnp.sum(solve(x, bm + 1j, lower=True, trans=2)), holomorphic=True)(ac))
for f in [
    lambda: solve(a, jnp.ones(2)),
    lambda: tri(a, jnp.ones((3, 2)), left_side=False),
    lambda: solve(a, jnp.ones((2, 2))),
    lambda: tri(ac, bm, left_side=True),
]:
    try:
        f()
    except Exception as e:
        print(type(e).__name__, e)
result = solve(a, bm, lower=True)
