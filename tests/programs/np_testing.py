# numpy.testing's assertions: what passes, and the AssertionError messages
# of what fails (Python lists compare as float64 / int64, JAX arrays as
# float32 / int32).
import jax.numpy as jnp
import numpy as np

t = np.testing


def check(f, *args, **kwargs):
    try:
        f(*args, **kwargs)
        print("passed")
    except AssertionError as e:
        print(str(e))
    print("--")


check(t.assert_allclose, [1.0, 2.0, 3.0], [1.0, 2.0, 3.1])
check(t.assert_allclose, jnp.array([1.0, 2.0, 3.0]), jnp.array([1.0, 2.0, 3.1]))
check(t.assert_allclose, [1.0, 2.0, 3.0], [1.0, 2.0, 3.1], rtol=1e-3, atol=1e-4, err_msg="boom")
check(t.assert_allclose, 1.0, 1.1)
check(t.assert_allclose, [[1.0, 2.0], [3.0, 4.0]], [[1.0, 2.5], [3.0, 0.0]])
check(t.assert_allclose, [1.0, 2.0], [1.0, 2.0, 3.0])
check(t.assert_allclose, [1, 2, 3], [1, 2, 4])
check(t.assert_allclose, [1.0, np.nan], [1.0, np.nan])
check(t.assert_allclose, [1.0, np.nan], [np.nan, 1.0])
check(t.assert_allclose, [1.0, np.inf], [1.0, -np.inf])
check(t.assert_allclose, [0.0, 1.0], [1e-9, 1.0])
check(t.assert_allclose, list(range(10)), [x + 0.5 for x in range(10)])
check(t.assert_allclose, [[float(i + j) for j in range(8)] for i in range(8)], 0.0)
check(t.assert_allclose, jnp.arange(6.0), jnp.arange(6.0) * 1.0000001)
check(t.assert_allclose, jnp.arange(6.0), jnp.arange(6.0) * 1.001, rtol=1e-5, verbose=False)
check(t.assert_allclose, [1e-6, 2e-6], [1.5e-6, 2e-6], atol=1e-8)
check(t.assert_array_equal, [1, 2, 3], [1, 2, 4])
check(t.assert_array_equal, [1.5, 2, 3], [1.5, 2, 4])
check(t.assert_array_equal, [1, 2], [1, 2, 3])
check(t.assert_array_equal, 2, 3)
check(t.assert_array_equal, [True, False], [True, True])
check(t.assert_array_almost_equal, [1.0, 2.0], [1.0, 2.0001])
check(t.assert_array_almost_equal, [1.0, 2.0], [1.0, 2.0001], decimal=3)
check(t.assert_array_almost_equal, jnp.array([1.0, 2.0]), jnp.array([1.0, 2.001]), 4)
check(t.assert_almost_equal, 1.0, 1.0001)
check(t.assert_almost_equal, 1.0, 1.00000001)
check(t.assert_almost_equal, [1.0, 2.0], [1.0, 2.0001])
check(t.assert_equal, 1, 2)
check(t.assert_equal, [1, 2], [1, 3])
check(t.assert_equal, {"a": 1, "b": [2, 3]}, {"a": 1, "b": [2, 4]})
check(t.assert_equal, "a", "b")
check(t.assert_equal, 0.0, -0.0)
check(t.assert_equal, float("nan"), float("nan"))
check(t.assert_, 1 > 2, "nope")

# The usual use: a JAX result against a NumPy reference.
np.random.seed(0)
x = np.random.randn(4, 3).astype(np.float32)
w = np.random.randn(3, 2).astype(np.float32)
t.assert_allclose(jnp.asarray(x) @ jnp.asarray(w), x @ w, rtol=1e-5, atol=1e-6)
t.assert_array_almost_equal(jnp.tanh(jnp.asarray(x)), np.tanh(x), decimal=5)
print("reference checks passed")
result = 1.0
