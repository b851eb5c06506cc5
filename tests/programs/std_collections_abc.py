import collections
from collections.abc import Mapping, Sequence, Iterable, Callable, Iterator
from typing import Optional
def gen():
    yield 1
print(isinstance({}, Mapping), isinstance([], Sequence), isinstance("s", Iterable), isinstance(gen(), Iterator),
      isinstance(len, Callable), isinstance(3, Iterable), isinstance((1,), collections.abc.Sequence), isinstance({1}, collections.abc.Set))
def f(x: Callable[[int], int], y: Mapping[str, int], z: Optional[Sequence[int]] = None) -> list[int]:
    return [x(v) for v in y.values()]
print(f(lambda v: v + 1, {"a": 1}))
class Box:
    def __class_getitem__(cls, item):
        return f"Box of {item.__name__}"
print(Box[int])
result = [isinstance({}, Mapping), isinstance([], Mapping), Box[int]]
