# The trigonometric and hyperbolic functions and their inverses on complex64,
# sign, round, isinf, angle in degrees, the complex predicates, casting a
# complex array to a real dtype, and dtypes named by strings.
import jax
import jax.numpy as jnp
import numpy as np

z = jnp.array([0.5 + 1.25j, -2.0 + 0.3j, 3.0 - 4.0j, 0.1j, -0.75 - 0.6j])
with jnp.printoptions(precision=4, suppress=True):
    for f in [jnp.tan, jnp.tanh, jnp.sinh, jnp.cosh, jnp.arcsin, jnp.arccos,
              jnp.arctan, jnp.arcsinh, jnp.arccosh, jnp.arctanh, jnp.sign,
              jnp.log1p, jnp.expm1]:
        print(f.__name__, f(z))
    print(jnp.tan(jnp.array([1 + 1j])), jnp.arccos(jnp.array([4 - 1j])))
    print(jax.jit(lambda a: jnp.arcsinh(a) * jnp.cosh(a))(z))
print(jnp.sign(jnp.array([0j, 3 - 4j, -2j])))
print(jnp.round(jnp.array([1.26 + 2.35j, -0.5 + 1.5j])), jnp.round(z, 1))
print(jnp.isinf(jnp.array([1 + jnp.inf * 1j, 2 + 0j, -jnp.inf + 0j, jnp.nan + 0j])))
print(jnp.angle(z, deg=True), jnp.angle(jnp.array([1.0, -2.0]), deg=True))
print(jnp.iscomplex(jnp.array([1 + 0j, 2j, 3])), jnp.isreal(jnp.array([1 + 0j, 2j])))
print(jnp.iscomplex(jnp.arange(3)), jnp.isreal(jnp.arange(3.0)))
print(jnp.iscomplexobj(z), jnp.iscomplexobj(1j), jnp.iscomplexobj(2.0),
      jnp.isrealobj(z), jnp.isrealobj(jnp.arange(2)), jnp.iscomplexobj(None))
print(z.astype(jnp.float32), z.astype('int32'))
print(jax.make_jaxpr(lambda a: a.astype(jnp.float32))(z))
print(jax.make_jaxpr(jnp.arccos)(z))
print(jnp.issubdtype(z.dtype, 'complex64'), jnp.issubdtype('complex64', jnp.integer),
      jnp.issubdtype(np.dtype('complex64'), jnp.complexfloating))
print(repr(np.dtype('complex64')), repr(jnp.dtype('int16')), jnp.dtype('float32'))
result = [jnp.abs(jnp.tan(z)), jnp.real(jnp.arcsin(z))]
