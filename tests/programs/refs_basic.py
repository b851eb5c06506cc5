# Array refs outside any transformation: creation, printing, NumPy
# indexing reads and writes, the jax.ref functions and their shape and
# dtype checks, and what a ref is not (an array in arithmetic).
import jax
import jax.numpy as jnp
from jax import Ref

acc = jax.new_ref(jnp.linspace(0.0, 1.0, 5))
print(acc, acc.shape, acc.dtype, acc.ndim, isinstance(acc, Ref), isinstance(acc, jax.Ref))
print(repr(jax.new_ref(2.5)), repr(jax.new_ref(-3)), repr(jax.new_ref(False)))
acc[2] += 10.0
acc[jnp.array([0, 4])] = jnp.array([-1.0, -2.0])
acc[1:3] = acc[3:5] * 2.0
print(acc)

grid = jax.new_ref(jnp.arange(20, dtype=jnp.int32).reshape(4, 5))
print(grid[2], grid[1, 3], grid[:, 4], grid[-1, ::2])
grid[0] = grid[3]
grid[1:3, 0] = jnp.array([100, 200], dtype=jnp.int32)
grid[jnp.array([3, 3]), jnp.array([1, 2])] = jnp.array([7, 8], dtype=jnp.int32)
grid[...] += 1
print(grid)

w = jax.new_ref(jnp.zeros(3))
print(jax.ref.get(w, 1), jax.ref.swap(w, 1, jnp.float32(4.0)), w)
jax.ref.set(w, None, jnp.arange(3.0))
jax.ref.addupdate(w, ..., jnp.full(3, 0.5))
jax.ref.addupdate(w, 0, jnp.float32(10.0))
print(w, jax.freeze(w))

s = jax.new_ref(1.0)
s[...] = s[...] * 3.0
print(s)

for bad in [
    lambda: w.__setitem__(..., 1.0),
    lambda: w.__setitem__(0, jnp.int32(1)),
    lambda: jax.ref.addupdate(w, ..., jnp.ones(2)),
    lambda: jax.ref.get(jnp.ones(2), 0),
    lambda: jnp.cos(w),
    lambda: w * 2,
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)

result = (acc[...], grid[...], w[...])
