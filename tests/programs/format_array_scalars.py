# A 0-d array in an f-string or format() formats as the Python scalar it
# converts to (float32 0.3 shows all of its double digits), while str() and
# print show the array's own shortest text; larger arrays format as str.
import jax
import jax.numpy as jnp

loss = jnp.float32(0.1) * 3
print(f"loss: {loss}", str(loss), "{}".format(loss), format(loss))
print(f"{loss:.3f} {loss:>22} {loss:e} {loss:.4}")
count = jnp.int32(7) * 6
print(f"{count} {count:04d} {count:x} {count:>5}")
flag = jnp.array(True) & jnp.array(False)
print(f"{flag} {flag!r}")
print(f"{jnp.arange(3.0) / 3}")
print(f"{jnp.mean(jnp.array([1.0, 2.0, 4.0]))}")
half = jax.jit(lambda x: x / 2)(jnp.float32(1.7))
print(f"half: {half}")
result = half
