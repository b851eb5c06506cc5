# jnp.split and array_split take the given indices as they are (neither
# wrapped nor clipped), so a piece of negative size is JAX's ValueError;
# equal sections that do not divide the axis, and zero sections, fail as
# in JAX.
import jax.numpy as jnp

v = jnp.arange(9.0) * 0.5
for fn, where in [(jnp.split, 3), (jnp.split, [1, 6]), (jnp.split, [-2]), (jnp.array_split, [2, 11]),
                  (jnp.array_split, [6, 3]), (jnp.split, [5, 1]), (jnp.array_split, 4), (jnp.split, [0, 9]),
                  (jnp.split, 4)]:
    try:
        print([p.tolist() for p in fn(v, where)])
    except ValueError as e:
        print("ValueError:", e)
try:
    jnp.array_split(v, 0)
except ZeroDivisionError as e:
    print("ZeroDivisionError:", e)
grid = jnp.arange(20).reshape(4, 5)
print(jnp.split(grid, [2, 4], axis=1))
print(jnp.array_split(grid, 3, axis=0))

result = jnp.split(grid, 2)
# A range is a sequence of ints to jnp.array.
print(jnp.split(jnp.array(range(3, 15, 2)), 3))
