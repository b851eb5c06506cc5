# pure_callback and io_callback inside jitted functions, loops and branches:
# the Python function runs each time the compiled program runs, with that
# run's values, in program order with jax.debug.print; a pure callback whose
# result is unused does not run; pytrees in and out; JAX's result checks.
import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import io_callback

seen = []


def host_scale(v, k):
    seen.append(("scale", v.shape, str(v.dtype)))
    return np.asarray(v) * k


@jax.jit
def scaled(v):
    y = jax.pure_callback(host_scale, jax.ShapeDtypeStruct(v.shape, v.dtype), v, 3.0)
    return y + 1


print(scaled(jnp.arange(4.0)))
print(scaled(jnp.ones(4)))
print(seen)


def tell(tag, v):
    print("host", tag, v)
    return np.asarray(v) + 1


@jax.jit
def ordered(v):
    jax.debug.print("before {}", v)
    a = io_callback(lambda t: tell("a", t), v, v, ordered=True)
    jax.debug.print("between {}", a)
    b = io_callback(lambda t: tell("b", t), v, a)
    return a * b


print(ordered(jnp.float32(2.0)))


def never(v):
    print("never printed")
    return v


@jax.jit
def unused(v):
    jax.pure_callback(never, jax.ShapeDtypeStruct(v.shape, v.dtype), v)
    return v * 2


print(unused(jnp.float32(1.5)))


def body(c, x):
    y = jax.pure_callback(
        lambda a, b: (np.asarray(a) + np.asarray(b)).astype(np.float32),
        jax.ShapeDtypeStruct((), jnp.float32),
        c,
        x,
    )
    return y, y * x


print(jax.lax.scan(body, jnp.float32(0.0), jnp.arange(1.0, 5.0)))
print(jax.jit(lambda xs: jax.lax.scan(body, 1.0, xs))(jnp.arange(3.0)))

count = []


def tick(i):
    count.append(int(i))
    return np.int32(int(i) * 10)


def step(i, acc):
    return acc + io_callback(tick, jax.ShapeDtypeStruct((), jnp.int32), i, ordered=True)


print(jax.jit(lambda n: jax.lax.fori_loop(0, n, step, 0))(4), count)


def branch(p, v):
    return jax.lax.cond(
        p,
        lambda u: jax.pure_callback(
            lambda w: np.asarray(w) * 10, jax.ShapeDtypeStruct((), jnp.float32), u
        ),
        lambda u: -u,
        v,
    )


print(jax.jit(branch)(True, 0.5), jax.jit(branch)(False, 0.5), branch(True, 1.0))


def split(tree):
    return {"sum": np.float32(tree["a"].sum() + tree["b"][0]), "neg": -np.asarray(tree["b"])}


@jax.jit
def tree_call(a, b):
    return jax.pure_callback(
        split,
        {"sum": jax.ShapeDtypeStruct((), jnp.float32), "neg": jax.ShapeDtypeStruct((2,), jnp.float32)},
        {"a": a, "b": b},
    )


print(tree_call(jnp.arange(3.0), jnp.array([5.0, 6.0])))


def kw_call(v, *, power):
    return np.asarray(v) ** power


print(jax.jit(lambda v: jax.pure_callback(kw_call, jax.ShapeDtypeStruct((2,), jnp.float32), v, power=3))(jnp.array([2.0, 3.0])))

def fails(v):
    raise ValueError("no value for " + str(v.shape))


for bad in [
    lambda v: np.zeros((3,), np.float32),
    lambda v: np.zeros((2,), np.int32),
    fails,
]:
    try:
        jax.jit(lambda v: jax.pure_callback(bad, jax.ShapeDtypeStruct((2,), jnp.float32), v))(jnp.ones(2))
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[-1])

result = scaled(jnp.array([1.0, -2.0]))
