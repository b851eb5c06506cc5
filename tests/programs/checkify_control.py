# Checks inside lax.cond, lax.scan, lax.while_loop (body and predicate)
# and fori_loop: the error is carried through the loops as data.
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import checkify


def small(x):
    checkify.check(x < 10.0, "x too big: {}", x)
    return x * 2


def branchy(x):
    return lax.cond(x > 0, small, lambda x: x - 1.0, x)


for v in [1.0, 20.0, -30.0]:
    err, out = checkify.checkify(branchy)(jnp.float32(v))
    print(err.get(), out)

err, out = jax.jit(checkify.checkify(lambda i, x: lax.switch(i, [small, jnp.sin, small], x)))(2, 12.0)
print(err.get(), out)


def step(c, x):
    checkify.check(x != 3.0, "bad element {x} with carry {c}", x=x, c=c)
    return c + x, c * x


err, out = checkify.checkify(lambda xs: lax.scan(step, 0.0, xs))(jnp.arange(6.0))
print(err.get(), out)
err, out = checkify.checkify(lambda xs: lax.scan(step, 0.0, xs, reverse=True))(jnp.arange(5.0))
print(err.get(), out)


def loop(x):
    def body(c):
        i, acc = c
        checkify.check(acc < 20, "acc overflow {} at {}", acc, i)
        return i + 1, acc + i

    return lax.while_loop(lambda c: c[0] < 10, body, (0, x))


err, out = checkify.checkify(loop)(jnp.int32(0))
print(err.get(), out)
err, out = checkify.checkify(loop)(jnp.int32(-100))
print(err.get(), out)


def guarded(x):
    def cond(c):
        checkify.check(c < 100, "predicate saw {}", c)
        return c < 1000

    return lax.while_loop(cond, lambda c: c * 3, x)


for v in [5, 500]:
    err, out = checkify.checkify(guarded)(jnp.int32(v))
    print(err.get(), out)

err, out = checkify.checkify(lambda x: lax.fori_loop(0, 5, lambda i, a: small(a + i), x))(jnp.float32(1.0))
print(err.get(), out)
err, out = jax.jit(checkify.checkify(lambda x: lax.fori_loop(0, 3, lambda i, a: small(a + i), x)))(0.5)
print(err.get(), out)
result = float(out)
