# The match statement: literal, capture, sequence, mapping, class, or-,
# as- and guarded patterns.
from dataclasses import dataclass

import jax.numpy as jnp


@dataclass
class Layer:
    kind: str
    width: int = 4


class Point:
    __match_args__ = ("x", "y")

    def __init__(self, x, y):
        self.x = x
        self.y = y


def describe(spec):
    match spec:
        case None:
            return "nothing"
        case True | False:
            return "flag"
        case 0 | 1:
            return "small int"
        case int(n) if n > 100:
            return f"big int {n}"
        case float() | int() as number:
            return f"number {number}"
        case str() as name if name.startswith("x"):
            return f"x-name {name}"
        case str():
            return "some name"
        case []:
            return "empty"
        case [only]:
            return f"one {only}"
        case ("dp", size):
            return f"data parallel over {size}"
        case [first, *rest, last]:
            return f"first {first} middle {rest} last {last}"
        case {"mesh": (rows, cols), **others}:
            return f"mesh {rows}x{cols} with {sorted(others)}"
        case {"lr": lr}:
            return f"lr {lr}"
        case Layer(kind="dense", width=w):
            return f"dense {w}"
        case Layer(k):
            return f"layer {k}"
        case Point(0, y):
            return f"on the y axis at {y}"
        case Point(x=px, y=0):
            return f"on the x axis at {px}"
        case _:
            return f"other {type(spec).__name__}"


cases = [None, True, 0, 1, 500, 7, 2.5, "xla", "tpu", [], [3], ("dp", 8), (1, 2, 3, 4),
         {"mesh": (2, 4), "b": 1, "a": 2}, {"lr": 0.1, "x": 1}, Layer("dense", 16), Layer("conv"),
         Point(0, 5), Point(3, 0), Point(1, 1), "x", {"other": 1}, range(2), jnp.float32(2.0)]
for c in cases:
    print(describe(c))

match (1, 2):
    case (a, b) if a > b:
        print("descending")
    case (a, b):
        print("bound", a, b)
print("after", a, b)

command = "go north"
match command.split():
    case ["go", direction]:
        print("going", direction)
    case _:
        print("?")

try:
    match Point(1, 2):
        case Point(1, 2, 3):
            pass
except TypeError as e:
    print("TypeError:", e)

try:
    describe(jnp.ones(2))
except ValueError as e:
    print("ValueError:", e)
