import jax.numpy as jnp
import numpy as np

i8 = jnp.array([100, -100, 127], dtype=jnp.int8)
print(repr(i8), repr(i8 + i8), repr(i8 * 3), repr(-i8))
u8 = jnp.array([200, 5, 255], dtype=jnp.uint8)
print(repr(u8 + 100), repr(u8 - 6), repr(-u8), repr(u8 // 7), repr(u8 > 100))
print(repr(jnp.array([300.7, -5.5, 1e10, float("nan")]).astype(jnp.uint8)))
print(repr(jnp.array([300.7, -500.5, 1e10]).astype(jnp.int8)))
print(repr(jnp.array([300, -500, 70000]).astype(jnp.int8)))
print(repr(jnp.array([300, -500, 70000]).astype(jnp.uint16)))
print(repr(jnp.ones((2,), jnp.int16)), repr(jnp.arange(4, dtype=jnp.uint8)))
print(jnp.iinfo(jnp.int8), jnp.iinfo(jnp.uint16).max, jnp.iinfo(jnp.uint8).bits)
print(repr(i8 + u8), repr(u8.sum()), repr(i8.sum()), repr(i8.max()))
img = np.array([[0, 128, 255]], dtype=np.uint8)
j = jnp.asarray(img)
print(repr(j), repr(j / 255), repr(j.astype(jnp.float32) / 255), j.dtype, j.nbytes)
print(repr(jnp.dot(j, jnp.ones((3, 2)))))
