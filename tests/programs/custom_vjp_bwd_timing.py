# When a custom_vjp's rules run: fwd when the function is called under
# differentiation, bwd only when the pullback is applied (again on each
# application, never if it is not applied), after the rest of the forward
# pass under grad, and at trace time under jit; nondiff_argnums and
# residuals that are pytrees still reach bwd.
from functools import partial

import jax
import jax.numpy as jnp


@jax.custom_vjp
def cube(x):
    print("primal")
    return x**3


def cube_fwd(x):
    print("fwd")
    return x**3, {"x": x, "sq": (x * x,)}


def cube_bwd(res, g):
    print("bwd", res["x"], res["sq"][0], g)
    return (3 * res["sq"][0] * g,)


cube.defvjp(cube_fwd, cube_bwd)

y, pullback = jax.vjp(cube, jnp.float32(2.0))
print("vjp done", y)
print(pullback(jnp.float32(1.0)))
print(pullback(jnp.float32(0.5)))
_, unused = jax.vjp(cube, jnp.float32(3.0))
print("pullback never applied")


def loss(x):
    y = cube(x)
    print("after cube")
    return jnp.sin(y)


print(jax.grad(loss)(jnp.float32(1.5)))

step = jax.jit(jax.grad(loss))
print("jitted", step(0.5))
print("again", step(0.25))


@partial(jax.custom_vjp, nondiff_argnums=(0,))
def scaled(k, x):
    return k * x


def scaled_fwd(k, x):
    print("scaled fwd", k)
    return k * x, (x,)


def scaled_bwd(k, res, g):
    print("scaled bwd", k, res[0])
    return (k * g * 2,)


scaled.defvjp(scaled_fwd, scaled_bwd)
print(jax.grad(lambda x: scaled(3.0, x) + cube(x))(jnp.float32(1.0)))
print(jax.value_and_grad(lambda x: scaled(2.0, x))(jnp.float32(4.0)))
result = jax.grad(lambda x: scaled(5.0, cube(x)))(jnp.float32(2.0))
