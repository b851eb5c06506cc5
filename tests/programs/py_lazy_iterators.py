# Iterators drawn one item at a time: map, filter, zip and enumerate over
# endless or side-effecting sources, itertools' infinite iterators, next()
# and iter(), and user classes with __iter__/__next__.
import itertools

import jax.numpy as jnp

drawn = []


def stream(scale):
    step = 0
    while True:
        drawn.append(step)
        yield jnp.full((2,), step * scale, dtype=jnp.float32)
        step += 1


batches = map(lambda b: b.sum(), stream(0.5))
print(next(batches), next(batches), drawn)
for step, (k, total) in zip(range(3), enumerate(batches, start=10)):
    print(step, k, total)
print("drawn", drawn)

squares = map(lambda i: i * i, itertools.count(1))
odd = filter(lambda v: v % 2, squares)
print(list(itertools.islice(odd, 4)))
print(next(odd))

c = itertools.count(2.5, 0.5)
print(next(c), next(c), c)
print([x for _, x in zip("abc", itertools.cycle([7, 8]))])
print(list(itertools.takewhile(lambda v: v < 20, map(lambda v: v * 3, itertools.count()))))

it = iter([1, 2, 3, 4])
print(next(it), list(zip(it, "xy")), list(it), next(it, "done"))

lazy = zip(stream(1.0), "pq")
print(type(lazy).__name__, type(map(str, stream(1.0))).__name__)
print([t[1] for t in lazy], list(lazy))
print(list(map(str, [1, 2])), list(filter(None, [0, 1, "", "a"])))


class Countdown:
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return self

    def __next__(self):
        if self.n == 0:
            raise StopIteration
        self.n -= 1
        return self.n


print(list(map(lambda v: v * 10, Countdown(3))))
for v in Countdown(2):
    print("count", v)


class Loader:
    def __iter__(self):
        i = 0
        while True:
            yield i
            i += 1


for i in Loader():
    if i == 3:
        break
print("stopped at", i)

try:
    list(zip([1, 2, 3], [4], strict=True))
except ValueError as e:
    print("ValueError:", e)
try:
    list(zip([1], [4], [5, 6], strict=True))
except ValueError as e:
    print("ValueError:", e)
try:
    next([1, 2])
except TypeError as e:
    print("TypeError:", e)
