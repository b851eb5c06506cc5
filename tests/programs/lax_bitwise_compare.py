# lax's comparisons, bitwise and shift operations, bit counts, rem, atan2,
# square, reciprocal, exp2, is_finite and select, eagerly, under jit, vmap
# and grad.
import jax
import jax.numpy as jnp
from jax import lax

a = jnp.array([1.0, -2.0, 3.0, jnp.nan])
b = jnp.array([1.0, 2.0, -3.0, 0.0])
print(lax.eq(a, b), lax.ne(a, b), lax.lt(a, b), lax.le(a, b), lax.gt(a, b), lax.ge(a, b))
print(lax.eq(a, 1.0), lax.lt(jnp.int32(3), 4))

i = jnp.array([12, -7, 0, 255, -1], dtype=jnp.int32)
j = jnp.array([10, 3, 5, 1, 2], dtype=jnp.int32)
print(lax.bitwise_and(i, j), lax.bitwise_or(i, j), lax.bitwise_xor(i, j))
print(lax.bitwise_not(i), lax.bitwise_not(jnp.array([True, False])))
print(lax.shift_left(i, j), lax.shift_right_arithmetic(i, j), lax.shift_right_logical(i, j))
print(lax.shift_left(i, jnp.int32(33)), lax.shift_right_arithmetic(i, jnp.int32(40)))
u = jnp.array([0, 1, 7, 0x80000000, 0xFFFFFFFF], dtype=jnp.uint32)
print(lax.population_count(i), lax.population_count(u))
print(lax.clz(i), lax.clz(u))
print(lax.population_count(jnp.array([-1, 3], dtype=jnp.int8)), lax.clz(jnp.array([1, 0, -1], dtype=jnp.int16)))

big = jnp.array([2**31 - 1, -2**31, -1, 123456789, -987654321, 7], dtype=jnp.int32)
print(lax.mulhi(big, jnp.array([2**31 - 1, -2**31, -1, -55555, 99999, -3], dtype=jnp.int32)))
print(lax.mulhi(jnp.array([0xFFFFFFFF, 0x80000001, 12345], dtype=jnp.uint32), jnp.array([0xFFFFFFFF, 3, 0x10000], dtype=jnp.uint32)))
print(lax.mulhi(jnp.array([-128, 127, -3], dtype=jnp.int8), jnp.array([-128, 127, 5], dtype=jnp.int8)))
print(lax.mulhi(jnp.array([65535, 300], dtype=jnp.uint16), jnp.array([65535, 300], dtype=jnp.uint16)))
print(jax.jit(lax.mulhi)(big, big))
x = jnp.array([5.5, -5.5, 5.5, -5.5, -4.0, 0.0, 1e-10])
y = jnp.array([2.0, 2.0, -2.0, -2.0, 2.0, 3.0, -1.0])
print(lax.rem(x, y))
print(lax.rem(jnp.array([7, -7, 7, -7]), jnp.array([3, 3, -3, -3])))
print(lax.rem(jnp.array([7, 9], dtype=jnp.uint32), jnp.array([3, 4], dtype=jnp.uint32)))
print(lax.atan2(a, b), lax.atan2(jnp.float32(1.0), -1.0))
print(lax.square(jnp.array([1.5, -3.0])), lax.square(jnp.array([3, -4])))
print(lax.reciprocal(jnp.array([2.0, -0.5, 0.0])))
print(lax.exp2(jnp.array([0.0, 1.0, 3.5, -2.0, 10.0])))
print(lax.is_finite(jnp.array([1.0, jnp.inf, -jnp.inf, jnp.nan])))
print(lax.select(jnp.array([True, False, True]), jnp.array([1, 2, 3]), jnp.array([-1, -2, -3])))
print(lax.select(True, 1.0, 2.0))


@jax.jit
def mixed(p, q, n):
    return lax.rem(p, q), lax.clz(n), lax.population_count(n), lax.select(p > q, p, q), lax.ge(p, q)


print(mixed(x, y, i))
print(jax.make_jaxpr(lambda p, q: lax.select(lax.lt(p, q), p, q))(a, b))
print(jax.vmap(lax.shift_left)(i, j), jax.vmap(lax.rem, (0, None))(x, jnp.float32(3.0)))
print(jax.grad(lambda p: lax.rem(p, 2.0) * lax.square(p))(jnp.float32(5.5)))
print(jax.grad(lambda q: lax.rem(7.5, q))(jnp.float32(-2.0)))
print(jax.grad(lambda p: lax.exp2(p) + lax.reciprocal(p) + lax.atan2(p, 2.0))(jnp.float32(1.5)))
print(jax.grad(lambda p: lax.select(p > 0, p * p, -p).sum())(jnp.array([2.0, -3.0])))

for f, args in [(lax.add, (jnp.float32(1), jnp.int32(1))), (lax.eq, (a, i[:4])),
                (lax.atan2, (i, j)), (lax.bitwise_and, (a, b)), (lax.shift_left, (a, b))]:
    try:
        f(*args)
    except TypeError as e:
        print("TypeError", e)

result = lax.rem(x, y)
