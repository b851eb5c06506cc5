# Boolean mask indexing: concrete masks select (outside jit, under grad, and
# with masks closed over from outside a jitted function); masks traced by jit
# or vmap raise NonConcreteBooleanIndexError; mismatched shapes raise IndexError.
import jax
import jax.numpy as jnp
import numpy as np

a = jnp.array([[0.5, -1.5, 2.0], [-3.0, 4.5, -0.25]])
print(a[a > 0])
print(a[jnp.array([False, True])])
print(a[:, jnp.array([True, False, True])])
print(a[..., jnp.array([False, True, True])])
print(a[np.array([True, True])])
print(a.at[a < 0].set(0.0))
print(a.at[a > 1].add(100.0))
print(a.at[jnp.array([True, False])].multiply(2.0))

keep = jnp.array([True, False, True])


@jax.jit
def closed_over(x):
    return x[:, keep] * 2.0, x.at[:, keep].set(-1.0)


print(closed_over(a))
print(jax.grad(lambda x: jnp.sum(x[x > 0] ** 2))(a))


def show_error(f, *args):
    try:
        f(*args)
    except IndexError as e:
        print(type(e).__name__, "|", str(e))


show_error(jax.jit(lambda x: x[x > 0]), a)
show_error(jax.jit(lambda x: x.at[x > 0].set(1.0)), a)
show_error(jax.vmap(lambda r: r[r < 1.0]), a)
show_error(lambda x: x[jnp.array([True, False, True])], a)
show_error(lambda x: x[:, jnp.array([True, False])], a)

result = a[jnp.abs(a) > 1.0]
