# uint8 host arrays: image-like data and their bits.
import numpy as np

raw = np.random.RandomState(0).randint(255, size=(2, 3, 1))
b = raw.astype(np.uint8)
print(b.dtype, repr(b[0]))
bits = np.unpackbits(b, axis=-1)
print(bits.shape, bits.dtype, bits[0, 0])
try:
    np.asarray([1, 2, 300], dtype=np.uint8)
except OverflowError as e:
    print("OverflowError:", e)
print(np.asarray([1, 2, 255], dtype=np.uint8), np.array([3.7, 200.0]).astype(np.uint8))
print(b.sum(), (b.astype(np.float64) / 255).round(3))
