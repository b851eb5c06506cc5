# optax.projections: projections of arrays and pytrees onto boxes,
# simplices, balls, spheres, hyperplanes and half-spaces, with the
# simplex projection's own derivative rule.
import jax
import jax.numpy as jnp
import optax
from optax import projections

x = jnp.array([0.8, -1.5, 2.0, 0.1])
tree = {"a": jnp.array([0.5, -0.25]), "b": jnp.array([[1.5, -2.0], [0.0, 0.75]])}

print(projections.projection_non_negative(tree))
print(optax.projections.projection_box(x, -1.0, 1.0))
print(projections.projection_box(tree, {"a": -0.3, "b": 0.0}, {"a": 0.3, "b": 1.0}))
print(projections.projection_hypercube(x), projections.projection_hypercube(x, 0.5))
print(projections.projection_simplex(x))
print(projections.projection_simplex(x, scale=3.0))
print(projections.projection_simplex(tree))
print(projections.projection_l1_sphere(x, 2.0))
print(projections.projection_l2_sphere(x), projections.projection_l2_sphere(tree, 2.0))
print(projections.projection_l2_ball(x), projections.projection_l2_ball(x, 10.0))
print(projections.projection_l2_ball(tree, 0.5))
print(projections.projection_linf_ball(x, 0.6), projections.projection_linf_ball(tree))
a = jnp.array([1.0, 2.0, -1.0, 0.5])
print(projections.projection_vector(x, a))
print(projections.projection_hyperplane(x, a, 1.0))
print(projections.projection_halfspace(x, a, 1.0), projections.projection_halfspace(x, a, 10.0))
print(jnp.clip(x, max=0.5), jnp.clip(x, min=-1.0), jnp.clip(x, -0.5, 0.5))

jac = jax.jacobian(projections.projection_simplex)(jnp.array([0.5, 0.3, -0.2, 0.9]))
print(jac)
g = jax.grad(lambda v: jnp.sum(projections.projection_simplex(v) * jnp.arange(4.0)))(x)
print(g)
print(jax.jit(projections.projection_simplex)(x))

# Projected gradient descent onto the simplex.
target = jnp.array([0.1, 0.6, 0.2, 0.1])
w = jnp.ones(4) / 4
opt = optax.sgd(0.5)
st = opt.init(w)
for _ in range(20):
    grads = jax.grad(lambda v: jnp.sum((v - target) ** 2))(w)
    upd, st = opt.update(grads, st)
    w = projections.projection_simplex(optax.apply_updates(w, upd))
print(w, jnp.sum(w))

result = [projections.projection_simplex(x), jac, w]
