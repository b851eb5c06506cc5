# type() of functions, builtins, methods, classes, modules and the other
# core objects names the class Python does.
import math


def f():
    return 1


class A:
    def m(self):
        return 2


print(type(f), type(lambda: 0), type(len), type(print).__name__, type(f).__name__)
print(type(A().m), type(A.m), type(A), type(int), type(type))
print(type(math), type(range(3)), type(slice(1)), type(...))
print(type(f) is type(lambda: 0), type(len) is type(print), type(A) is type)
result = [type(x).__name__ for x in (f, len, A().m, A, math, range(2), slice(3), ...)]
