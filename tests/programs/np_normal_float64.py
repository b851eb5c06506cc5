# NumPy's float64 normal draws to the last bit: the ziggurat tables are
# NumPy's own, so repr (17 digits) shows the same numbers, over enough draws
# to visit the wedges and the tail.
import numpy as np

rng = np.random.default_rng(0)
x = rng.standard_normal(3000)
print([repr(v) for v in x[:6].tolist()])
print(repr(float(x.sum())), repr(float((x * x).sum())), repr(float(x.max())), repr(float(x.min())))
y = np.random.default_rng(7).normal(2.0, 3.0, size=(4, 3))
print([repr(v) for v in y.ravel().tolist()])
big = np.random.default_rng(3).standard_normal(20000)
print(repr(float(np.abs(big).max())), int((np.abs(big) > 3.0).sum()))
result = [repr(v) for v in big[-4:].tolist()]
