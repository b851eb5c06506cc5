# jnp.histogram2d and jnp.histogramdd: counts per bin with the last edge
# closing the last bin, bins given as a count, per dimension or as edges,
# ranges, weights and densities, and the dtypes of what they return.
import jax
import jax.numpy as jnp

x = jnp.array([0, 1, 1, 2, 3, 3, 3, 4])
y = jnp.array([1.0, 0.5, 2.0, 2.0, 3.5, 0.0, 4.0, 4.0])
h, xe, ye = jnp.histogram2d(x, y, bins=4)
print(h, h.dtype, xe, ye)
h, xe, ye = jnp.histogram2d(x, y, bins=[2, 3])
print(h, xe, ye)
h, xe, ye = jnp.histogram2d(x, y, bins=jnp.array([0.0, 1.0, 2.5, 4.0]))
print(h, xe, ye)
h, xe, ye = jnp.histogram2d(x, y, bins=3, range=[(0, 3), (1, 4)])
print(h, xe, ye)
w = jnp.array([1.0, 2.0, 0.5, 1.0, 1.0, 3.0, 1.0, 2.0])
print(jnp.histogram2d(x, y, bins=2, weights=w)[0])
d, xe, ye = jnp.histogram2d(x, y, bins=2, density=True)
print(d, jnp.round(jnp.sum(d * jnp.diff(xe)[:, None] * jnp.diff(ye)[None, :]), 5))
s = jnp.stack([x, y, x * 0.5], axis=1)
h, edges = jnp.histogramdd(s, bins=2)
print(h.shape, h, [e.tolist() for e in edges])
h, edges = jnp.histogramdd(s, bins=(2, 3, 1), range=[None, (0, 6), None])
print(h, [e.dtype for e in edges], type(edges).__name__)
print(jnp.histogramdd(s, bins=2, density=True)[0].sum())
print(jnp.histogramdd(s[:, :1], bins=3, weights=w)[0])
print(jax.jit(lambda a, b: jnp.histogram2d(a, b, bins=3)[0])(x, y))
for f in [lambda: jnp.histogramdd(s, bins=[2, 2]),
          lambda: jnp.histogramdd(s, weights=w[:3]),
          lambda: jnp.histogramdd(s, range=[(0, 1)])]:
    try:
        f()
    except ValueError as e:
        print('ValueError', e)
result = jnp.histogram2d(x, y, bins=3)[0]
