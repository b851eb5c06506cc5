# np.mgrid and np.ogrid: coordinate grids built by slicing, with integer
# steps (arange-like, stop excluded) or imaginary steps (N points, stop
# included). Float grids are printed through float32 so the text is the
# same whatever the host precision.
import jax.numpy as jnp
import numpy as np

rows, cols = np.mgrid[0:3, 1:5:2]
print(rows)
print(cols)
print(np.mgrid[2:7], np.mgrid[5:0:-2])
xs, ys = np.mgrid[-1:1:5j, 0:2:3j]
print(jnp.asarray(xs))
print(jnp.asarray(ys))
print(jnp.asarray(np.mgrid[0:1:0.25]))
a, b = np.ogrid[0:3, 0.5:2:4j]
print(a, a.shape, b.shape)
print(jnp.asarray(b))
print(a + 10 * np.ogrid[0:3, 0:2][1])
x, y, z = np.mgrid[0:1:6j, 0:1:6j, 0:1:6j]
field = jnp.sin(2 * x * jnp.pi) * jnp.cos(2 * y * jnp.pi) * z
print(field.shape, x.shape)
result = field.sum(axis=(0, 1))
