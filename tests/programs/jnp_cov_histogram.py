import jax
import jax.numpy as jnp

x = jnp.array([[0.0, 1.0, 2.0, 4.0], [2.0, 1.5, 0.5, -1.0], [1.0, 3.0, 2.0, 7.0]])
print(jnp.cov(x))
print(jnp.cov(x, bias=True), jnp.cov(x, ddof=2)[0])
print(jnp.cov(x.T, rowvar=False)[1])
print(jnp.cov(x[0], x[1]))
c = jnp.cov(jnp.arange(5))
print(c, c.dtype, c.shape)
fw = jnp.array([1, 2, 1, 3])
aw = jnp.array([0.5, 1.0, 2.0, 1.0])
print(jnp.cov(x, fweights=fw))
print(jnp.cov(x, aweights=aw))
print(jnp.cov(x, fweights=fw, aweights=aw, ddof=0))
print(jnp.cov(x, fweights=fw, aweights=aw))
print(jnp.cov(jnp.zeros((2, 0))), jnp.cov(jnp.zeros((0, 3))).shape)
for bad in [lambda: jnp.cov(jnp.ones((2, 2, 2))), lambda: jnp.cov(x, dtype=jnp.int32)]:
    try:
        bad()
    except ValueError as e:
        print("ValueError", str(e).split(";")[0])
try:
    jnp.cov(x, fweights=jnp.array([1.0, 2.0, 1.0, 3.0]))
except TypeError as e:
    print("TypeError", e)
try:
    jnp.cov(x, aweights=jnp.ones(3))
except RuntimeError as e:
    print("RuntimeError", e)
# XLA rewrites corrcoef's divisions under its jit, so the last bit may
# differ: compare to 5 decimals.
print(jnp.round(jnp.corrcoef(x), 5))
print(jnp.round(jnp.corrcoef(x[0], x[2]), 5), jnp.corrcoef(jnp.arange(4.0)))
print(jnp.round(jax.jit(jnp.corrcoef)(x)[0], 5))
print(jax.grad(lambda m: jnp.cov(m).sum())(x))

# Histograms.
d = jnp.array([0.5, 1.2, 2.7, 3.0, 3.0, -1.0, 4.9, 2.2])
counts, edges = jnp.histogram(d)
# linspace's last bit can differ from XLA's fused ramp: edges to 5 decimals.
print(counts, jnp.round(edges, 5))
print(jnp.histogram(d, bins=4, range=(0, 4)))
print(jnp.histogram(d, bins=jnp.array([-1.0, 0.0, 2.5, 5.0]), weights=jnp.arange(8.0)))
print(jnp.histogram(d, bins=3, density=True))
print(jnp.histogram(jnp.array([2, 2, 2]), bins=2))
print(jnp.round(jnp.histogram_bin_edges(d, 5), 5), jnp.histogram_bin_edges(jnp.arange(3), 2).dtype)
try:
    jnp.histogram(d, bins="auto")
except TypeError as e:
    print("TypeError", e)
try:
    jnp.histogram_bin_edges(d, bins="auto")
except NotImplementedError as e:
    print("NotImplementedError", e)
try:
    jnp.histogram(d, weights=jnp.ones(3))
except ValueError as e:
    print("ValueError", e)

result = [jnp.cov(x), jnp.round(jnp.corrcoef(x), 5), counts, jnp.round(edges, 5)]
