# jnp functions built from other jnp functions: concat, divmod,
# cumulative_sum/cumulative_prod, broadcast_arrays, array_equiv, ediff1d,
# compress/extract, diff with prepend/append, full_like with a shape, and
# the bartlett/blackman/hamming/hanning windows.
import jax
import jax.numpy as jnp

a = jnp.array([[4, -7, 2], [9, 3, -5]])
f = jnp.array([3.5, -2.25, 8.0, -0.5])
print(jnp.concat([a, a * 2]), jnp.concat([a, a[:, :1]], axis=1))
print(jnp.divmod(jnp.array([17, -17, 5, -3]), jnp.array([5, 5, -3, 7])))
print(jnp.divmod(f, 1.5), jnp.divmod(jnp.arange(6), 4))
print(jnp.cumulative_sum(a, axis=1), jnp.cumulative_sum(a, axis=0, include_initial=True))
print(jnp.cumulative_sum(f, include_initial=True), jnp.cumulative_prod(f))
print(jnp.cumulative_prod(a, axis=-1, include_initial=True, dtype=jnp.float32))
print(jnp.broadcast_arrays(jnp.arange(3), jnp.array([[1], [2]]), 5))
print(jnp.array_equiv(a, a), jnp.array_equiv(a[0], jnp.array([[4, -7, 2]] * 3)),
      jnp.array_equiv(f, f + 1))
try:
    jnp.array_equiv(a, a[:, :2])
except TypeError as e:
    print("TypeError", e)
print(jnp.ediff1d(a), jnp.ediff1d(f, to_begin=jnp.array([1.5, 2.5]), to_end=9))
print(jnp.ediff1d(jnp.array([3, 1, 4, 1, 5]), to_begin=-1.7))
c = jnp.array([True, False, True])
print(jnp.compress(c, jnp.arange(12).reshape(3, 4), axis=0),
      jnp.compress(jnp.array([0, 1, 1]), a, axis=1), jnp.compress(c, a))
print(jnp.compress(c, a, axis=1, size=3, fill_value=-1))
print(jnp.extract(a > 0, a), jnp.extract(a > 0, a, size=5, fill_value=99))
print(jax.vmap(lambda m, r: jnp.extract(m, r, size=2))(a > 0, a))
print(jnp.diff(a, prepend=0), jnp.diff(a, axis=0, append=jnp.array([[1, 1, 1]])))
print(jnp.diff(f, n=2, prepend=jnp.array([1.0, 2.0]), append=7))
print(jnp.full_like(f, 3, shape=(2, 2)), jnp.full_like(a, 1.5, dtype=jnp.float32, shape=3))
for w in [jnp.bartlett, jnp.blackman, jnp.hamming, jnp.hanning]:
    print(w(7), w(1), w(0).shape, w(4))
try:
    jnp.cumulative_sum(a)
except ValueError as e:
    print("ValueError", e)
try:
    jnp.compress(jnp.array([True, False, False, True]), a, axis=0)
except ValueError as e:
    print("ValueError", e)
result = [jnp.hanning(9), jnp.divmod(f, 0.75)[1], jnp.cumulative_sum(a, axis=1)]
