# functools.cached_property: computed once per instance, kept in the
# instance's attributes (so assignment and del reset it), per instance.
import functools

import jax.numpy as jnp

calls = []


class Grid:
    def __init__(self, n):
        self.n = n

    @functools.cached_property
    def points(self):
        calls.append(self.n)
        return jnp.arange(self.n) * 2.0


a, b = Grid(3), Grid(4)
print(a.points, a.points.sum(), b.points, calls)
print(a.points is a.points, "points" in vars(a), calls)
a.points = jnp.zeros(2)
print(a.points, calls)
del a.points
print(a.points, calls)
print(type(Grid.points).__name__, Grid.points.attrname)
result = calls
