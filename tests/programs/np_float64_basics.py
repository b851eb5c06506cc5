# NumPy's own arrays are float64 / int64 on the host; JAX sees them as
# float32 / int32.
import numpy as np
import jax.numpy as jnp

a = np.array([0.1, 0.2, 0.7])
print(a.dtype, a * 3, a.sum(), a.mean())
print(repr(a), repr(a / 3))
print(a + 1, 1 - a, a ** 2, a // 0.15, a % 0.15)
print(a > 0.15, (a == 0.2).dtype, -a)
b = np.linspace(0, 1, 4)
print(b, repr(b), b.dtype)
print(np.sin(b), np.exp(b), np.log1p(b), np.sqrt(b))
print(np.maximum(a, 0.15), np.minimum(a, [0.5, 0.0, 0.5]))
print(np.where(a > 0.15, a, -a), np.clip(a, 0.15, 0.5))
print(np.round(a * 10.0 / 3, 3), np.abs(-a))
print(np.zeros((2, 3)), np.ones(3), np.full((2,), 2.5), np.eye(2))
print(np.dot(np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([0.1, 0.3])))
m = np.arange(6.0).reshape(2, 3) / 7
print(m)
print(m.T, m[1], m[:, 1:], m[m > 0.3])
print(np.concatenate([m, m], axis=1).shape, np.stack([a, a]).shape)
m[0, 1] = 0.125
m[1] = np.array([1.0, 2.0, 3.0]) / 3
print(m)
x = np.sqrt(2.0)
print(x, x * x, np.pi / 3)
j = jnp.asarray(a)
print(j, j.dtype, (a + jnp.ones(3)).dtype)
print(jnp.sum(jnp.asarray(m)), np.asarray(jnp.arange(3.0)).dtype)
print(np.allclose(a, [0.1, 0.2, 0.7]), np.isclose(a, 0.2))
print(a.tolist(), m.astype(np.float32).dtype, a.astype(int))
print(np.random.default_rng(0).normal(size=3))
print(np.random.default_rng(1).uniform(size=(2, 2)))
np.random.seed(0)
print(np.random.randn(3), np.random.rand(2))
print(np.float64(0.3), np.float64, np.array([1.5]).dtype == np.float64)
