import jax
import jax.numpy as jnp
from jax.scipy import special as sp

x = jnp.array([0.0, 0.5, 1.0, 2.0, 0.0])
y = jnp.array([0.0, 0.25, 3.0, 0.5, jnp.nan])
p = jnp.array([0.0, 0.2, 0.3, 0.5, -0.1, 0.4])
q = jnp.array([0.1, 0.0, 0.3, 0.25, 0.2, -0.5])
outs = {
    "xlogy": sp.xlogy(x, y),
    "xlog1py": sp.xlog1py(x, jnp.array([-1.0, 0.5, 2.0, -0.5, 1.0])),
    "entr": sp.entr(jnp.array([-1.0, 0.0, 0.25, 1.0, 3.0])),
    "rel_entr": sp.rel_entr(p, q),
    "kl_div": sp.kl_div(p, q),
    "softmax": sp.softmax(jnp.array([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0]])),
    "softmax0": sp.softmax(jnp.array([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0]]), axis=0),
    "log_softmax": sp.log_softmax(jnp.array([1.0, 2.0, 3.0])),
}
for k, v in outs.items():
    print(k, v.dtype, v)
print(sp.xlogy(2, 3), sp.xlogy(jnp.int32(0), 0), sp.entr(2))
print(sp.xlogy(jnp.array([1.0, 2.0]), 4.0))
print(jax.jit(sp.kl_div)(p, q))
print(jax.grad(lambda a: sp.xlogy(a, 3.0))(2.0))
print(jax.grad(lambda b: sp.xlogy(2.0, b))(4.0))
print(jax.grad(lambda b: sp.entr(b))(0.5))
print(jax.vmap(jax.grad(lambda a: sp.rel_entr(a, 0.3)))(jnp.array([0.1, 0.6])))
# The sum of kl_div over a distribution is its KL divergence.
print(sp.kl_div(jnp.array([0.1, 0.9]), jnp.array([0.5, 0.5])).sum())
result = {k: jnp.where(jnp.isfinite(v), v, -1.0) for k, v in outs.items()}
