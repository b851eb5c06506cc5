# jnp.ufunc: JAX's fourteen ufunc objects and jnp.frompyfunc, with their
# reduce, accumulate, at, outer and reduceat methods.
import operator

import jax
import jax.numpy as jnp

x = jnp.arange(1, 7).reshape(2, 3)
f = jnp.array([[0.5, -1.25, 2.0], [3.5, 0.25, -0.75]], dtype=jnp.float32)

print(jnp.add, type(jnp.add), isinstance(jnp.add, jnp.ufunc), jnp.ufunc)
print(isinstance(jnp.sin, jnp.ufunc), callable(jnp.multiply))
for u in [jnp.add, jnp.multiply, jnp.subtract, jnp.negative, jnp.maximum,
          jnp.logical_and, jnp.logical_or, jnp.bitwise_and, jnp.logaddexp]:
    print(u.__name__, u.nin, u.nout, u.nargs, repr(u.identity))

print(jnp.add(x, 1), jnp.negative(x))
# reduce: axis 0 by default, None for all, keepdims, initial, where
print(jnp.add.reduce(x), jnp.add.reduce(x, axis=None), jnp.add.reduce(x, axis=1, keepdims=True))
print(jnp.multiply.reduce(x, axis=1), jnp.maximum.reduce(f), jnp.minimum.reduce(f, axis=None))
print(jnp.add.reduce(x, initial=10), jnp.add.reduce(x, where=x > 2))
print(jnp.logical_and.reduce(x > 2), jnp.logical_or.reduce(x > 4, axis=1))
print(jnp.bitwise_or.reduce(x, axis=1), jnp.bitwise_and.reduce(x), jnp.bitwise_xor.reduce(x, axis=None))
print(jnp.logical_xor.reduce(x > 1, axis=1))
print(jnp.subtract.reduce(x, axis=1), jnp.subtract.reduce(f))
print(jnp.logaddexp.reduce(f), jnp.logaddexp.reduce(f, axis=1, keepdims=True))
print(jnp.logaddexp2.reduce(f, axis=None), jnp.logaddexp.reduce(x))
print(jnp.maximum.reduce(f, where=f > 0, initial=-5.0))
# accumulate
print(jnp.add.accumulate(x, axis=1), jnp.multiply.accumulate(x))
print(jnp.bitwise_or.accumulate(x, axis=1), jnp.subtract.accumulate(f, axis=1))
print(jnp.maximum.accumulate(jnp.array([1, 3, 2, 5, 4])), jnp.logaddexp.accumulate(f[0]))
# at (a copy, inplace=False)
v = jnp.arange(5)
print(jnp.add.at(v, 0, 100, inplace=False), jnp.add.at(v, jnp.array([0, 0, 3]), 1, inplace=False))
print(jnp.multiply.at(v, jnp.array([1, 1, 4]), 3, inplace=False))
print(jnp.subtract.at(f, (0, 1), 2.0, inplace=False))
print(jnp.maximum.at(v, jnp.array([0, 2, 2]), jnp.array([7, 1, 9]), inplace=False))
print(jnp.negative.at(v, jnp.array([1, 3]), inplace=False))
print(jnp.add.at(jnp.array([True, False, False]), 1, True, inplace=False))
# outer
print(jnp.add.outer(jnp.arange(3), jnp.arange(4)))
print(jnp.multiply.outer(jnp.ones((2, 3)), jnp.arange(2)).shape)
print(jnp.logaddexp.outer(f[0], f[1]))
# reduceat
y = jnp.arange(8)
print(jnp.add.reduceat(y, jnp.array([0, 4, 1, 5])), jnp.maximum.reduceat(y, jnp.array([0, 3, 6])))
print(jnp.multiply.reduceat(x, jnp.array([0, 2]), axis=1))

# frompyfunc
add = jnp.frompyfunc(operator.add, nin=2, nout=1, identity=0)
print(add, add.identity, add(jnp.arange(4), 10))
print(add.outer(jnp.arange(3), jnp.arange(3)))
print(add.reduce(jnp.arange(5)), add.accumulate(jnp.arange(5)), add.at(jnp.arange(4), 1, 10, inplace=False))


def affine(a, b):
    return a * 0.37 + b


fma = jnp.frompyfunc(affine, 2, 1)
print(fma(f, f[::-1]), fma.reduce(f), fma.accumulate(f[1]))
print(jax.jit(lambda a: jnp.add.reduce(a, axis=1))(f))
print(jax.grad(lambda a: jnp.logaddexp.reduce(a))(f[0]))

# errors, as JAX raises them
for thunk in [
    lambda: jnp.add.at(v, 0, 1),
    lambda: jnp.negative.reduce(v),
    lambda: jnp.minimum.reduce(f, where=f > 0),
    lambda: jnp.add.reduce(f, where=f),
    lambda: add.reduce(jnp.zeros((0,), jnp.int32), initial=None) if False else fma.reduce(jnp.zeros((0,))),
    lambda: jnp.add(x, x, out=x),
    lambda: jnp.add.reduceat(y, jnp.array([[0, 1]])),
    lambda: fma.accumulate(f, axis=None),
]:
    try:
        print(thunk())
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0])

result = {"reduce": jnp.logaddexp.reduce(f, axis=1), "outer": jnp.add.outer(jnp.arange(2), jnp.arange(2))}
