import jax
import jax.numpy as jnp
import numpy as np
from jax.scipy import stats

v = jnp.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5])
m2 = jnp.array([[2., 7., 1., 8.], [2., 8., 1., 8.], [4., 5., 9., 0.]])
wide = jnp.arange(40.0).reshape(5, 8) ** 1.5
withnan = jnp.array([[1.5, np.nan, 2.0], [3.0, 4.0, np.nan], [0.5, 6.0, 1.0], [2.5, 1.0, 7.0]])

print(stats.sem(v), stats.sem(v).dtype)
print(stats.sem(m2, axis=1))
print(stats.sem(m2, axis=None))
print(stats.sem(m2, axis=-1, ddof=0, keepdims=True))
print(stats.sem(wide), stats.sem(wide, axis=1, ddof=2))
print(stats.sem(withnan))
print(stats.sem(withnan, nan_policy='omit'))
print(stats.sem(withnan, axis=1, nan_policy='omit', keepdims=True))
try:
    stats.sem(v, nan_policy='raise')
except ValueError as e:
    print("ValueError", e)

r = stats.mode(v)
print(r)
print(r.mode, r.count, r.mode.dtype, r.count.dtype)
grid = jnp.array([[3, 1, 3, 2, 2, 1], [1, 1, 2, 2, 3, 3], [3, 2, 2, 2, 3, 1]])
print(stats.mode(grid))
print(stats.mode(grid, axis=1))
print(stats.mode(grid, axis=-1, keepdims=True))
print(stats.mode(grid, axis=None))
print(stats.mode(grid, axis=None, keepdims=True))
print(stats.mode(withnan))
print(stats.mode(jnp.float32(2.5)))
print(stats.mode(jnp.ones((2, 3, 2)), axis=1))
mode, count = stats.mode(jnp.array([0.5, -1.0, 0.5, -1.0]))
print(mode, count)
for policy in ['omit', 'wrong']:
    try:
        stats.mode(v, nan_policy=policy)
    except (NotImplementedError, ValueError) as e:
        print(type(e).__name__, e)
result = stats.sem(wide, axis=0)
