# Errors about a traced value that Python needed say which jitted function
# was being traced, where it starts, and which arguments the value depends on.
import jax
import jax.numpy as jnp


def report(fn, *args):
    try:
        fn(*args)
    except Exception as e:
        print(type(e).__name__)
        print(e)


@jax.jit
def one_arg(x):
    if x < 3:
        return x
    return -x


report(one_arg, 2.0)


@jax.jit
def two_args(x, y, z):
    return jnp.where(x > 0, y, z) if (x + y) > 0 else z


report(two_args, 1.0, 2.0, 3.0)


def three_args(a, b, c, d):
    total = a * b + c * d
    while total > 0:
        total = total - 1
    return total


report(jax.jit(three_args), 1.0, 2.0, 3.0, 4.0)


def nested(params, scale):
    if params['w'].sum() > scale:
        return params['w']
    return params['b']


report(jax.jit(nested), {'w': jnp.ones(3), 'b': jnp.zeros(3)}, 1.0)


@jax.jit
def from_constants(x):
    y = jnp.float32(2.0) * 3.0
    if y > 1:
        return x
    return -x


report(from_constants, 1.0)


@jax.jit
def as_index(n):
    return list(range(n))


report(as_index, 3)


@jax.jit
def as_int(x):
    return int(x) + 1


report(as_int, 3.0)

lam = jax.jit(lambda q: q if q > 0 else -q)
report(lam, 1.0)


# Bodies of lax control flow name themselves and what they were traced for.
def step(carry, x):
    if x > 0:
        return carry + x, x
    return carry, x


report(lambda xs: jax.lax.scan(step, 0.0, xs), jnp.arange(3.0))


def keep_going(state):
    return state[0] < 3


def advance(state):
    i, v = state
    if v > 2:
        return i + 1, v
    return i + 1, v * 2


report(lambda v: jax.lax.while_loop(keep_going, advance, (0, v)), 1.0)


def stop_at(state):
    return state['v'] < 3 if state['v'] > 0 else False


report(lambda v: jax.lax.while_loop(stop_at, advance, {'v': v}), 1.0)


def counted(i, v):
    if i > 1:
        return v
    return v + 1


report(lambda v: jax.lax.fori_loop(0, 3, counted, v), 1.0)


def branch(x):
    if x > 0:
        return x
    return -x


report(lambda p, x: jax.lax.cond(p, branch, branch, x), True, 1.0)
report(lambda x: jax.lax.switch(0, [branch, branch], x), 1.0)
report(jax.make_jaxpr(branch), 1.0)


@jax.jit
def shaped(n, fill):
    return jnp.full((n, 2), fill)


report(shaped, 2, 1.0)
