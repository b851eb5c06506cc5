import jax
import jax.numpy as jnp

x = jnp.array([7, 2, 9, 2, 5, 1, 8, 5])
for k in [0, 3, 5, -1]:
    print(k, jnp.partition(x, k), jnp.argpartition(x, k))
m = jnp.array([[3.0, 1.0, 2.0, 0.5], [9.0, -1.0, 4.0, 4.0], [0.0, 6.0, 6.0, 1.0]])
print(jnp.partition(m, 1), jnp.argpartition(m, 2, axis=0))
print(jnp.partition(m, 0, axis=0))
print(jnp.partition(jnp.array([3, 1, 2], dtype=jnp.uint32), 1))
print(jax.jit(lambda v: jnp.partition(v, 2))(x))
print(jnp.sort_complex(jnp.array([3.0, 1.0, 2.0])))
print(jnp.sort_complex(jnp.array([[5, 2], [1, 3]])).dtype)

a = jnp.ones((2, 2))
b = jnp.zeros((2, 1))
print(jnp.block([[a, b], [jnp.full((1, 3), 7.0)]]))
print(jnp.block([jnp.array([1, 2]), 3, jnp.array([4])]), jnp.block(5), jnp.block([[1, 2], [3, 4]]))
print(jnp.block([[[a]], [[a * 2]]]).shape)
for bad in [lambda: jnp.block((a, b)), lambda: jnp.block([]), lambda: jnp.block([a, [b]])]:
    try:
        bad()
    except ValueError as e:
        print("ValueError", e)

result = [jnp.partition(x, 3), jnp.argpartition(x, 3), jnp.block([[a, b], [jnp.full((1, 3), 7.0)]])]
