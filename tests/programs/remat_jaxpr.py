# Checkpointed functions as traced programs: the remat2 equation with its
# parameters, name equations, static arguments, checkpoints in loop bodies.
from functools import partial

import jax
import jax.numpy as jnp
from jax import lax
from jax.ad_checkpoint import checkpoint_name

cp = jax.checkpoint_policies


def layer(w, v):
    return jnp.sin(w @ v)


w = jnp.arange(6.0).reshape(2, 3) / 10.0
v = jnp.array([0.5, -1.0, 2.0])

print(jax.make_jaxpr(jax.checkpoint(layer))(w, v))
print(jax.make_jaxpr(jax.checkpoint(layer, prevent_cse=False,
                                    policy=cp.dots_with_no_batch_dims_saveable))(w, v))
print(jax.make_jaxpr(jax.remat(layer, policy=cp.dots_saveable))(w, v))
print(jax.make_jaxpr(jax.checkpoint(layer, policy=cp.save_only_these_names("h")))(w, v))
print(jax.make_jaxpr(lambda t: checkpoint_name(jnp.cos(t), "h") * 2.0)(v))
print(jax.make_jaxpr(lambda t: checkpoint_name({"a": t, "b": (t, t)}, name="pair"))(v))
print(cp.dots_saveable, cp.save_any_names_but_these("z"))


@partial(jax.checkpoint, static_argnums=(1,))
def repeat(t, n):
    for _ in range(n):
        t = jnp.tanh(t) * 1.5
    return t


print(jax.make_jaxpr(lambda t: repeat(t, 2))(v))
print(repeat(v, 3))
print(jax.grad(lambda t: jnp.sum(repeat(t, 3)))(v))


def body(carry, x):
    carry = jax.checkpoint(lambda c, x: jnp.sin(c) * x + c,
                           policy=cp.dots_saveable)(carry, x)
    return carry, carry * 2.0


def scanned(c0, xs):
    c, ys = lax.scan(body, c0, xs)
    return c + jnp.sum(ys)


xs = jnp.linspace(0.1, 0.9, 5)
c0 = xs[2] * 0.6
print(jax.make_jaxpr(scanned)(c0, xs))
print(scanned(c0, xs))
print(jax.grad(scanned, argnums=(0, 1))(c0, xs))
print(jax.grad(lambda t: jnp.sum(jax.checkpoint(layer, policy=cp.nothing_saveable)(w, t)))(v))


def loop(c):
    return lax.fori_loop(0, 4, lambda i, c: jax.checkpoint(jnp.cos)(c) + i, c)


print(jax.grad(loop)(0.7))
print(jax.jit(jax.grad(lambda t: jnp.sum(jax.checkpoint(layer)(w, t))))(v))
print(jax.vmap(jax.checkpoint(layer), in_axes=(None, 0))(w, jnp.stack([v, v * 2.0])))
result = jax.value_and_grad(lambda w: jnp.sum(jax.checkpoint(layer, policy=cp.everything_saveable)(w, v)))(w)[1]
