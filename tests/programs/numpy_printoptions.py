# NumPy's print options (shared by jax.numpy): precision, suppress,
# threshold, edgeitems and linewidth, set for good, as a context manager
# and read back; float32 and host arrays; repr and str of 0-d arrays.
import jax
import jax.numpy as jnp
import numpy as np

v = jnp.array([2.0, 0.318309886, -7.25e-6, 98765.4321])
grid = jnp.arange(1.0, 10.0).reshape(3, 3) / 7.0
print(v)
print(repr(grid))
with jnp.printoptions(precision=3, suppress=True):
    print(v)
    print(repr(grid))
    print(jnp.float32(2.718281828))
    print(repr(jnp.float32(2.718281828)))
    print(jnp.array([3e-12, 4.0]))
    print(repr(jnp.array([5e8, 2.0])))
    print(np.get_printoptions()["precision"], np.get_printoptions()["suppress"])
with np.printoptions(precision=2):
    print(v * 1e-5)
    print(np.array([0.123456, 9.87654]))
    print(repr(np.array([[1.0 / 3.0, 2.0], [0.5, 1e-3]])))
print(np.get_printoptions()["precision"], np.get_printoptions()["linewidth"])
np.set_printoptions(precision=5)
print(grid)
np.set_printoptions(precision=8)
with jnp.printoptions(threshold=6, edgeitems=1):
    print(jnp.arange(12))
    print(jnp.arange(24).reshape(4, 6))
with np.printoptions(linewidth=40):
    print(jnp.linspace(0.0, 2.0, 13))
with np.printoptions(suppress=True):
    print(jnp.array([2e-9, 0.25, 300.0]))
print(v)

result = {"v": v}
