# jnp.take's modes ("fill" by default: NaN, the least int32, the greatest
# uint32 or True outside the axis; "clip" clamps negative indices to 0;
# "wrap" takes them modulo the axis) and fill_value; the logical functions
# on non-bool operands (x != 0 first), and vdot conjugating its first
# operand.
import jax
import jax.numpy as jnp

x = jnp.arange(6.0) * 1.5
idx = jnp.array([1, -2, 6, -9, 5, -6, -7])
print(jnp.take(x, idx))
print(jnp.take(x, idx, mode="fill"))
print(jnp.take(x, idx, mode="clip"))
print(jnp.take(x, idx, mode="wrap"))
print(jnp.take(x, idx, fill_value=-1.0))
print(jnp.take(jnp.arange(6), idx))
print(jnp.take(jnp.arange(6, dtype=jnp.uint32), idx))
print(jnp.take(jnp.arange(6) % 2 == 0, idx))
m = jnp.arange(12.0).reshape(3, 4)
print(jnp.take(m, jnp.array([[3, -1], [4, 0]]), axis=1))
print(jnp.take(m, jnp.array([2, 3]), axis=0))
print(jax.jit(lambda a, i: jnp.take(a, i, mode="wrap"))(x, idx))
print(jax.grad(lambda a: jnp.take(a, jnp.array([0, 2, 9])).sum())(x))
try:
    jnp.take(x, idx, mode="raise")
except NotImplementedError as e:
    print("NotImplementedError", e)

n = jnp.array([-2, 0, 3, 0])
f = jnp.array([0.5, 0.0, -1.0, 0.0])
print(jnp.logical_and(n, 1), jnp.logical_and(n, f))
print(jnp.logical_or(n, 0.0), jnp.logical_xor(n, True))
print(jnp.logical_not(n), jnp.logical_not(f))
print(jax.make_jaxpr(lambda a: jnp.logical_or(a, 2))(n))
print(jax.make_jaxpr(jnp.logical_not)(f))
print(jnp.vdot(jnp.array([2j, 1 + 1j]), jnp.array([1.0, 3j])))
print(jnp.vdot(jnp.array([1.0, -2.0]), jnp.array([1j, 2 + 1j])))

result = {"wrap": jnp.take(x, idx, mode="wrap"), "not": jnp.logical_not(n)}
