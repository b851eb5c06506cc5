import jax
import jax.numpy as jnp
import numpy as np

x = jnp.array([3, 4, 1, 3, 1, 7, 4, 4])
print(jnp.unique(x))
print(jnp.unique(x, return_index=True))
print(jnp.unique(x, return_inverse=True))
print(jnp.unique(x, return_counts=True))
print(jnp.unique(x, return_index=True, return_inverse=True, return_counts=True))

# size= pads with the smallest value, or fill_value; a smaller size cuts.
for size in [2, 4, 6]:
    print(size, jnp.unique(x, size=size), jnp.unique(x, size=size, fill_value=-1))
    print(jnp.unique(x, size=size, return_index=True, return_counts=True))
f = jax.jit(jnp.unique, static_argnames=["size"])
print(jnp.unique_values(x), jnp.unique_values(x, size=6, fill_value=0))

# Floats: NaNs are one value unless equal_nan=False; -0. equals 0.
y = jnp.array([2.5, jnp.nan, -0.0, 0.0, jnp.nan, -1.0, 2.5])
print(jnp.unique(y), jnp.unique(y, equal_nan=False), jnp.unique(y, return_counts=True))

# Along an axis: distinct rows (or columns), sorted lexicographically.
M = jnp.array([[1, 2, 0], [2, 3, 1], [1, 2, 0], [1, 1, 9]])
print(jnp.unique(M))
print(jnp.unique(M, axis=0))
print(jnp.unique(M, axis=0, return_index=True, return_inverse=True, return_counts=True))
print(jnp.unique(M, axis=1, return_inverse=True))
print(jnp.unique(M, return_inverse=True))
print(jnp.unique(M, axis=0, size=4, fill_value=7))
print(jnp.unique(jnp.array([True, False, True])), jnp.unique(jnp.zeros((0,)), size=2, fill_value=1.5))
b = jnp.array([[5, 5], [5, 5]], dtype=jnp.uint8)
print(jnp.unique(b, return_counts=True))

try:
    jax.jit(jnp.unique)(x)
except jax.errors.ConcretizationTypeError as e:
    print("ConcretizationTypeError", str(e).splitlines()[0])
try:
    jnp.unique([1, 2])
except TypeError as e:
    print("TypeError", e)

# unravel_index and ravel_multi_index are inverses within bounds; indices
# out of bounds clamp to the first or last position.
flat = jnp.array([0, 5, 11, 7, -1, 12, -3, 100])
print(jnp.unravel_index(flat, (3, 4)))
print(jnp.unravel_index(jnp.array([3, 9]), (2, 5)), jnp.unravel_index(7, (10,)), jnp.unravel_index(jnp.array(5), 4))
idx = jnp.unravel_index(jnp.arange(12), (2, 3, 2))
print(jnp.ravel_multi_index(idx, (2, 3, 2)), jnp.ravel_multi_index(idx, (2, 3, 2), order="F"))
rows, cols = jnp.array([0, 1, 2, 3]), jnp.array([4, -1, 2, 5])
print(jnp.ravel_multi_index((rows, cols), (3, 5), mode="clip"))
print(jnp.ravel_multi_index((rows, cols), (3, 5), mode="wrap"))
print(jnp.ravel_multi_index((jnp.array([1, 2]), jnp.array([0, 4])), (3, 5)))
print(jnp.ravel_multi_index((jnp.array(1, dtype=jnp.uint8), 3), (3, 5)))
try:
    jnp.ravel_multi_index((rows, cols), (3, 5))
except ValueError as e:
    print("ValueError", e)
try:
    jnp.ravel_multi_index((rows, cols), (3, 5), mode="nope")
except ValueError as e:
    print("ValueError", e)
print(jax.jit(lambda r, c: jnp.ravel_multi_index((r, c), (3, 5), mode="wrap"))(rows, cols))
print(jax.jit(lambda i: jnp.unravel_index(i, (3, 4)))(flat))

result = [jnp.unique(x, size=6, fill_value=0), jnp.unravel_index(flat, (3, 4))[1]]
