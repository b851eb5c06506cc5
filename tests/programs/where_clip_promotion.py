# jnp.where and jnp.clip promote their operands as jnp's binary operations
# do: an int array meeting a Python float becomes a weak float32, a strong
# float32 operand makes the result strong; eagerly, under jit and in jaxprs.
import jax
import jax.numpy as jnp

x = jnp.arange(6)
f = jnp.array([-1.0, -0.6, -0.2, 0.25, 0.5, 1.0])
cases = {
    "int_or_py_float": lambda x, f: jnp.where(x > 2, x, 2.5),
    "int_or_float_array": lambda x, f: jnp.where(x > 2, x, f),
    "py_int_or_float": lambda x, f: jnp.where(x > 2, 3, f),
    "float_or_py_int": lambda x, f: jnp.where(f > 0, f, 0),
    "int_or_py_int": lambda x, f: jnp.where(x > 2, x, -1),
    "both_python": lambda x, f: jnp.where(x > 2, 1.5, 2),
    "selu_like": lambda x, f: 1.05 * jnp.where(x > 0, x, 1.67 * jnp.exp(x) - 1.67),
    "clip_int_float_bounds": lambda x, f: jnp.clip(x, 1.5, 3.5),
    "clip_float_int_bounds": lambda x, f: jnp.clip(f, -1, 0),
    "clip_int_int_bounds": lambda x, f: jnp.clip(x, 1, 3),
}
for name, fn in cases.items():
    eager = fn(x, f)
    jitted = jax.jit(fn)(x, f)
    print(name, repr(eager))
    print(name, "jit", repr(jitted))
print(jax.make_jaxpr(cases["int_or_py_float"])(x, f))
print(jax.make_jaxpr(cases["int_or_float_array"])(x, f))
result = jax.jit(cases["selu_like"])(x, f)
