# uint32 as its own dtype: promotion with every other dtype and with Python
# scalars, wrapping arithmetic, unsigned division, bitwise ops and shifts.
import jax, jax.numpy as jnp
w = jnp.array([7, 300, 4000000000], dtype=jnp.uint32)
s = jnp.array([-3, 5, 11], dtype=jnp.int32)
x = jnp.array([0.25, -8.5, 1e9], dtype=jnp.float32)
m = jnp.array([False, True, True])
for name, other in [("int32", s), ("float32", x), ("bool", m), ("py int", 9),
                    ("py float", 0.5), ("py bool", False), ("py neg", -2)]:
    r = w + other
    print(name, r.dtype, r.weak_type, r)
print(w * w, w - 8, 5 - w, -w)
print(w // 7, w % 7, w // 0, w % 0, w / 4)
print(w ** 2, jnp.uint32(3) ** jnp.uint32(5))
print(w & 0xFF, w | 1, w ^ 0xF0F0, ~w)
print(w << 3, w >> 2, w >> 32, w << 40)
print(jnp.left_shift(w, 1), jnp.right_shift(w, 1), jnp.bitwise_xor(w, w >> 1))
print(s >> 1, s << 2, jnp.right_shift(s, 40))
print(w > 300, w == 300, w <= 7, jnp.maximum(w, 500), jnp.minimum(w, 500))
print(jnp.where(m, w, 1), jnp.where(m, w, 1).dtype)
c = jnp.array(0, dtype=jnp.uint32)
c += 1
print(repr(c), c.dtype, c.dtype == jnp.uint32, c.dtype.name)
result = w * 3 + 1
