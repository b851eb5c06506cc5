# jax.debug.print in the body of a loop or branch that runs at top level
# (not under jit) prints once per iteration, before the call returns.
import jax
import jax.numpy as jnp

def step(carry, x):
    jax.debug.print("scan step x={x} carry={c}", x=x, c=carry)
    return carry * 2 + x, x - 1

print("scan ->", jax.lax.scan(step, 1.0, jnp.arange(3.0)))

def square(x):
    jax.debug.print("map item {}", x)
    return x * x

print("map ->", jax.lax.map(square, jnp.array([3, 4])))

def body(i, total):
    jax.debug.print("fori i={} total={}", i, total)
    return total + i

print("fori ->", jax.lax.fori_loop(0, 3, body, 10))

def cond_fn(c):
    return c < 20

def grow(c):
    jax.debug.print("while c={}", c)
    return c * 3

print("while ->", jax.lax.while_loop(cond_fn, grow, 2))

def neg(x):
    jax.debug.print("negating {}", x)
    return -x

def pos(x):
    jax.debug.print("keeping {}", x)
    return x

print("cond ->", jax.lax.cond(jnp.float32(1.5) > 1, neg, pos, 1.5))
print("switch ->", jax.lax.switch(1, [neg, pos], jnp.float32(2.5)))
result = jax.lax.fori_loop(0, 3, body, 10)
