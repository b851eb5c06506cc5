"""Prints the NumPy legacy-RNG values that the unit tests of
src/modules/numpy/mt19937.rs and legacy.rs check shardlab's MT19937 stream
against.

Usage: /path/to/venv/bin/python tests/jax/legacy_words.py
"""

import numpy as np

print([hex(int(w)) for w in np.random.RandomState(0).randint(0, 2**32, size=4, dtype=np.uint64)])
print(np.random.RandomState(0).tomaxint())
print(repr(np.random.RandomState(0).random_sample()))
print([repr(float(x)) for x in np.random.RandomState(0).randn(3)])
print([hex(int(w)) for w in np.random.RandomState([1, 2, 3]).randint(0, 2**32, size=3, dtype=np.uint64)])
print([hex(int(w)) for w in np.random.RandomState(2**32 - 1).randint(0, 2**32, size=2, dtype=np.uint64)])
print(np.random.RandomState(7).randint(-5, 2**40, size=3).tolist())
print(np.random.RandomState(3).permutation(10).tolist())
