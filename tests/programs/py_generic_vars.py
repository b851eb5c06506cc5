import typing as tp

T = tp.TypeVar("T")


class Box(tp.Generic[T]):
    def __init__(self, value: T):
        self.value = value

    def __repr__(self):
        return f"{type(self).__name__}({self.value})"


class Tagged(Box[T]):
    pass


class Registry(dict[str, Box[tp.Any]]):
    def only(self, kind):
        return Registry({k: v for k, v in self.items() if isinstance(v, kind)})


print(Box[int], Box[tp.Any], Tagged[str])
print(Box[int](3), Tagged(4), isinstance(Tagged(4), Box), issubclass(Tagged, Box))
r = Registry({"a": Box(1), "b": Tagged(2)})
print(r.only(Tagged), type(r.only(Box)).__name__)


# Rebuilding an object without running __init__, then filling it through vars().
class Node:
    def __init__(self):
        raise RuntimeError("not called when rebuilding")


n = object.__new__(Node)
vars(n).update({"depth": 2, "name": "root"})
vars(n).update(kids=[1, 2])
vars(n)["extra"] = None
print(n.depth, n.name, n.kids, n.extra, sorted(vars(n).items()))
print(len(vars(n)), "depth" in vars(n), vars(n).get("missing", 0), vars(n))
result = [n.depth, len(vars(n))]
