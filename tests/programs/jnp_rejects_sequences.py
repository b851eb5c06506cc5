# jax.numpy takes arrays and scalars, not Python lists or tuples: each call
# below raises JAX's TypeError naming the function (by JAX's own name for
# it) and the argument's place, while jnp.array, NumPy and the shape
# queries (with a DeprecationWarning) accept them.
import warnings
import numpy as np
import jax
import jax.numpy as jnp

x = jnp.arange(4.0)
values = [1.0, 2.0, 3.0, 4.0]


def attempt(label, thunk):
    try:
        out = thunk()
        print(label, "->", out)
    except TypeError as e:
        print(label, "TypeError:", e)


attempt("sum", lambda: jnp.sum(values))
attempt("sum kw", lambda: jnp.sum(a=values))
attempt("mean tuple", lambda: jnp.mean((1.0, 2.0)))
attempt("abs", lambda: jnp.abs([-1.0, 2.0]))
attempt("conj", lambda: jnp.conj(values))
attempt("round", lambda: jnp.round(values))
attempt("divide 2nd", lambda: jnp.divide(x, values))
attempt("mod 1st", lambda: jnp.mod(values, x))
attempt("right_shift", lambda: jnp.bitwise_right_shift(jnp.arange(4), [1, 1, 1, 1]))
attempt("where 3rd", lambda: jnp.where(x > 1, x, [0.0, 0.0, 0.0, 0.0]))
attempt("take indices", lambda: jnp.take(x, [0, 2]))
attempt("full fill", lambda: jnp.full((4,), values))
attempt("concatenate 2nd", lambda: jnp.concatenate([x, [5.0]]))
attempt("stack lists", lambda: jnp.stack([[1.0], [2.0]]))
attempt("einsum 2nd", lambda: jnp.einsum("i,i", x, values))
attempt("norm", lambda: jnp.linalg.norm(values))
attempt("x + list", lambda: x + values)
attempt("tuple * x", lambda: (1.0, 2.0, 3.0, 4.0) * x)
attempt("x @ list", lambda: x @ values)
attempt("x == list", lambda: x == values)
attempt("x < tuple", lambda: x < (1.0, 2.0, 3.0, 4.0))

# What is accepted.
attempt("array", lambda: jnp.array(values).sum())
attempt("asarray", lambda: jnp.asarray((1, 2)) * 2)
attempt("stack scalars", lambda: jnp.stack([1.0, 2.0]))
attempt("concatenate arrays", lambda: jnp.concatenate((x, x)).shape)
attempt("reshape shape list", lambda: jnp.reshape(x, [2, 2]).shape)
attempt("transpose axes list", lambda: jnp.transpose(jnp.ones((2, 3)), [1, 0]).shape)
attempt("expand_dims axes", lambda: jnp.expand_dims(x, (0, 2)).shape)
attempt("expand_dims negative", lambda: jnp.expand_dims(x, (-1, 0)).shape)
attempt("numpy sum", lambda: float(np.sum(values)))
attempt("array method", lambda: x.reshape([2, 2]).sum(axis=(0, 1)))

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print(jnp.shape(values), jnp.ndim([[1, 2]]), jnp.size((1, 2, 3)))
for w in caught:
    print(w.category.__name__, w.message, w.lineno)


@jax.jit
def traced(v):
    return jnp.sum(v) + jnp.mean([v, v])


attempt("jit list inside", lambda: traced(x))
