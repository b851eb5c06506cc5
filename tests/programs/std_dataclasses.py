import dataclasses
from dataclasses import dataclass, field, fields, asdict, astuple, replace, is_dataclass
@dataclass
class Point:
    x: int
    y: int = 0
p = Point(1)
print(p, Point(1, 2), Point(x=3, y=4), p.x, p.y)
@dataclass(frozen=True, order=True)
class Config:
    name: str
    layers: list = field(default_factory=list)
    rate: float = 0.1
    tag: str = field(default="t", repr=False)
c = Config("mlp", [1, 2])
print(c, c.layers, c.tag, Config("a"))
print([f.name for f in fields(c)], asdict(c), astuple(c))
print(replace(c, rate=0.5), is_dataclass(c), is_dataclass(Config), is_dataclass(3))
@dataclass
class Nested:
    p: Point
    items: list = field(default_factory=lambda: [Point(0, 0)])
n = Nested(Point(1, 2))
print(n, asdict(n), astuple(n))
@dataclass
class WithPost:
    a: int
    b: int = field(init=False)
    def __post_init__(self):
        self.b = self.a * 2
    def total(self):
        return self.a + self.b
w = WithPost(3)
print(w, w.total())
@dataclass
class Child(Point):
    z: int = 5
print(Child(1, 2), Child(1, 2, 3), [f.name for f in fields(Child)])
@dataclass(repr=False)
class NoRepr:
    a: int
print(type(NoRepr(1)).__name__)
@dataclass(kw_only=True)
class KW:
    a: int
    b: int = 2
print(KW(a=1))
try:
    Point()
except TypeError as e:
    print("TypeError", e)
try:
    Point(1, 2, 3)
except TypeError as e:
    print("TypeError", e)
try:
    Point(1, q=2)
except TypeError as e:
    print("TypeError", e)
try:
    @dataclass
    class Bad:
        a: int = 1
        b: int
except TypeError as e:
    print("TypeError", e)
try:
    @dataclass
    class Bad2:
        a: list = []
except ValueError as e:
    print("ValueError", e)
try:
    KW(1)
except TypeError as e:
    print("TypeError", e)
try:
    WithPost()
except TypeError as e:
    print("TypeError", e)
try:
    fields(3)
except TypeError as e:
    print("TypeError", e)
print(dataclasses.asdict(Point(5, 6), dict_factory=lambda kv: sorted(kv)))
print(fields(Point)[1].default, fields(Config)[0].default is dataclasses.MISSING)
result = asdict(p)
