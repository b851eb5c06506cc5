# itertools as programs use it: mesh shapes, parameter grids, batching.
import itertools

import jax
import jax.numpy as jnp

n = jax.device_count()
shapes = [(a, b) for a, b in itertools.product(range(1, n + 1), repeat=2) if a * b == n]
print("mesh shapes:", shapes)
print(list(itertools.product([1, 2], "ab")))
print(list(itertools.chain([1, 2], (3,), "xy")), list(itertools.chain.from_iterable([[1], [2, 3], []])))
print(list(itertools.permutations([1, 2, 3])))
print(list(itertools.permutations("abcd", 2))[:5])
print(list(itertools.combinations(range(5), 3)))
print(list(itertools.combinations_with_replacement("abc", 2)))
print(list(itertools.combinations(range(3), 5)), list(itertools.permutations([], 0)))
print(list(itertools.islice(range(10), 3)), list(itertools.islice(range(10), 2, 8, 3)), list(itertools.islice("abcdef", 1, None)))
print(list(itertools.accumulate([1, 2, 3, 4])), list(itertools.accumulate([1, 2, 3, 4], lambda a, b: a * b, initial=10)))
print(list(itertools.accumulate([3, 1, 4, 1, 5], max)))
print(list(itertools.repeat("x", 3)), list(itertools.zip_longest([1, 2, 3], "ab", fillvalue="-")))
print(list(itertools.starmap(pow, [(2, 3), (3, 2)])))
print([(k, list(g)) for k, g in itertools.groupby("aaabccdd")])
print([(k, len(list(g))) for k, g in itertools.groupby([1, 3, 2, 4, 5], key=lambda x: x % 2)])
print(list(itertools.pairwise([1, 2, 3, 4])))
a, b = itertools.tee([1, 2, 3])
print(list(a), list(b))
print(list(itertools.islice(itertools.count(5), 4)), list(itertools.islice(itertools.count(1, 0.5), 3)))
print(list(itertools.islice(itertools.cycle("ab"), 5)), list(itertools.takewhile(lambda x: x < 4, itertools.count())))
print(list(itertools.islice(itertools.repeat(7), 2)))
print(list(itertools.dropwhile(lambda x: x < 3, [1, 2, 3, 1])), list(itertools.filterfalse(None, [0, 1, 0, 2])))
print(list(itertools.compress("abcd", [1, 0, 1, 0])))

xs = jnp.arange(12.0)
batches = [xs[i:j] for i, j in itertools.pairwise(range(0, 13, 4))]
print([float(b.sum()) for b in batches])
result = {
    "pairs": [list(p) for p in itertools.combinations(range(4), 2)],
    "sums": list(itertools.accumulate(range(6))),
    "batch_sums": [float(b.sum()) for b in batches],
}
