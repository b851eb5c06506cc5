# stdout: exact digits
# Eager jnp.linspace with scalar endpoints gives XLA's float32 points bit for
# bit: the points where the rounding of the fused multiply-add shows.
import jax.numpy as jnp

x = jnp.linspace(-jnp.pi, jnp.pi, 9)
print(x)
print(jnp.cos(x)[6] < 0, (jnp.sin(x) / jnp.cos(x))[6])
print(jnp.r_[-1:1:6j])
print(jnp.linspace(0.0, 1.0, 7).tolist())
for n in [11, 50, 101, 333, 2000]:
    y = jnp.linspace(-2.5, 3.7, n)
    print(n, y[1].item(), y[n // 3].item(), y[n - 2].item(), y.sum().item())
print(jnp.linspace(0.1, 0.9, 13, endpoint=False))
print(jnp.linspace(2, 17, 11))
print(jnp.linspace(0, 10, 7, dtype=jnp.int32))
result = jnp.linspace(-5.0, 5.0, 101)
