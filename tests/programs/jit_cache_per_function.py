# jax.jit caches traces per Python function and options, not per wrapper:
# wrapping the same function again reuses its trace (no second print, the
# global it read keeps its traced value), a new shape or dtype traces again,
# new options or a new function object trace afresh.
import jax
import jax.numpy as jnp

def noisy(x):
    print("tracing noisy with", x.shape, x.dtype)
    return x * 2

print(jax.jit(noisy)(1.0))
print(jax.jit(noisy)(2.0))
print(jax.jit(noisy)(jnp.arange(3)))
print(jax.jit(noisy)(jnp.arange(3) + 1))
print(jax.jit(noisy, donate_argnums=0)(jnp.ones(2)))
print(jax.jit(noisy, donate_argnums=0)(jnp.zeros(2)))

offset = 1.0
def shifted(x):
    return x + offset

print(jax.jit(shifted)(1.0))
offset = 100.0
print(jax.jit(shifted)(1.0))
print(jax.jit(shifted)(jnp.ones(2)))

def scaled(x, k):
    print("tracing scaled with k =", k)
    return x * k

for k in [2, 3, 2]:
    print(jax.jit(scaled, static_argnums=1)(jnp.float32(1.5), k))

outs = []
for i in range(3):
    outs.append(jax.jit(lambda x: (print("tracing lambda"), x + i)[1])(0.5))
print(outs)
result = jnp.stack(outs)
