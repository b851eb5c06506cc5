# int() with a base, the alternate form of format specs, and frozen
# dataclasses raising their own error class.
import dataclasses

texts = ["ff", "0x1f", "  -12 ", "1_000", "0b101", "08", "00", "--1", "_1", "1__0", "Z"]
for text in texts:
    row = []
    for base in (10, 16, 0, 2, 36):
        try:
            row.append(str(int(text, base)))
        except ValueError as e:
            row.append("ValueError")
    print(repr(text), " ".join(row))

try:
    int("7", 1)
except ValueError as e:
    print("ValueError:", e)
try:
    int(7.5, 10)
except TypeError as e:
    print("TypeError:", e)
for bad in (float("nan"), float("inf")):
    try:
        int(bad)
    except (ValueError, OverflowError) as e:
        print(type(e).__name__ + ":", e)

print(f"{255:#x}|{255:#010x}|{-5:#b}|{10:#o}|{3:#X}|{-255:#08x}|{65:>3c}|{65:3c}|")
print("%#x %#o %#X %-6d| %06.2f %+d" % (255, 8, 171, 42, 3.14159, 5))


@dataclasses.dataclass(frozen=True)
class Point:
    x: int
    y: int = 0


p = Point(1)
for action in ("set", "del"):
    try:
        if action == "set":
            p.x = 3
        else:
            del p.y
    except dataclasses.FrozenInstanceError as e:
        print(action, type(e).__name__, isinstance(e, AttributeError), e)
print(p)
