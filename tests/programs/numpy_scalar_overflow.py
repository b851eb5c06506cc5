# Integer arithmetic on NumPy scalars wraps around with a RuntimeWarning,
# as NumPy's scalar math does; within range it warns nothing.
import warnings
import numpy as np

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print(repr(np.int32(2**31 - 1) + np.int32(1)))
    print(repr(np.uint8(200) + np.uint8(100)))
    print(repr(np.uint32(3) - 5))
    print(repr(np.int32(65536) * np.int32(65536)))
    print(repr(np.int32(5) + 1), repr(7 - np.uint8(2)))
for w in caught:
    print(w.category.__name__, w.message)
