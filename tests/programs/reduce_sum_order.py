# Float32 sums and products whose last bits depend on the order of the
# additions: short runs, runs split into windows, one axis of a larger array.
# stdout: exact digits
import jax
import jax.numpy as jnp

def harmonic(n):
    return 1.0 / jnp.arange(1, n + 1, dtype=jnp.float32)

for n in [3, 17, 32, 33, 40, 63, 64, 65, 100, 129, 1000, 2500]:
    x = harmonic(n)
    print(n, float(jnp.sum(x)), float(jnp.sum(x * x)), float(jnp.mean(x)))

x = harmonic(40 * 3).reshape(40, 3)
print(jnp.sum(x, axis=0).tolist())
print(jnp.sum(x.T, axis=1).tolist())
y = harmonic(6 * 70).reshape(6, 70)
print(jnp.sum(y, axis=1).tolist(), jnp.sum(y[:, :1], axis=(0, 1)).tolist())
z = harmonic(4 * 9 * 40).reshape(4, 9, 40)
print(jnp.sum(z, axis=2)[3].tolist(), jnp.mean(z, axis=1)[0, :5].tolist())

# A product of values near one, and a sum inside jit and under grad.
p = 1.0 + harmonic(50) / 64.0
print(float(jnp.prod(p)))
print(float(jax.jit(lambda v: jnp.sum(jnp.exp(-v)))(harmonic(77))))
print(jax.grad(lambda v: jnp.sum(v * v) / 3.0)(harmonic(5)).tolist())

# Cancellation shows the windows: XLA loses the ones added to -1e8.
v = jnp.ones(33).at[16].set(1e8).at[17].set(-1e8)
print(float(jnp.sum(v)))
print(jnp.sum(jnp.array([[-0.0, 0.0]]), axis=0))
