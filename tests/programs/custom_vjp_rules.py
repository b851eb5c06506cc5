import jax, jax.numpy as jnp
from functools import partial

@jax.custom_vjp
def scaled(x, y):
    return jnp.sin(x) * y

def scaled_fwd(x, y):
    return scaled(x, y), {"c": jnp.cos(x), "s": (jnp.sin(x), y)}

def scaled_bwd(res, g):
    s, y = res["s"]
    return (res["c"] * y * g, s * g)

scaled.defvjp(scaled_fwd, scaled_bwd)

v = scaled(0.4, 2.0)
g = jax.grad(scaled, argnums=(0, 1))(0.4, 2.0)
gj = jax.jit(jax.grad(scaled))(0.4, 2.0)
gv = jax.vmap(jax.grad(scaled))(jnp.array([0.1, 0.2]), jnp.array([1.0, 3.0]))
print(v, g[0], g[1], gj, gv)

@jax.custom_vjp
def clip_grad(x):
    return x

clip_grad.defvjp(lambda x: (x, None), lambda _, g: (jnp.clip(g, -1.0, 1.0),))
print(jax.grad(lambda x: 5.0 * clip_grad(x))(2.0))
print(jax.vmap(jax.grad(lambda x: jnp.sum(x * clip_grad(x))))(jnp.array([[0.3, 4.0], [-3.0, 0.1]])))

@jax.custom_vjp
def loud(x):
    print("loud primal")
    return jnp.exp(x)

def loud_fwd(x):
    print("loud fwd")
    e = loud(x)
    return e, e

def loud_bwd(e, g):
    print("loud bwd")
    return (3.0 * e * g,)

loud.defvjp(loud_fwd, loud_bwd)
print(loud(0.5))
print(jax.grad(loud)(0.5))
print(jax.grad(jax.grad(loud))(0.5))
try:
    jax.jvp(loud, (0.5,), (1.0,))
except TypeError as e:
    print("TypeError:", e)

@partial(jax.custom_vjp, nondiff_argnums=(0,))
def apply(fn, x):
    return fn(x)

def apply_fwd(fn, x):
    return fn(x), x

def apply_bwd(fn, x, g):
    return (fn(x) * g,)

apply.defvjp(apply_fwd, apply_bwd)
print(apply(jnp.sin, 1.0), jax.grad(apply, argnums=1)(jnp.sin, 1.0))

@jax.custom_vjp
def pair(x, y):
    return x * y

pair.defvjp(lambda x, y: (x * y, (x, y)), lambda r, g: (r[1] * g, None))
gp = jax.grad(pair, argnums=(0, 1))(2.0, 5.0)
print(gp[0], gp[1])

@jax.custom_vjp
def bad(x):
    return x

bad.defvjp(lambda x: (x, None), lambda _, g: (g, g))
try:
    jax.grad(bad)(1.0)
except TypeError as e:
    print("TypeError raised")

y, pull = jax.vjp(scaled, 0.4, 2.0)
ct = pull(1.0)
result = [v, g[0], g[1], gj, gv, gp[0], gp[1], y, ct[0], ct[1]]
