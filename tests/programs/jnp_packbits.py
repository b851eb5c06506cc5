# jnp.packbits / unpackbits along an axis or flattened, in both bit orders,
# with count cutting or padding, under jit; jnp.bitwise_count of signed,
# unsigned and bool arrays.
import jax
import jax.numpy as jnp

bits = jnp.array([0, 0, 0, 0, 0, 1, 1, 1])
print(repr(jnp.packbits(bits)), repr(jnp.packbits(bits, bitorder='little')))
print(repr(jnp.packbits(jnp.array([1, 0, 1]))), jnp.packbits(jnp.array([True, False, True, True, False, False, False, True, True])))
a = jnp.array([[1, 1, 0, 1, 0, 1, 0, 0, 1, 0, 0, 1, 0, 1, 1, 0],
               [0, 1, 0, 0, 0, 1, 0, 1, 1, 1, 0, 0, 1, 1, 1, 1]])
vals = jnp.packbits(a, axis=1)
print(repr(vals), jnp.packbits(a, axis=0), jnp.packbits(a, axis=-1, bitorder='little'))
print(repr(jnp.unpackbits(vals, axis=1)))
print(jnp.unpackbits(vals), jnp.unpackbits(vals, axis=0).shape)
print(jnp.unpackbits(vals, axis=1, count=5), jnp.unpackbits(vals, axis=1, count=-3).shape)
print(jnp.unpackbits(jnp.array([200, 3], dtype=jnp.uint8), count=20, bitorder='little'))
print(jnp.packbits(jnp.arange(-3, 20).reshape(23, 1), axis=0).T)
print(jax.jit(jnp.packbits, static_argnames='axis')(a, axis=1))
print(jax.jit(lambda v: jnp.unpackbits(v, count=12))(jnp.array([255, 17], dtype=jnp.uint8)))

x = jnp.array([0, 1, 7, -1, -128, 2**31 - 1], dtype=jnp.int32)
print(repr(jnp.bitwise_count(x)), repr(jnp.bitwise_count(jnp.array([255, 16], dtype=jnp.uint8))))
print(jnp.bitwise_count(jnp.array([-128, 127], dtype=jnp.int8)), jnp.bitwise_count(jnp.uint32(2**32 - 1)))
print(jax.jit(jnp.bitwise_count)(jnp.arange(8)), jnp.bitwise_count(jnp.array([True, False])))

for bad in [lambda: jnp.packbits(jnp.ones(3)), lambda: jnp.unpackbits(jnp.arange(3)),
            lambda: jnp.packbits(bits, bitorder='middle'), lambda: jnp.bitwise_count(jnp.ones(2))]:
    try:
        bad()
    except (TypeError, ValueError) as e:
        print(type(e).__name__, e)
result = jnp.unpackbits(jnp.packbits(a, axis=1), axis=1)
