import jax
import jax.numpy as jnp
from jax.scipy import special as sp

x = jnp.array([-2.5, -1.5, -0.5, 1e-3, 0.5, 1.5, 2.5, 3.7, 10.0, 50.0])
outs = {
    "gammaln": sp.gammaln(x),
    "digamma": sp.digamma(x),
    "gamma": sp.gamma(jnp.array([-2.5, -1.5, -0.5, 0.5, 1.5, 4.0, 6.5])),
    "gammasgn": sp.gammasgn(jnp.array([-2.5, -1.5, -1.0, 0.0, -0.0, 0.5, 3.0])),
    "factorial": sp.factorial(jnp.array([-1.0, 0.0, 3.0, 5.5, 10.0])),
    "erfc": sp.erfc(jnp.array([-3.0, -0.5, 0.0, 0.3, 1.0, 2.5, 4.0, 9.0])),
    "ndtr": sp.ndtr(jnp.array([-6.0, -2.0, -0.5, 0.0, 0.5, 1.0, 3.0])),
    "i0e": sp.i0e(jnp.array([-3.0, 0.0, 0.5, 1.0, 7.9, 8.1, 40.0, 300.0])),
    "i1e": sp.i1e(jnp.array([-3.0, 0.0, 0.5, 1.0, 7.9, 8.1, 40.0, 300.0])),
    "i0": sp.i0(jnp.array([0.0, 1.0, -3.0, 5.0])),
    "i1": sp.i1(jnp.array([0.0, 1.0, -3.0, 5.0])),
}
for k, v in outs.items():
    print(k, v.dtype, v)
print(sp.gammaln(3), sp.erfc(1), sp.digamma(jnp.int32(2)))
print(sp.gammaln(jnp.array([0.0, -1.0, jnp.inf])), sp.digamma(jnp.array([0.0, -2.0, jnp.inf])))
print(sp.erfc(jnp.array([-jnp.inf, jnp.inf])), sp.i0e(jnp.inf), sp.i1e(-jnp.inf))
print(jax.lax.lgamma(4.5), jax.lax.digamma(4.5), jax.lax.erfc(0.25))
print(jax.lax.bessel_i0e(2.0), jax.lax.bessel_i1e(2.0))
# Gradients by JAX's rules.
print(jax.vmap(jax.grad(sp.gammaln))(jnp.array([0.5, 2.0, 7.5])))
print(jax.vmap(jax.grad(sp.erfc))(jnp.array([-1.0, 0.0, 2.0])))
print(jax.vmap(jax.grad(sp.i0e))(jnp.array([-2.0, 0.5, 3.0])))
print(jax.vmap(jax.grad(sp.i1e))(jnp.array([-2.0, 0.0, 0.5, 3.0])))
print(jax.vmap(jax.grad(sp.ndtr))(jnp.array([-1.0, 0.2, 2.0])))
print(jax.jit(sp.gamma)(jnp.array([0.25, 5.0])))
print(jax.make_jaxpr(sp.gammaln)(1.0))
result = {k: jnp.where(jnp.isfinite(v), v, -1.0) for k, v in outs.items()}
