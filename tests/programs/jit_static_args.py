import jax, numpy as np, jax.numpy as jnp
from functools import partial
seen = []
@partial(jax.jit, static_argnums=(1,))
def power(x, n):
    seen.append(n)
    out = x
    for _ in range(n - 1):
        out = out * x
    return out
x = jnp.arange(1.0, 4.0)
print(power(x, 2), power(x, 3), power(x, 2), seen)
@partial(jax.jit, static_argnames=("mode",))
def act(x, mode="relu"):
    seen.append(mode)
    if mode == "relu":
        return jnp.maximum(x, 0.0)
    return jnp.tanh(x)
y = jnp.array([-1.0, 0.5, 2.0])
print(act(y), act(y, mode="tanh"), act(y, mode="relu"), seen)
shaped = jax.jit(lambda x, shape: jnp.zeros(shape) + x.sum(), static_argnums=1)
print(shaped(x, (2, 2)), shaped(x, (3,)))
by_name = jax.jit(lambda a, k: a * k, static_argnames="k")
print(by_name(x, k=2), by_name(x, 3))
@jax.jit
def plain(a, b):
    return a - b
print(plain(x, 1.0), plain(a=x, b=x))
donated = jax.jit(lambda a: a * 2.0, donate_argnums=0)
print(donated(jnp.ones(3)))
print(jax.make_jaxpr(jax.jit(lambda a, b: a + b, donate_argnums=0, keep_unused=True))(x, x))
try:
    power(x, [2])
except ValueError as e:
    print("ValueError:", str(e).split("\n")[0])
try:
    jax.jit(lambda a, n: a, static_argnums=4)
except ValueError as e:
    print("ValueError:", e)
result = [power(x, 3), act(y, mode="tanh"), shaped(x, (2, 2)), by_name(x, 3), len(seen)]
