# functools and math next to JAX: cached helpers, partial application,
# reductions and scalar math on Python numbers.
import functools
import math

import jax
import jax.numpy as jnp


@functools.lru_cache(maxsize=None)
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


print(fib(40), fib.cache_info())


@functools.lru_cache(maxsize=2)
def square(x):
    return x * x


print([square(i) for i in [1, 2, 1, 3, 2, 1]], square.cache_info())
square.cache_clear()
print(square.cache_info())


@functools.cache
def add(a, b=1):
    return a + b


print(add(1), add(1), add(1, b=1), add.cache_info())


@functools.lru_cache
def ident(x):
    return x


print(ident((1, 2)), ident.cache_info())
try:
    ident([1, 2])
except TypeError as e:
    print("TypeError:", e)


def logged(f):
    @functools.wraps(f)
    def wrapper(*args, **kw):
        return f(*args, **kw) + 1

    return wrapper


@logged
def double(x):
    return 2 * x


print(double(5))
scale = functools.partial(jnp.multiply, 3.0)
print(scale(jnp.arange(3.0)))
print(functools.reduce(lambda a, b: a * b, [1, 2, 3, 4]), functools.reduce(lambda a, b: a + b, [], 7))
total = functools.reduce(jnp.add, [jnp.ones(2), jnp.ones(2) * 2])
print(total)

print(math.sqrt(16), math.exp(1), math.log(100, 10), math.log2(8), math.log10(1000), math.log(2.5))
print(math.sin(1), math.cos(1), math.tan(1), math.tanh(0.5), math.atan(1), math.atan2(1, -1))
print(math.floor(2.5), math.ceil(2.1), math.floor(-2.5), math.floor(3), math.trunc(-2.7))
print(math.isclose(1.0, 1.0 + 1e-10), math.isclose(1, 1.1), math.isclose(0, 1e-10, abs_tol=1e-9))
print(math.prod([1, 2, 3, 4]), math.prod([1.5, 2]), math.prod([]), math.prod(range(1, 6), start=2))
print(math.pi, math.e, math.inf, -math.inf, math.nan, math.tau)
print(math.isnan(math.nan), math.isinf(math.inf), math.isfinite(1.0))
print(math.fsum([0.1] * 10), sum([0.1] * 10), math.fsum([1e100, 1.0, -1e100]), math.fsum([]))
print(math.pow(2, 10), math.gcd(12, 18), math.gcd(), math.gcd(0, -4, 6), math.lcm(4, 6), math.lcm(3, 0))
print(math.factorial(10), math.factorial(20), math.comb(10, 3), math.comb(3, 5), math.perm(5, 2), math.perm(5))
print(math.hypot(3, 4), math.hypot(1, 1), math.hypot(1, 2, 3), math.dist((0, 0), (1, 1)))
print(math.copysign(3, -0.0), math.degrees(math.pi), math.radians(180), math.degrees(1), math.radians(1))
print(math.frexp(8.0), math.frexp(0.3), math.ldexp(0.5, 4), math.modf(2.5), math.fmod(-7, 3))
print(math.isqrt(17), math.fabs(-3), math.asin(0.5), math.acosh(2), math.atanh(0.5))
print(math.sqrt(jnp.float32(2.0)), math.floor(jnp.array(2.7)))
for bad in [lambda: math.sqrt(-1), lambda: math.log(0), lambda: math.factorial(-1), lambda: math.comb(-1, 2)]:
    try:
        bad()
    except ValueError as e:
        print("ValueError:", e)

n = jax.device_count()
lr = 0.1 * math.sqrt(n) * math.cos(math.pi / 8)
result = {"fib": fib(50), "lr": lr, "comb": math.comb(n, 2), "fsum": math.fsum([0.1] * 10)}
