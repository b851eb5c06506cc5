import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
from functools import partial
class Counter:
    def __init__(self, start=0):
        self.n = start
    def __call__(self, k=1):
        self.n += k
        return self.n
    def twice(self):
        return self.n * 2
c = Counter(5)
c(); c(3)
def make_adder(k):
    def add(v, *rest, scale=1, **kw):
        return (v + k + sum(rest)) * scale + len(kw)
    return add
add3 = make_adder(3)
vals = [add3(1), add3(1, 2, 3), add3(1, scale=2, extra=None)]
squares = {i: i * i for i in range(5) if i % 2 == 0}
pairs = [(a, b) for a in range(3) for b in 'xy']
first, *middle, last = [1, 2, 3, 4, 5]
total = 0
i = 0
while True:
    i += 1
    if i % 2:
        continue
    total += i
    if i > 10:
        break
msg = f"{c.twice()} {vals} {squares} {pairs[:3]} {middle} {total:>5} {3.14159:.3f} {1/3!r}"
print(msg)
print("%d items, %.2f%% done, %s" % (3, 99.5, 'ok'))
print(sorted([3, 1, 2], reverse=True), list(reversed(range(3))), max([1, 5, 2]), min(4, 2), abs(-2.5), round(2.675, 2))
print(any([0, 1]), all([]), list(zip('ab', [1, 2])), list(enumerate('hi', 1)), isinstance(1.0, float), type(3).__name__)
print(list(map(lambda v: v * 2, [1, 2])), list(filter(None, [0, 1, 2])), hasattr(c, 'n'), getattr(c, 'm', 'none'))
try:
    {}['missing']
except KeyError as e:
    print('caught', repr(e))
print(0.1 + 0.2, 1e-5, 123456789.0 * 10 ** 10, 2 ** 10, 7 // 2, -7 // 2, 7 % -3, 10 / 4, True + True)
result = {'vals': vals, 'total': total, 'msg': msg, 'n': c.n}
