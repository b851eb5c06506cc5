# Loop carries given as Python numbers are weakly typed; a body that turns a
# weak carry into another dtype promotes it, and the loop's results have the
# types the body returns.
import jax, jax.numpy as jnp
from jax import lax

print(repr(lax.fori_loop(0, 3, lambda i, c: c + i, 0.0)))
print(repr(lax.fori_loop(0, 3, lambda i, c: c + i, 0)))
print(repr(lax.fori_loop(0, 3, lambda i, c: c + 0.5, 0)))
print(repr(lax.fori_loop(0, 3, lambda i, c: c * jnp.float32(2), 1.0)))
print(repr(lax.while_loop(lambda c: c < 3, lambda c: c + 1, 0)))
print(repr(lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * 2.0), (0, 1.0))))
print(lax.scan(lambda c, x: (c + x, c), 0.0, jnp.arange(3.0)))
print(lax.scan(lambda c, x: (c + 1, x * 2), 0, jnp.arange(3)))
print(repr(lax.cond(True, lambda: 1.0, lambda: 2.0)))
print(repr(lax.cond(False, lambda: 1.0, lambda: jnp.float32(2.0))))
print(repr(lax.switch(1, [lambda x: x + 1, lambda x: x * 2], 2.0)))
print(jax.make_jaxpr(lambda p, x: lax.cond(p > 0, lambda: x + 1.0, lambda: x))(1.0, 2.0))
result = lax.fori_loop(0, 4, lambda i, c: c + i, 0.0)
