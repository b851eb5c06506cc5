from enum import Enum, IntEnum, auto
class Color(Enum):
    RED = 3
    GREEN = 1
    BLUE = "b"
class Mode(IntEnum):
    TRAIN = auto()
    EVAL = auto()
print(list(Color), Color.RED, repr(Color.GREEN), Color(1), Color["BLUE"].value, len(Mode), Mode.EVAL.value, [m.name for m in Mode])
result = [m.value for m in Mode] + [Color.RED.value]
