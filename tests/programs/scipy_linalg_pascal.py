# jax.scipy.linalg.pascal and invpascal: the lower, upper and symmetric
# matrices of binomial coefficients (float32 through lgamma, so printed
# rounded) and their inverses, whose products with them are the identity.
import jax.numpy as jnp
from jax.scipy import linalg

r = lambda v: jnp.round(v, 3) + 0.0
print(r(linalg.pascal(3, kind='lower')), linalg.pascal(3).dtype)
print(r(linalg.pascal(4, kind='upper')))
print(r(linalg.pascal(5)))
print(r(linalg.invpascal(4, kind='lower')))
print(r(linalg.invpascal(4, kind='upper')))
print(r(linalg.invpascal(5)))
print(r(linalg.pascal(4) @ linalg.invpascal(4)))
print(r(linalg.pascal(1)), r(linalg.invpascal(2, 'lower')))
for f in [lambda: linalg.pascal(3, kind='diagonal'),
          lambda: linalg.invpascal(3, kind='sym')]:
    try:
        f()
    except ValueError as e:
        print('ValueError', e)
result = linalg.pascal(4)
