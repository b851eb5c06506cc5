# Host callbacks: pure_callback and io_callback (outside jit) get JAX
# arrays and their results are checked against ShapeDtypeStructs;
# debug.callback sees values, also inside jit and under grad, where pure and
# IO callbacks are refused.
# A breakpoint in a cond branch that is not taken never runs.
import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import io_callback

spec = jax.ShapeDtypeStruct((2, 3), jnp.float32)
print(spec, spec.shape, spec.dtype, spec.ndim, spec.size, spec.sharding)
print(jax.ShapeDtypeStruct.like(jnp.arange(5)), jax.ShapeDtypeStruct((), bool))
print(isinstance(spec, jax.ShapeDtypeStruct), spec == jax.ShapeDtypeStruct([2, 3], "float32"))
print(jax.eval_shape(lambda m, v: (m @ v, jnp.sum(m)), spec, jax.ShapeDtypeStruct((3,), jnp.float32)))

x = jnp.array([0.25, 1.0, 4.0])


def host_sqrt_pair(v, scale):
    return np.sqrt(v) * scale, (v > 1).astype(np.int32)


out = jax.pure_callback(
    host_sqrt_pair,
    (jax.ShapeDtypeStruct((3,), jnp.float32), jax.ShapeDtypeStruct((3,), jnp.int32)),
    x,
    scale=2.0,
    vmap_method="sequential",
)
print(out)

calls = []


def record(v):
    calls.append(float(v.sum()))
    return v + len(calls)


print(io_callback(record, jax.ShapeDtypeStruct((3,), jnp.float32), x, ordered=True))
print(io_callback(record, x, x))
print(calls)


def log(label, value):
    print("log", label, value)


jax.debug.callback(log, "x", x)


@jax.jit
def logged(v):
    jax.debug.callback(log, "jit", v * 2)
    return v + 1


print(logged(x))
print(jax.grad(lambda v: (jax.debug.callback(log, "v", v), jnp.sin(v))[1])(0.5))

for f in [
    lambda v: jax.pure_callback(np.cos, jax.ShapeDtypeStruct((), jnp.float32), v),
    lambda v: io_callback(np.cos, jax.ShapeDtypeStruct((), jnp.float32), v),
]:
    try:
        jax.grad(f)(0.5)
    except ValueError as e:
        print("ValueError:", e)

try:
    jax.pure_callback(np.cos, spec, x, vmap_method="vectorize")
except ValueError as e:
    print("ValueError:", e)

try:
    jax.pure_callback(np.cos, spec, x)
except RuntimeError as e:
    print("RuntimeError", "Incorrect output shape for return value #0" in str(e))


@jax.jit
def checked(v):
    jax.lax.cond(jnp.all(v > 0), lambda: None, lambda: jax.debug.breakpoint())
    return v * 2


result = checked(x)
