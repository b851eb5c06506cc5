# A host function (SciPy's Bessel functions) behind pure_callback, given a
# derivative with custom_jvp: the rule calls the callback on primal values.
from functools import partial

import jax
import jax.numpy as jnp
import scipy.special


def bessel(v, z):
    v, z = jnp.asarray(v), jnp.asarray(z)
    out = jax.ShapeDtypeStruct(jnp.broadcast_shapes(v.shape, z.shape), z.dtype)
    host = lambda v, z: scipy.special.jv(v, z).astype(z.dtype)
    return jax.pure_callback(host, out, v, z, vmap_method="broadcast_all")


bessel = jax.custom_jvp(bessel)


@bessel.defjvp
def _bessel_jvp(primals, tangents):
    v, z = primals
    _, z_dot = tangents
    below, above = bessel(v - 1, z), bessel(v + 1, z)
    slope = jnp.where(v == 0, -above, 0.5 * (below - above))
    return bessel(v, z), z_dot * slope


z = jnp.linspace(0.0, 6.0, 7)
print(bessel(0, z))
print(bessel(jnp.arange(3)[:, None], z[None, :3]))
j1 = partial(bessel, 1)
value, slope = jax.jvp(j1, (z,), (jnp.ones_like(z),))
print(value, slope)
result = jax.grad(lambda x: jnp.sum(j1(x)))(z)
