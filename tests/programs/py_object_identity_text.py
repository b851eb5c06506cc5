# Object identity in text: the default repr of an instance and of object()
# carries an address that agrees with id(), hex/oct/bin of integers, and
# type() of arrays and keys names JAX's classes.
import jax
import jax.numpy as jnp

class Point:
    pass

p = Point()
text = repr(p)
print(text.startswith("<__main__.Point object at 0x"), text == f"<__main__.Point object at {hex(id(p))}>")
o = object()
print(repr(o) == f"<object object at {hex(id(o))}>", type(o), o == o, o == object())
print(hex(255), hex(-16), oct(8), oct(-9), bin(5), bin(0), hex(True))
try:
    hex(1.5)
except TypeError as e:
    print("TypeError:", e)
print(type(jnp.ones(2)), type(jax.random.key(0)))
print(type(jnp.ones(2)).__name__, isinstance(jnp.ones(2), jax.Array))
result = jnp.float32(len(text) > 0)
