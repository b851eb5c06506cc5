# `is` on arrays is identity (the same object, not equal values), and `del`
# of attributes and of several targets at once.
import jax.numpy as jnp

x = jnp.arange(3.0)
y = x
z = x + 0
print(x is y, x is z, x is not z, (x == z).all(), x.reshape(3) is x)


class Box:
    pass


b = Box()
b.u, b.v, b.w = 1, 2, 3
del b.u
del (b.v, b.w)
print(hasattr(b, "u"), hasattr(b, "v"), vars(b))
try:
    del b.u
except AttributeError as e:
    print("AttributeError", e)
p, q = 1, 2
del p, q
try:
    print(p)
except NameError as e:
    print("NameError", e)
result = [x is y, x is z]
