import jax
import jax.numpy as jnp

x = jnp.arange(6).reshape(2, 3)
print(jnp.insert(x, 1, 9), jnp.insert(x, 1, 9, axis=1))
print(jnp.insert(x, jnp.array([0, 2, 2]), jnp.array([7, 8, 9]), axis=1))
print(jnp.insert(x, 1, jnp.array([5, 6, 7]), axis=0), jnp.insert(x, -1, 4.7, axis=1))
print(jnp.insert(jnp.arange(5.0), slice(1, 4), -1.0), jnp.insert(jnp.arange(3), 9, 1))
print(jnp.insert(x, jnp.array([1]), jnp.array([[10], [20]]), axis=1))
try:
    jnp.insert(x, jnp.array([0.5]), 1)
except ValueError as e:
    print("ValueError", e)
print(jnp.delete(x, 1), jnp.delete(x, 1, axis=1), jnp.delete(x, -1, axis=0))
print(jnp.delete(jnp.arange(8), jnp.array([1, 3, -1])), jnp.delete(jnp.arange(8), slice(1, None, 3)))
print(jnp.delete(x, jnp.array([True, False, True]), axis=1))
print(jnp.delete(jnp.arange(8), jnp.array([6, 0, 2]), assume_unique_indices=True))
print(jax.jit(lambda v, i: jnp.delete(v, i, assume_unique_indices=True))(jnp.arange(6.0), jnp.array([4, 1])))
try:
    jnp.delete(x, jnp.array([1.0]))
except ValueError as e:
    print("ValueError", e)

# Writes that return new arrays.
a = jnp.zeros(6)
try:
    jnp.put(a, jnp.array([1]), 5.0)
except ValueError as e:
    print("ValueError", e)
print(jnp.put(a, jnp.array([0, 2, 9]), jnp.array([1.0, 2.0]), inplace=False))
print(jnp.put(a, jnp.array([-1, 8]), 3.0, mode="clip", inplace=False))
print(jnp.put(x, jnp.array([7, 4]), jnp.array([-1, -2]), mode="wrap", inplace=False))
try:
    jnp.put(a, jnp.array([1]), 5.0, mode="raise", inplace=False)
except NotImplementedError as e:
    print("NotImplementedError", e)
idx = jnp.array([[2], [0]])
print(jnp.put_along_axis(x, idx, 99, axis=1, inplace=False))
print(jnp.put_along_axis(x, jnp.array([[1, 0, 1]]), jnp.array([[7, 8, 9]]), axis=0, inplace=False))
print(jnp.put_along_axis(x, jnp.array([5, 0]), -3, axis=None, inplace=False))
try:
    jnp.put_along_axis(x, idx, 1, axis=1)
except ValueError as e:
    print("ValueError", e)
try:
    jnp.put_along_axis(x, jnp.array([1]), 1, axis=1, inplace=False)
except ValueError as e:
    print("ValueError", e)
m = jnp.array([[True, False, True], [False, True, True]])
print(jnp.place(x, m, jnp.array([10, 20]), inplace=False))
try:
    jnp.place(x, m, jnp.array([1]))
except ValueError as e:
    print("ValueError", e)
sq = jnp.zeros((3, 4))
print(jnp.fill_diagonal(sq, 5.0, inplace=False), jnp.fill_diagonal(sq, jnp.array([1.0, 2.0]), inplace=False))
print(jnp.fill_diagonal(jnp.zeros((2, 2, 2), jnp.int32), 3, inplace=False))
for bad in [lambda: jnp.fill_diagonal(sq, 1.0), lambda: jnp.fill_diagonal(sq, 1.0, wrap=True, inplace=False)]:
    try:
        bad()
    except NotImplementedError as e:
        print("NotImplementedError", e)
c = jnp.copy(x)
print(c, c.dtype, jnp.copy(3.5))
e = jnp.empty_like(x, dtype=jnp.float32)
print(e.shape, e.dtype, jnp.empty_like(x, shape=(4,)).shape)

result = [jnp.insert(x, 1, 9, axis=1), jnp.delete(x, 1, axis=1), jnp.place(x, m, jnp.array([10, 20]), inplace=False)]
