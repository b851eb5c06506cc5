# The automatic checks: NaNs, division by zero and out-of-bounds indices,
# alone and combined with user checks, under jit and grad.
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import checkify

err, out = checkify.checkify(jnp.log, errors=checkify.nan_checks)(jnp.array([1.0, -1.0]))
print(err.get(), out)
err, out = checkify.checkify(lambda x: jnp.sin(x) + x, errors=checkify.float_checks)(jnp.inf)
print(err.get(), out)
err, out = checkify.checkify(lambda x: jnp.log(x), errors=checkify.user_checks)(-1.0)
print(err.get(), out)

# Division: true and floor division, ints and floats.
err, out = checkify.checkify(lambda x, y: x // y, errors=checkify.div_checks)(jnp.arange(3), jnp.array([1, 0, 1]))
print(err.get(), out)
err, out = checkify.checkify(lambda x, y: x / y, errors=checkify.float_checks)(jnp.arange(3.0), jnp.array([1.0, 0.0, 2.0]))
print(err.get(), out)
err, out = checkify.checkify(lambda x, y: x / y, errors=checkify.float_checks)(jnp.zeros(2), jnp.ones(2))
print(err.get(), out)


# The site that failed first in the program is reported.
def both(x):
    y = jnp.sqrt(x)
    checkify.check(jnp.all(x > -5), "far below: {}", x)
    return y / x


for v in [[1.0, -1.0], [-9.0, 4.0], [0.0, 4.0], [1.0, 4.0]]:
    err, out = checkify.checkify(both, errors=checkify.all_checks)(jnp.array(v))
    print(err.get())

# Index checks: integer indices, gathers, dynamic slices and updates.
x = jnp.arange(3.0)
err, out = checkify.checkify(lambda x, i: x[i], errors=checkify.index_checks)(x, 5)
print(err.get(), out)
err, out = checkify.checkify(lambda x, i: x[i], errors=checkify.index_checks)(x, -1)
print(err.get(), out)
err, out = jax.jit(checkify.checkify(lambda x, i: x[i], errors=checkify.index_checks))(x, -4)
print(err.get(), out)
err, out = checkify.checkify(lambda x: x[jnp.array([0, 4, -1, -7])], errors=checkify.index_checks)(x)
print(err.get(), out)
m = jnp.ones((3, 3))
err, out = checkify.checkify(lambda m, i: lax.dynamic_slice(m, (i, 1), (2, 2)), errors=checkify.index_checks)(m, 2)
print(err.get(), out.shape)
err, out = jax.jit(checkify.checkify(lambda x, i: x.at[i].set(7.0), errors=checkify.index_checks))(x, 4)
print(err.get(), out)

# Under jit (inside and outside) and of a gradient.
def f(x):
    checkify.check(x.sum() > 0, "sum {} is not positive", x.sum())
    return jnp.log(x)


err, out = checkify.checkify(jax.jit(f), errors=checkify.all_checks)(jnp.array([-1.0, 2.0]))
print(err.get(), out)
err, out = checkify.checkify(jax.jit(f), errors=checkify.all_checks)(jnp.array([-3.0, 2.0]))
print(err.get(), out)
err, out = jax.jit(checkify.checkify(f, errors=checkify.nan_checks))(jnp.array([-3.0, 2.0]))
print(err.get(), out)
err, out = checkify.checkify(jax.grad(lambda x: jnp.sum(jnp.sin(x) / x)), errors=checkify.float_checks)(jnp.array([1.0, 0.0, 2.0]))
print(err.get(), out)
err, out = checkify.checkify(jax.grad(jnp.sqrt), errors=checkify.nan_checks)(-1.0)
print(err.get(), out)
err, out = checkify.checkify(jax.grad(jnp.sqrt), errors=checkify.nan_checks)(4.0)
print(err.get(), out)
result = float(out)
