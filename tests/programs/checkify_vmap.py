# vmap of a checkified function gives a batched Error naming every element
# that failed; checkify of a vmapped function reports one element.
import jax
import jax.numpy as jnp
from jax.experimental import checkify


def positive(v):
    checkify.check(jnp.all(v > 0), "not all positive: {}", v)
    return v * 2


xs = jnp.array([[1.0, 2.0], [-1.0, 3.0], [-2.0, 1.0], [4.0, 5.0]])
err, out = jax.vmap(checkify.checkify(positive))(xs)
print(err.get())
print(str(err))
print(out)
print(jax.tree_util.tree_leaves(err)[0])
err, out = checkify.checkify(jax.vmap(positive))(xs)
print(err.get())
err, out = checkify.checkify(jax.vmap(positive))(jnp.abs(xs) + 1)
print(err.get())
err, out = jax.jit(jax.vmap(checkify.checkify(positive)))(xs[:2])
print(err.get())

# Automatic checks per element.
err, out = checkify.checkify(jax.vmap(jnp.log), errors=checkify.nan_checks)(jnp.array([1.0, -1.0, 2.0]))
print(err.get(), out)
err, out = jax.vmap(checkify.checkify(jnp.log, errors=checkify.nan_checks))(jnp.array([1.0, -1.0, -2.0]))
print(err.get(), out)
err, out = jax.vmap(checkify.checkify(lambda x: 10 // x, errors=checkify.div_checks))(jnp.array([0, 1, 2]))
print(err.get(), out)
result = out.tolist()
