import jax
import jax.numpy as jnp
import numpy as np

tree = {"w": jnp.arange(3.0), "n": 4, "b": (jnp.ones(2, dtype=jnp.int32),)}
host = jax.device_get(tree)
print(type(host["w"]).__name__, host["w"], host["n"], host["b"][0].dtype)
print(jax.device_get(2.5))


@jax.jit
def double(x):
    print("inside:", x)
    return x * 2


double(jnp.array([1, 2]))
with jax.disable_jit():
    print(double(jnp.array([3, 4])))
print(double(jnp.array([5, 6])))


@jax.jit
@jax.named_scope("layer")
def layer(w, x):
    with jax.named_scope("matmul"):
        y = w @ x
    return jax.nn.relu(y)


print(layer(jnp.array([[1.0, -2.0], [0.5, 1.0]]), jnp.array([1.0, 1.0])))


@jax.custom_gradient
def clipped_square(x):
    def rule(g):
        return (jnp.clip(g * 2 * x, -1.0, 1.0),)
    return x ** 2, rule


print(clipped_square(3.0))
print(jax.grad(clipped_square)(3.0), jax.grad(clipped_square)(0.25))


@jax.custom_gradient
def scaled(x, y):
    return x * y, lambda g: (g * 10.0, g * y)


print(jax.grad(scaled, argnums=(0, 1))(2.0, 5.0))
print(jax.jit(jax.grad(lambda a: scaled(a, 3.0) + a))(1.0))

s = jax.ShapeDtypeStruct((2,), jnp.float32)
t = jax.linear_transpose(lambda a, b: 3.0 * a - b, s, s)
print(t(jnp.array([1.0, 2.0])))
