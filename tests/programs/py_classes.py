class Vec:
    def __init__(self, x, y):
        self.x, self.y = x, y
    def __repr__(self):
        return f"Vec({self.x}, {self.y})"
    def __add__(self, o):
        return Vec(self.x + o.x, self.y + o.y)
    def __mul__(self, k):
        return Vec(self.x * k, self.y * k)
    __rmul__ = __mul__
    def __eq__(self, o):
        return isinstance(o, Vec) and self.x == o.x and self.y == o.y
    def __len__(self):
        return 2
    def __iter__(self):
        return iter([self.x, self.y])
    @property
    def norm2(self):
        return self.x ** 2 + self.y ** 2
    @classmethod
    def zero(cls):
        return cls(0, 0)
    @staticmethod
    def unit():
        return Vec(1, 0)

class Named(Vec):
    def __init__(self, name, x, y):
        super().__init__(x, y)
        self.name = name
    def __str__(self):
        return f"{self.name}:{super().__repr__()}"

class Ctx:
    def __enter__(self):
        print("enter"); return self
    def __exit__(self, t, e, tb):
        print("exit", t.__name__ if t else None, e); return True

v = Vec(1, 2) + Vec(3, 4)
print(v, [v, 2 * v], v == Vec(4, 6), v != Vec(4, 6), len(v), list(v), v.norm2)
print(Vec.zero(), Vec.unit(), Named("n", 1, 1), str(Named("m", 2, 2)))
x, y = v
print(x, y, f"{v!r} {v}")
with Ctx() as c:
    raise ValueError("swallowed")
print("after", {1: v})
d = {}
d[1] = 2; d[1.0] = 3
print(d, 1 in d)
try:
    d[[1]] = 3
except TypeError as e:
    print(e)

class Meters:
    def __init__(self, v):
        self._v = v
    @property
    def v(self):
        return self._v
    @v.setter
    def v(self, x):
        self._v = max(0, x)
    def __lt__(self, o):
        return self._v < o._v
    def __bool__(self):
        return self._v != 0
    def __contains__(self, x):
        return x <= self._v
    def __getattr__(self, name):
        return f"no {name}"

m = Meters(3)
m.v = -5
print(m.v, bool(m), bool(Meters(2)), 1 in Meters(2), 5 in Meters(2), m.missing)
print(sorted([Meters(3), Meters(1), Meters(2)], key=lambda x: x.v)[0].v, Meters(1) < Meters(2), Meters(3) > Meters(2))

class Registry:
    kinds = []
    def __init_subclass__(cls):
        Registry.kinds.append(cls.__name__)

class A(Registry):
    pass

class B(A):
    pass

print(Registry.kinds, [c.__name__ for c in B.__mro__])

class D1:
    def who(self):
        return "D1"
class D2(D1):
    def who(self):
        return "D2>" + super().who()
class D3(D1):
    def who(self):
        return "D3>" + super().who()
class D4(D2, D3):
    def who(self):
        return "D4>" + super().who()
print(D4().who(), [k.__name__ for k in D4.__mro__])
result = [v.x, v.y, Vec.zero().x, D4().who()]
