from array import array
import array as array_module
import jax.numpy as jnp
import numpy as np

primes = array('i', [2, 3, 5, 7, 11])
print(primes, len(primes), primes[1], primes[-1], primes.typecode, primes.itemsize)
print(jnp.array(primes), jnp.asarray(primes))
print(jnp.asarray(primes).dtype, np.asarray(primes).dtype)
halves = array('f', [0.1, 2.5, -3.75])
print(halves, halves.tolist())
print(jnp.array(halves))
doubles = array('d', [0.1, 1e-3])
print(doubles, jnp.asarray(doubles), jnp.asarray(doubles).dtype)
pixels = array('B', [0, 128, 255])
print(pixels, jnp.array(pixels), jnp.array(pixels).dtype)
print(array('l', range(4)), list(array('I', [1, 4000000000])), array('d'))
print(sum(array('i', [1, 2, 3])), array_module.typecodes)
for bad in [('i', [1.5]), ('B', [256]), ('x', [])]:
    try:
        array(*bad)
    except (TypeError, OverflowError, ValueError) as e:
        print(type(e).__name__)
result = jnp.asarray(primes) * 2

raw = b"\x01\x00\x02\x00\x03\x00\x04\x00"
print(jnp.frombuffer(raw, dtype=jnp.uint8), jnp.frombuffer(raw, dtype=jnp.uint8, offset=3))
print(jnp.frombuffer(raw, dtype=jnp.int16), jnp.frombuffer(raw, dtype='int32', count=1))
print(jnp.frombuffer(raw), jnp.frombuffer(raw).dtype)
print(jnp.frombuffer(primes, dtype=jnp.int32), jnp.frombuffer(halves, dtype=jnp.float32))
print(jnp.frombuffer(doubles, dtype=jnp.float64), jnp.frombuffer(pixels, dtype=jnp.bool_))
for kw in [dict(offset=9), dict(count=5, dtype=jnp.int16), dict(dtype=jnp.float32, offset=1)]:
    try:
        jnp.frombuffer(raw, **kw)
    except ValueError as e:
        print("ValueError", e)
