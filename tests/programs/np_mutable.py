import numpy as np
import jax
import jax.numpy as jnp

# Item, slice and mask assignment change the array in place.
grid = np.zeros((3, 4), dtype=np.float32)
grid[1, :] = 2.5
grid[0, 2] = -1.0
grid[:, 3] = np.arange(3, dtype=np.float32)
print(grid)
print(repr(grid))

counts = np.arange(6, dtype=np.int32)
counts[counts > 3] = 0
counts[1:3] = 7
print(counts, repr(counts))

# Augmented assignment works in place, so every name bound to it sees it.
alias = counts
alias += 10
print(counts)
alias *= 2
print(counts, alias is counts)

# fill and copyto.
buf = np.ones(4, dtype=np.float32)
buf.fill(3.0)
print(buf)
np.copyto(buf, np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32))
print(buf)
snapshot = buf.copy()
buf[0] = 100.0
print(snapshot, buf)

# A JAX array made from it is a copy.
host = np.array([1.0, 2.0, 3.0], dtype=np.float32)
dev = jnp.asarray(host)
host[0] = 50.0
print(dev, host)
print(type(dev + host).__name__, type(host + host).__name__, type(host * 2).__name__)

# np.array of a JAX array gives an ndarray that can change; np.asarray
# gives a read-only one.
back = np.array(jnp.arange(4, dtype=jnp.float32))
back[2] = 9.0
print(back, type(back))
view = np.asarray(jnp.arange(3, dtype=jnp.float32))
try:
    view[0] = 1.0
except ValueError as e:
    print("ValueError:", e)
try:
    view += 1
except ValueError as e:
    print("ValueError:", e)
same = np.asarray(back)
same[0] = -5.0
print(back, same is back)
print(isinstance(back, np.ndarray), isinstance(jnp.ones(2), np.ndarray))

# jnp functions and jit read the values the array holds at the call.
doubled = jax.jit(lambda v: v * 2)(host)
print(doubled, jnp.sum(host), np.sum(host))
rows = [float(r.sum()) for r in grid]
print(rows, grid.shape, grid[1])

result = grid

# NumPy refuses an index past the end; JAX clamps it.
try:
    print(np.arange(5, dtype=np.int32)[7])
except IndexError as e:
    print("IndexError:", e)
print(jnp.arange(5)[7], jnp.arange(5)[-9])
