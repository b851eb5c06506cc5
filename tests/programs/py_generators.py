def count(n):
    i = 0
    while True:
        if i >= n:
            return
        yield i
        i += 1

def batches(data, size):
    for start in range(0, len(data), size):
        yield data[start:start + size]

def echo():
    total = 0
    while True:
        x = yield total
        if x is None:
            break
        total += x

def chain(*its):
    for it in its:
        yield from it

def guarded():
    try:
        yield 1
        raise ValueError("inside")
    except ValueError as e:
        yield f"caught {e}"
    finally:
        print("cleanup")

def forever():
    k = 0
    while True:
        yield k
        k += 1

print(list(count(4)), sum(count(5)))
for b in batches(list(range(7)), 3):
    print(b)
g = echo()
print(next(g), g.send(5), g.send(2))
print(list(chain([1, 2], (x * x for x in range(3)), count(2))))
print(list(guarded()))
it = forever()
print([next(it) for _ in range(3)], next(it))
for k in forever():
    if k > 3:
        break
print(k)
lit = iter([10, 20])
print(next(lit), next(lit), next(lit, "done"))
try:
    next(lit)
except StopIteration:
    print("stop")
print(dict(zip("ab", count(5))))
result = list(count(3))
it = iter([])
try:
    next(it)
except StopIteration as e:
    print(repr(e), e.args)
def g():
    yield 1
x = g()
next(x)
try:
    x.send(3)
except StopIteration as e:
    print(type(e).__name__, e.args)
