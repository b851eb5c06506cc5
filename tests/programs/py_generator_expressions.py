# Generator expressions are lazy: they draw from endless iterators, run
# their body only as items are taken, and evaluate the first iterable at once.
import itertools

squares = (n * n for n in range(5))
print(type(squares).__name__, next(squares), next(squares), list(squares))

multiples = (x for x in itertools.count(1) if x % 7 == 0)
print([next(multiples) for _ in range(3)])

seen = []
def noisy(v):
    seen.append(v)
    return v

lazy = (noisy(v) for v in range(4))
print("before", seen)
print("first", next(lazy), seen)
print(any(v > 1 for v in itertools.count()), all(v < 3 for v in itertools.count()))

pairs = ((a, b) for a in range(3) if a != 1 for b in "xy")
print(list(pairs))

try:
    bad = (x for x in 5)
except TypeError as e:
    print("TypeError:", e)

def numbers():
    yield from (i * 10 for i in itertools.count())

g = numbers()
print([next(g) for _ in range(4)])
print(sum(x for x in range(1000)), "".join(c.upper() for c in "jax"))
