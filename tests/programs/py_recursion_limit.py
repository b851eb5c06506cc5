# run as a script
# Python's recursion limit: the module's frame and every call count against
# sys.getrecursionlimit(), and a RecursionError can be caught and recovered.
import sys


def depth(n):
    return 0 if n == 0 else depth(n - 1) + 1


print(sys.getrecursionlimit())
for n in (10, 500, 997, 998, 999, 1200):
    try:
        print(n, depth(n))
    except RecursionError as e:
        print(n, type(e).__name__, e)


def nested():
    try:
        sys.setrecursionlimit(2)
    except RecursionError as e:
        print(e)


nested()
try:
    sys.setrecursionlimit(1)
except RecursionError as e:
    print(e)
try:
    sys.setrecursionlimit(0)
except ValueError as e:
    print(e)

sys.setrecursionlimit(60)
for n in (57, 58, 59):
    try:
        print(n, depth(n))
    except RecursionError as e:
        print(n, "RecursionError")
sys.setrecursionlimit(3000)
print(sys.getrecursionlimit(), depth(2500))
print(depth(2900))
