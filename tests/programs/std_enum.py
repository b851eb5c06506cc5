import enum
from enum import Enum, IntEnum, auto, unique
@unique
class Color(Enum):
    RED = 1
    GREEN = 2
    BLUE = 3
    def describe(self):
        return f"{self.name.lower()}={self.value}"
print(Color.RED, repr(Color.GREEN), Color.RED.name, Color.RED.value, Color(2), Color['BLUE'])
print(list(Color), len(Color), Color.BLUE.describe(), Color.RED == Color.RED, Color.RED == Color.GREEN, Color.RED is Color(1))
print(Color, [c.name for c in Color], Color.RED in Color)
print(f"{Color.RED}", str(Color.GREEN), Color.RED == 1)
@unique
class Mode(Enum):
    TRAIN = auto()
    EVAL = auto()
    PREDICT = auto()
print(list(Mode), Mode.EVAL.value, Mode(3))
@unique
class Level(IntEnum):
    LOW = 1
    HIGH = 5
print(Level.LOW, repr(Level.HIGH), Level.HIGH == 5, Level(5), f"{Level.LOW}", Level.HIGH.value + 1)
table = {Color.RED: 'r', Color.GREEN: 'g'}
print(table[Color.GREEN], Color.__members__.keys() if False else list(Color.__members__))
try:
    Color(7)
except ValueError as e:
    print("ValueError", e)
try:
    Color['PINK']
except KeyError as e:
    print("KeyError", e)
try:
    @unique
    class Dup(Enum):
        A = 1
        B = 1
except ValueError as e:
    print("ValueError", e)
result = [c.value for c in Color]
