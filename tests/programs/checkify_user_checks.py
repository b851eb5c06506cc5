# checkify.check functionalized by checkify.checkify: messages formatted
# with the failing values, Error.get/throw/str, jit on either side, checks
# run eagerly without checkify, and the refusals of a staged check.
import jax
import jax.numpy as jnp
from jax.experimental import checkify


def reciprocal(x):
    checkify.check(x > 0, "{x} needs to be positive, got {} instead", x, x=x)
    return 1 / x


checked = checkify.checkify(reciprocal)
err, out = checked(jnp.float32(-3.0))
print(err.get())
print(str(err), out)
err, out = checked(jnp.float32(4.0))
print(err.get(), str(err), out)

# The error is data: it comes out of jit as a pytree.
err, out = jax.jit(checked)(jnp.float32(-0.1))
print(repr(err.get()))
print(len(jax.tree_util.tree_leaves(err)), jax.tree_util.tree_leaves(err)[0])
try:
    err.throw()
except checkify.JaxRuntimeError as e:
    print("JaxRuntimeError:", e, isinstance(e, ValueError))

# A jitted function with checks, checkified from outside.
err, out = checkify.checkify(jax.jit(reciprocal))(jnp.float32(-2.5))
print(err.get(), out)

# Format specs and array payloads.
def stats(v):
    checkify.check(jnp.all(v < 5), "too large: max {m:.2f} in {v}", m=v.max(), v=v)
    checkify.check(v.sum() != 6.0, "sum is {}", v.sum())
    return v.mean()

print(checkify.checkify(stats)(jnp.array([1.5, 7.25, 2.0]))[0].get())
print(checkify.checkify(stats)(jnp.array([1.0, 2.0, 3.0]))[0].get())
print(checkify.checkify(stats)(jnp.array([1.0, 2.0, 4.0]))[1])

# The first failing check is the one reported.
def two(x):
    checkify.check(x < 10, "first {}", x)
    checkify.check(x < 5, "second {}", x)
    return x

print(checkify.checkify(two)(jnp.int32(7))[0].get())
print(checkify.checkify(two)(jnp.int32(12))[0].get())

# Without checkify a check runs where its values are known.
try:
    reciprocal(jnp.float32(-1.0))
except ValueError as e:
    print(type(e).__name__, e)
print(reciprocal(jnp.float32(2.0)))
try:
    jax.jit(reciprocal)(jnp.float32(2.0))
except ValueError as e:
    print(type(e).__name__, e)

# debug_check does nothing unless checkified.
def dbg(x):
    checkify.debug_check(x != 0, "cannot be zero: {}", x)
    return x + 1

print(dbg(jnp.int32(0)), jax.jit(dbg)(jnp.int32(0)))
print(checkify.checkify(dbg)(jnp.int32(0))[0].get())

# check_error raises what an Error holds.
def with_inner_jit(x):
    error, out = jax.jit(checked)(x)
    checkify.check_error(error)
    return out

print(with_inner_jit(jnp.float32(8.0)))
try:
    with_inner_jit(jnp.float32(-8.0))
except ValueError as e:
    print("check_error:", e)

for bad in [jnp.array([True, False]), 1]:
    try:
        checkify.check(bad, "never")
    except TypeError as e:
        print("TypeError:", e)
try:
    checkify.check(True, "x {}", 2.0)
except TypeError as e:
    print("TypeError:", e)
print(checkify.init_error.get(), len(checkify.all_checks), checkify.user_checks <= checkify.all_checks)
print(checkify.float_checks == checkify.nan_checks | checkify.div_checks)
result = float(out)
