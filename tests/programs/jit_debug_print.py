# jax.debug.print inside jitted functions prints runtime values every call.
import jax
import jax.numpy as jnp


@jax.jit
def step(v, scale):
    # Ordered prints keep program order; unordered ones may run in any.
    jax.debug.print("v={} scale={s:.2f} total={}", v, v.sum() * scale, s=scale, ordered=True)
    w = v * scale
    jax.debug.print("w {}", w, ordered=True)
    jax.debug.print("plain", ordered=True)
    jax.debug.print("{} and {name}", w > 2, name="label", ordered=True)
    return w


for i in range(3):
    out = step(jnp.arange(3.0) + i, 1.5)
    print("result", out)
print(jax.make_jaxpr(lambda v: jax.debug.print("x {}", v))(jnp.ones(2)))
print(jax.make_jaxpr(lambda v: jax.debug.print("y {a} {b}", b="text", a=v, ordered=True))(1.0))
jax.jit(lambda v: jax.debug.print("once {}", v * 2))(jnp.arange(2))


@jax.jit
def outer(v):
    jax.debug.print("outer {}", v, ordered=True)
    return step(v, 2.0) + 1


print(outer(jnp.ones(2)))
jax.debug.print("eager {} {k}", jnp.arange(2), k=3)
g = jax.jit(jax.grad(lambda v: step(v, 2.0).sum()))
result = g(jnp.arange(3.0))
