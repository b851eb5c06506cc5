# NumPy's Generator with dtype=: float32 draws come from 32-bit words (half
# a 64-bit draw, the other half kept for the next one), so they are other
# numbers than float64 draws; integer dtypes set the result's type, and
# uint8 and bool draws share 32-bit words. Mixed draws keep the stream.
# stdout: exact digits
import numpy as np

rng = np.random.default_rng(42)
print(repr(rng.random()), repr(rng.random(dtype=np.float32)))
print(repr(rng.random(5, np.float32)), repr(rng.random(2)))
print(repr(rng.random((2, 2), dtype="float32")), repr(rng.random(size=())))
print(repr(rng.standard_normal(4, dtype=np.float32)), repr(rng.standard_normal(dtype="f4")))
print(repr(rng.standard_normal(3)), repr(rng.normal(1.0, 2.0, 2)), repr(rng.uniform(-1, 1, 2)))
big = rng.standard_normal(20000, dtype=np.float32)
print(repr(big[:3]), big.dtype, float(big.astype(np.float64).sum()), float(big.min()), float(big.max()))
print(repr(rng.integers(5)), repr(rng.integers(5, size=3, dtype=np.int32)))
print(repr(rng.integers(0, 200, 6, np.uint8)), repr(rng.integers(0, 2, 7, dtype=bool)))
print(repr(rng.integers(10, 20, size=(2, 3), dtype=np.uint32)), repr(rng.integers(3, dtype=np.int64)))
print(repr(rng.integers(0, 256, 5, dtype=np.uint8)), repr(rng.integers(7, 8, size=3)))
print(repr(rng.integers(-5, 5, 4, dtype="int32", endpoint=True)), repr(rng.random(dtype=np.float32)))
print(repr(rng.integers(1, 2**40, 2)), repr(rng.random(3)))

for call in [
    lambda: rng.random(3, dtype=np.int32),
    lambda: rng.standard_normal(2, dtype=np.int64),
    lambda: rng.integers(5, dtype=np.float64),
    lambda: rng.integers(-1, 5, dtype=np.uint8),
    lambda: rng.integers(0, 300, dtype=np.uint8),
    lambda: rng.random(3, foo=1),
    lambda: rng.normal(size=2, dtype=np.float32),
]:
    try:
        print(call())
    except Exception as e:
        print(type(e).__name__, e)

legacy = np.random.RandomState(0)
print(repr(legacy.randint(5, size=3, dtype=np.int32)), repr(legacy.randint(5)))
print(repr(legacy.randint(5, dtype=np.int64)), repr(legacy.randint(5, dtype=np.int32)))
print(repr(legacy.randint(0, 9, size=2, dtype=np.uint32)), repr(legacy.random_sample(2)))
try:
    legacy.random_sample(2, dtype=np.float32)
except TypeError as e:
    print(type(e).__name__, e)
result = float(rng.random())
