# The function jax.vjp returns is a pytree whose leaves are its residuals:
# flattened, rebuilt, mapped over, returned from and passed into jit.
import jax
import jax.numpy as jnp
from jax.tree_util import tree_flatten, tree_unflatten

x = jnp.array([0.5, 1.0, 2.0])
W = jnp.arange(6.0).reshape(2, 3) / 4.0
shift = jnp.array([0.25, -1.0, 3.0])


def leaves_of(f, *args):
    _, f_vjp = jax.vjp(f, *args)
    leaves = jax.tree.leaves(f_vjp)
    print(len(leaves), [(l.shape, str(l.dtype)) for l in leaves])
    return leaves


print(type(jax.vjp(jnp.sin, x)[1]).__name__)
print(leaves_of(jnp.sin, x))
print(leaves_of(lambda a, b: a * b, x, x + 1.0))
print(leaves_of(jnp.exp, x))
print(leaves_of(jnp.tanh, x))
print(leaves_of(lambda w, a: jnp.sin(w @ a), W, x))
print(leaves_of(lambda a, b: a + b, x, x))
print(leaves_of(lambda d: d["p"] * d["q"], {"p": x, "q": jnp.float32(2.0)}))
print(leaves_of(lambda a: (a ** 2).sum(), x))
print(leaves_of(lambda a: jnp.sin(a) * shift, x))
print(leaves_of(lambda a: jnp.sin(a) * jnp.cos(a), x))
print(leaves_of(lambda a, b: a / b, x, x + 1.0))
print(leaves_of(lambda a: jnp.tanh(a) * a, x))

# Rebuilt from other leaves, the function runs its backward pass on them.
y, f_vjp = jax.vjp(jnp.sin, x)
doubled = jax.tree.map(lambda r: r * 2.0, f_vjp)
print(doubled(jnp.ones(3)), f_vjp(jnp.ones(3)))

res, tree = tree_flatten(f_vjp)
again = tree_unflatten(tree, res)
print(again(y))


# As print_fwd_bwd does: the residuals go through a traced function.
def mlp(w, a):
    return jnp.sum(jnp.sin(w @ jnp.cos(a)) ** 2)


out, f_vjp = jax.vjp(mlp, W, x)
res, tree = tree_flatten(f_vjp)


def backward(*args):
    *res, ct = args
    return tree_unflatten(tree, res)(ct)


print(jax.jit(backward)(*res, jnp.float32(1.0)))
print(jax.grad(mlp, argnums=(0, 1))(W, x))
jaxpr = jax.make_jaxpr(lambda *a: jax.vjp(mlp, *a))(W, x)
print(len(jaxpr.jaxpr.outvars))

# Returned from jit and passed into it.
y, g_vjp = jax.jit(lambda a: jax.vjp(lambda b: jnp.exp(b) * b, a))(x)
print(jax.tree.leaves(g_vjp))
print(jax.jit(lambda f, c: f(c))(g_vjp, jnp.ones(3)))
result = g_vjp(jnp.full(3, 0.5))
