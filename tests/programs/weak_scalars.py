# Weak types: Python numbers become weakly typed arrays, which give way to
# strongly typed operands in promotion and keep the bit through operations
# whose operands are all weak.
import jax, jax.numpy as jnp
from jax import lax

w = jnp.asarray(2.5)
wi = jnp.array(3)
s = jnp.float32(2.5)
v = jnp.arange(4.0)
k = jnp.arange(4)
print(repr(w), repr(wi), repr(s), w.weak_type, s.weak_type)
print(repr(w * 2), repr(w + s), repr(w * v))
print(repr(wi + 1), repr(wi * 0.5), repr(wi + v), repr(wi - k))
print(repr(k + 0.5), repr(k * 2), repr(v * 3), repr(k > 1))
print(repr(-w), repr(jnp.exp(wi)), repr(jnp.sqrt(w)), repr(w > 1), repr(w == s))
print(repr(w.astype(jnp.float32)), repr(wi.astype(jnp.float32)), repr(jnp.int32(w)))
print(repr(jnp.sum(w)), repr(w.mean()), repr(jnp.reshape(w, (1, 1))), repr(w[None] * 2))
print(repr(jnp.full((2,), 1.5)), repr(jnp.full((2,), 1.5, dtype=jnp.float32)), repr(jnp.full((), 7)))
print(repr(jnp.zeros_like(w)), repr(jnp.ones_like(wi)), repr(jnp.zeros_like(s)))
print(repr(jnp.where(True, 1.0, 2.0)), repr(jnp.where(v > 1, v, 0.0)), repr(jnp.where(k > 1, 1.5, 0)))
print(repr(jnp.maximum(w, 1)), repr(jnp.minimum(wi, 2.0)), repr(w ** 2), repr(2.0 ** wi))
print(repr(w / 2), repr(wi / 2), repr(wi // 2), repr(w + True), repr(jnp.asarray(True)))
print(repr(jnp.array([1.0, 2.0])), repr(jnp.array([w, w])), repr(jnp.stack([w, w])))
print(repr(lax.add(w, s)), repr(lax.mul(v, 2.0)), repr(lax.add(1.0, 2.0)))
print(repr(lax.convert_element_type(w, jnp.float32)), repr(lax.convert_element_type(2, jnp.float32)))
for f in [lambda: lax.add(v, 1), lambda: lax.sub(1, 1.0), lambda: lax.max(wi, v)]:
    try:
        f()
    except TypeError as e:
        print("TypeError:", e)
print(repr(jax.device_put(1.5)), repr(jax.numpy.float32(3) + 1))
print(repr(jax.nn.relu(1.0)), repr(jax.nn.sigmoid(0.0)), repr(jax.nn.relu(v)), repr(jax.nn.gelu(w)))
result = [w * v, wi + 1, k + 0.5]
