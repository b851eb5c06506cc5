# Weak types under transformations: Python-scalar arguments of jit, grad and
# make_jaxpr are weakly typed tracers (printed with a `~`), and the results
# keep the bit when everything they depend on was weak.
import jax, jax.numpy as jnp

@jax.jit
def f(x, y):
    print("tracing", x, y, jax.typeof(x), jax.typeof(y))
    return x * 2, x + y

print(f(1.0, jnp.float32(2.0)))
print(f(2, jnp.ones(2)))
print(repr(f(3.0, 4.0)))
print(jax.typeof(1.0), jax.typeof(jnp.ones(3)), jax.typeof(jnp.asarray(1)))
print(repr(jax.typeof(1.0)), repr(jax.typeof(jnp.ones(3))), jax.typeof(2.0).weak_type)
print(jax.make_jaxpr(lambda a: jnp.sin(a) + 1)(1))
print(jax.make_jaxpr(lambda a: a * 2.0)(1.0))
print(jax.make_jaxpr(lambda a: a.astype(jnp.float32) + 1)(1.0))
print(jax.eval_shape(lambda a: a * 2, 1.0))
print(jax.eval_shape(lambda a, b: (a + b, a * 2), 1.0, jnp.ones(3)))
print(jax.ShapeDtypeStruct((), jnp.float32, weak_type=True))
print(repr(jax.grad(lambda a: a * a)(3.0)), repr(jax.grad(lambda a: a * a)(jnp.float32(3.0))))
print(repr(jax.grad(lambda a: jnp.sum(a * jnp.ones(3)))(2.0)))
print(repr(jax.vmap(lambda a: a * 2.0)(jnp.arange(3.0))))
print(repr(jax.jit(lambda: 1.0)()), repr(jax.jit(lambda: jnp.float32(1.0) + 1)()))
g = jax.jit(lambda x: x + 1)
print(repr(g(1)), repr(g(jnp.int32(1))), repr(g(1.0)))
result = f(3.0, 4.0)
