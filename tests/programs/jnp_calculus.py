import jax
import jax.numpy as jnp

f = jnp.array([1.0, 2.0, 4.0, 7.0, 11.0, 16.0])
print(jnp.gradient(f))
print(jnp.gradient(f, 2.0))
xs = jnp.array([0.0, 1.0, 1.5, 3.5, 4.0, 6.0])
print(jnp.gradient(f, xs))
m = jnp.array([[1.0, 2.0, 6.0], [3.0, 4.0, 5.0], [0.0, -2.0, 1.0]])
gy, gx = jnp.gradient(m)
print(gy, gx)
print(jnp.gradient(m, axis=1), jnp.gradient(m, 1.0, 2.0)[1])
print(jnp.gradient(jnp.arange(5)), jnp.gradient(m, axis=()))
try:
    jnp.gradient(jnp.ones(1))
except ValueError as e:
    print("ValueError", e)
try:
    jnp.gradient(f, edge_order=2)
except NotImplementedError as e:
    print("NotImplementedError", e)

# Interpolation.
xp = jnp.array([0.0, 1.0, 2.0, 4.0])
fp = jnp.array([0.0, 10.0, 5.0, 9.0])
q = jnp.array([-1.0, 0.0, 0.25, 1.5, 3.0, 4.0, 5.0])
print(jnp.interp(q, xp, fp))
print(jnp.interp(q, xp, fp, left=-5.0, right=99.0))
print(jnp.interp(q, xp, fp, left="extrapolate", right="extrapolate"))
# XLA rewrites the periodic case's arithmetic under interp's jit: compare
# to 5 decimals.
print(jnp.round(jnp.interp(jnp.array([-0.5, 0.5, 3.9, 7.0]), xp, fp, period=4.0), 5))
print(jnp.interp(2, jnp.arange(4), jnp.arange(4) * 2))
print(jnp.interp(q, jnp.array([0.0, 1.0, 1.0, 2.0]), jnp.array([0.0, 1.0, 3.0, 4.0])))
try:
    jnp.interp(q, xp, fp[:2])
except ValueError as e:
    print("ValueError", e)
try:
    jnp.interp(q, xp, fp, left="nearest")
except ValueError as e:
    print("ValueError", e)
print(jax.grad(lambda t: jnp.interp(t, xp, fp).sum())(q))
print(jax.jit(jnp.interp)(q, xp, fp))

# Unwrapping phases.
ph = jnp.array([0.0, 3.0, 6.5, 0.2, -3.5, 2.9])
print(jnp.unwrap(ph))
print(jnp.unwrap(ph, discont=4.0), jnp.unwrap(jnp.array([0, 5, 11, 2, 9]), period=10))
print(jnp.unwrap(jnp.stack([ph, -ph]), axis=1))

# Cross products.
a3 = jnp.array([[1.0, 2.0, 3.0], [0.0, 1.0, 0.0]])
b3 = jnp.array([4.0, 5.0, 6.0])
print(jnp.cross(a3, b3), jnp.cross(jnp.array([1, 2]), jnp.array([3, 4])))
print(jnp.cross(jnp.array([1.0, 2.0]), b3), jnp.cross(a3.T, b3, axisa=0))
print(jnp.cross(a3.T, a3.T, axis=0))
try:
    jnp.cross(jnp.ones(4), b3)
except ValueError as e:
    print("ValueError", e)

# Geometric ranges.
print(jnp.logspace(0, 3, 4), jnp.logspace(0.0, 1.0, 5, base=2.0, endpoint=False))
print(jnp.logspace(jnp.array([0.0, 1.0]), 2.0, 3, axis=1))
print(jnp.logspace(0, 2, 3, dtype=jnp.int32), jnp.logspace(1, 2, 3).dtype)
# XLA rewrites geomspace's logarithms and powers under its jit, so the
# last bits differ: compare to 4 decimals.
print(jnp.round(jnp.geomspace(-2.0, -32.0, 5), 4), jnp.geomspace(1, 1000, 4).dtype)
print(jnp.round(jnp.geomspace(jnp.array([1.0, 2.0]), jnp.array([16.0, 8.0]), 3, axis=1), 4))
print(jnp.round(jnp.geomspace(1.0, 256.0, 4, endpoint=False), 4), jnp.geomspace(1, 100, 3, dtype=jnp.int32).dtype)

result = [jnp.gradient(f, xs), jnp.interp(q, xp, fp), jnp.unwrap(ph), jnp.logspace(0, 3, 4)]
