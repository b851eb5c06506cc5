# Which objects can be dict keys and set members: equality that a class
# defines decides, as in Python.
from collections import namedtuple
from dataclasses import dataclass


@dataclass(frozen=True)
class MeshSpec:
    shape: tuple
    names: tuple


@dataclass
class Mutable:
    n: int


class Params(dict):
    pass


class Plain:
    pass


Axis = namedtuple("Axis", ["name", "size"])

cache = {MeshSpec((2, 4), ("x", "y")): "first"}
print(cache[MeshSpec((2, 4), ("x", "y"))], MeshSpec((2, 4), ("x", "y")) in cache)
cache[MeshSpec((2, 4), ("x", "y"))] = "second"
print(len(cache), list(cache.values()))
print(len({Axis("x", 2), Axis("x", 2), Axis("y", 2)}), {Axis("x", 2): 1}[Axis("x", 2)])
p1, p2 = Plain(), Plain()
print(len({p1: 1, p2: 2}), {p1} == {p1})
for bad in [Mutable(1), Params(a=1), [1], {"a": 1}, {1, 2}]:
    try:
        {bad: 0}
    except TypeError as e:
        print("TypeError:", e)
try:
    {frozenset({1}), (1, [2])}
except TypeError as e:
    print("TypeError:", e)
