from contextlib import contextmanager, suppress, nullcontext
from dataclasses import dataclass, field
from collections import namedtuple, Counter

@contextmanager
def tag(name):
    print("<" + name + ">")
    try:
        yield name.upper()
    except KeyError as e:
        print("handled", e)
    finally:
        print("</" + name + ">")

with tag("a") as t:
    print("inside", t)
with tag("b"):
    {}["missing"]
try:
    with tag("c"):
        raise ValueError("escapes")
except ValueError as e:
    print("outer", e)
with suppress(ZeroDivisionError):
    1 / 0
with nullcontext(5) as v:
    print(v)

@dataclass
class P:
    x: int
    y: list = field(default_factory=list)
print(P(1), P(1) == P(1), P(1, [2]) != P(1))
Pt = namedtuple("Pt", "x y")
print(Pt(1, 2) == Pt(1, 2), Pt(1, 2))
c = Counter("abracadabra")
print(c.most_common(2))
result = [v, P(3).x, c["a"]]
