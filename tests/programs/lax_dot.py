import jax
import jax.numpy as jnp
from jax import lax

a = jnp.arange(6.0).reshape(2, 3)
b = jnp.arange(12.0).reshape(3, 4) * 0.5
v = jnp.array([1.0, -2.0, 0.5])
print(lax.dot(a, b), lax.dot(a, v), lax.dot(v, v), lax.dot(v, b))
print(lax.dot(a, b, precision="highest"), lax.dot(a, v, precision=("default", "float32")))

# preferred_element_type widens the result.
i8 = jnp.array([[100, 50], [-120, 7]], dtype=jnp.int8)
print(lax.dot(i8, i8), lax.dot(i8, i8, preferred_element_type=jnp.int32))
print(lax.dot(i8, i8, preferred_element_type=jnp.float32))
ints = jnp.array([[1, 2], [3, 4]])
print(lax.dot(ints, ints), lax.dot(ints, ints, preferred_element_type=jnp.float32))
h = jnp.array([[0.1, 0.2], [0.3, 0.4]], dtype=jnp.bfloat16)
print(lax.dot(h, h), lax.dot(h, h, preferred_element_type=jnp.float32))

# dimension_numbers for anything else: a batched product.
x = jnp.arange(24.0).reshape(2, 3, 4)
y = jnp.arange(40.0).reshape(2, 4, 5)
print(lax.dot(x, y, dimension_numbers=(((2,), (1,)), ((0,), (0,)))))
try:
    lax.dot(x, y)
except ValueError as e:
    print("ValueError", e)

# Differentiable and traceable.
print(jax.grad(lambda m: lax.dot(m, v).sum())(a))
print(jax.jit(lambda p, q: lax.dot(p, q, precision="highest"))(a, b))

result = lax.dot(a, b)
