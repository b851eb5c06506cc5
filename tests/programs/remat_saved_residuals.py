# What reverse mode keeps, with and without checkpoints and policies.
import jax
import jax.numpy as jnp
from jax.ad_checkpoint import print_saved_residuals, checkpoint_name

cp = jax.checkpoint_policies


def block(w, v):
    h = jnp.dot(w, v)
    return jnp.cos(h)


def three(a, b, c, v):
    v = block(a, v)
    v = block(b, v)
    return block(c, v)


a = jnp.full((3, 2), 0.5)
b = jnp.full((4, 3), 0.25)
c = jnp.full((2, 4), 0.1)
v = jnp.arange(2.0)

print("-- plain")
print_saved_residuals(three, a, b, c, v)


def three_each(a, b, c, v):
    v = jax.checkpoint(block)(a, v)
    v = jax.remat(block)(b, v)
    return jax.checkpoint(block)(c, v)


print("-- each block checkpointed")
print_saved_residuals(three_each, a, b, c, v)

for name in ["dots_saveable", "dots_with_no_batch_dims_saveable",
             "everything_saveable", "nothing_saveable"]:
    print("--", name)
    print_saved_residuals(jax.checkpoint(three, policy=getattr(cp, name)), a, b, c, v)


def tagged(a, b, c, v):
    v = checkpoint_name(block(a, v), name="p")
    v = checkpoint_name(block(b, v), name="q")
    return checkpoint_name(block(c, v), "r")


for pol in [cp.save_only_these_names("q"), cp.save_any_names_but_these("p"),
            cp.save_from_both_policies(cp.dots_saveable, cp.save_only_these_names("p"))]:
    print("--", type(pol).__name__ if not callable(getattr(pol, "__name__", None)) else "")
    print_saved_residuals(jax.checkpoint(tagged, policy=pol), a, b, c, v)

print("-- names without a checkpoint")
print_saved_residuals(tagged, a, b, c, v)


def mixed(x, y):
    p = jnp.exp(x) * y
    q = jnp.tanh(p) / y
    r = jnp.log(q * q + 1.0) ** 3
    return jnp.sum(jnp.maximum(r, 0.2)) + jnp.max(r) - jnp.sum(x / 4.0)


x = jnp.array([0.1, 0.2, 0.3])
y = jnp.array([1.5, 2.0, 2.5])
print("-- elementwise rules")
print_saved_residuals(mixed, x, y)


def tree_args(params, *rest, **extra):
    return jnp.sum(params["w"] * rest[0] * extra["z"])


print("-- argument names")
print_saved_residuals(tree_args, {"w": x}, y, z=x)


def chain(fs):
    def run(t):
        for f in fs:
            t = f(t)
        return t
    return run


def halves(fs):
    if len(fs) == 1:
        return fs[0]
    if len(fs) == 2:
        return lambda t: fs[0](fs[1](t))
    first, second = halves(fs[:len(fs) // 2]), halves(fs[len(fs) // 2:])
    return lambda t: first(jax.checkpoint(second)(t))


print("-- chain")
print_saved_residuals(chain([jnp.sin] * 4), 0.5)
print("-- nested checkpoints")
print_saved_residuals(halves([jnp.sin] * 8), 0.5)
print("-- unused derivative")
print_saved_residuals(lambda t: (jnp.sin(t), t * 3.0)[1], x)
print(print_saved_residuals(lambda t: t, x))

g_plain = jax.grad(lambda *args: jnp.sum(three(*args)), argnums=(0, 1, 2, 3))(a, b, c, v)
g_each = jax.grad(lambda *args: jnp.sum(three_each(*args)), argnums=(0, 1, 2, 3))(a, b, c, v)
g_tag = jax.grad(lambda *args: jnp.sum(jax.checkpoint(tagged, policy=cp.save_only_these_names("q"))(*args)))(a, b, c, v)
result = {"plain": [g.tolist() for g in g_plain], "each": [g.tolist() for g in g_each],
          "tag": g_tag.tolist()}
