# A jaxpr whose input binders pass 80 columns continues them on the next
# line, indented by 4; jnp.array of a list of traced values converts and
# expands each element in turn before one concatenate.
import jax
import jax.numpy as jnp


def total(xs):
    return jnp.array(xs).sum()


print(jax.make_jaxpr(total)(list(range(12))))
print(jax.make_jaxpr(total)([1.0, 2.0, 3.0]))


def many(a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s, t, u, v, w, x):
    return a * b + c - d + e * f - g + h + i + j + k + l + m + n + o + p + q + r + s + t + u + v + w + x


print(jax.make_jaxpr(many)(*[jnp.ones((2, 3))] * 24))
