class MyErr(ValueError):
    def __init__(self, code):
        super().__init__(f"code {code}")
        self.code = code

class Plain(Exception):
    pass

try:
    raise MyErr(7)
except ValueError as e:
    print("caught", type(e).__name__, e.code, e, repr(e), e.args)

try:
    raise Plain("boom", 2)
except Plain as e:
    print(e, e.args, isinstance(e, Exception))

try:
    {}["k"]
except KeyError as e:
    print("key", e, repr(e))

try:
    try:
        1/0
    except ZeroDivisionError:
        raise
except ArithmeticError as e:
    print("arith", e)
finally:
    print("fin")
try:
    raise RuntimeError("x") from ValueError("y")
except RuntimeError as e:
    print(e, type(e.__cause__).__name__)
def check(n):
    if n < 0:
        raise ValueError(f"negative: {n}")
    return n

results = []
for n in [1, -2]:
    try:
        results.append(check(n))
    except ValueError as e:
        results.append(str(e))
    else:
        results.append("ok")
    finally:
        results.append("done")
print(results)

class Wrapped(Exception):
    def __init__(self, msg, code=0):
        super().__init__(msg)
        self.code = code
    def __str__(self):
        return f"[{self.code}] {self.args[0]}"

try:
    try:
        check(-1)
    except ValueError as e:
        raise Wrapped("wrapped", code=3) from e
except Wrapped as w:
    print(w, repr(w.__cause__), isinstance(w, Exception), type(w).__mro__[1].__name__)
result = results
raise Wrapped("uncaught", code=9)
