# Reductions and integer arithmetic of NumPy's int64 and float64 arrays.
import numpy as np
import jax.numpy as jnp

x = np.arange(12).reshape(3, 4)
print(x.dtype, repr(x))
print(x.sum(), x.sum(axis=0), x.sum(axis=1, keepdims=True))
print(np.mean(np.array([1, 2, 2])), x.mean(axis=0), x.prod(axis=1))
print(x.max(), x.min(axis=1), np.argmax(x), np.argmin(x, axis=0))
print(np.std(x), np.var(x, axis=1), np.std(x, ddof=1))
print(x // 5, x % 5, x / 4, x * 2 - 1, x ** 2)
print(np.cumsum(x), np.cumsum(x, axis=0))
print(np.any(x > 10), np.all(x >= 0), (x > 5).sum())
v = np.linspace(-1.0, 1.0, 21)
print(v.sum(), np.sum(v * v), v.std())
r = np.random.default_rng(3).normal(size=(5, 40))
print(r.sum(axis=0)[:3], r.sum(axis=1), np.round(r.mean(), 12))
print(np.arange(5), np.arange(2, 11, 3), np.arange(0.0, 1.0, 0.1))
print(np.sum(jnp.arange(4)), np.array([3, 4]) + 1.5)
y = x.copy()
y[y % 2 == 0] = 0
y += 1
print(y, x[0])
print(np.transpose(x), np.tile(np.array([1, 2]), 3), np.roll(np.arange(5), 2))
print(np.split(np.arange(6), 3), np.flip(x, axis=1))
for row in np.arange(6).reshape(3, 2):
    print(row, row.tolist())
print(len(x), x.shape, x.size, x.ndim, x[2, 3])
print(jnp.asarray(x).dtype, jnp.asarray(x) * 2)
