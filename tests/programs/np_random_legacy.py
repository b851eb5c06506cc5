# NumPy's legacy global RNG and RandomState: the MT19937 streams programs use
# to build test data. Floats are printed through float32 (jnp.asarray) or
# with a format spec, so the text is the same whatever the host precision.
import jax.numpy as jnp
import numpy as np

np.random.seed(0)
print(np.random.rand())
print(jnp.asarray(np.random.rand(2, 3)))
print(jnp.asarray(np.random.randn(4)))
print(f"{np.random.randn():.12f}")
print(np.random.randint(0, 10, size=8))
print(np.random.randint(5), np.random.randint(-3, 2**40))
print(np.random.permutation(10))
print(np.random.choice(5), np.random.choice(5, size=4))
print(np.random.choice(10, size=3, replace=False))
print(np.random.choice(4, size=6, p=[0.1, 0.2, 0.3, 0.4]))
print(np.random.choice([1.5, 2.5, 3.5]), np.random.choice(["a", "b", "c"]))
items = list(range(8))
np.random.shuffle(items)
print(items)

rs = np.random.RandomState(42)
print(f"{rs.uniform(-1, 1):.12f}", f"{rs.normal(3.0, 2.0):.12f}")
print(jnp.asarray(rs.uniform(0.0, 5.0, size=(2, 2))))
print(jnp.asarray(rs.normal([0.0, 10.0, 100.0], 0.5)))
print(jnp.asarray(rs.standard_normal((2, 2))))
print(jnp.asarray(rs.random((3,))), jnp.asarray(rs.random_sample(2)))
print(rs.randint(0, 100, size=(2, 3)), rs.randint(7, dtype=np.int32))
print(rs.permutation([[1, 2], [3, 4], [5, 6]]))
print(rs.permutation(np.arange(6)))
print(rs.tomaxint())
rs.seed([1, 2, 3])
print(rs.random_sample())

# The same seed gives the same stream, globally or in an object.
np.random.seed(7)
a = np.random.randn(5)
b = np.random.RandomState(7).randn(5)
print(np.array_equal(a, b))

# Data made the usual way for a JAX program.
np.random.seed(1234)
x = jnp.asarray(np.random.randn(4, 3).astype(np.float32))
w = jnp.asarray(np.random.uniform(-1, 1, (3, 2)).astype(np.float32))
print(x @ w)
result = {"x": x, "w": w, "ints": np.random.randint(0, 1000, size=5)}
