import jax.numpy as jnp
import optax

# Integer costs with many ties, square, wide and tall, through both
# formulations: the chosen indices depend on every tie the loops break.
def tied(n, m, a, b, mod):
    return jnp.array([[(a * i + b * j + i * j) % mod for j in range(m)] for i in range(n)])

cases = [
    jnp.array([[6, 3, 8], [2, 5, 4], [7, 9, 1], [3, 3, 6]]),
    jnp.array([[40, 60, 15, 20], [25, 30, 45, 50], [55, 30, 25, 10], [20, 35, 40, 45], [30, 15, 60, 5]]),
    tied(4, 4, 3, 5, 4),
    tied(3, 6, 2, 7, 3),
    tied(7, 3, 5, 1, 4),
    tied(5, 5, 1, 1, 2),
    jnp.array([[0.5, 1.25, -0.75], [2.0, -1.5, 0.25]]),
    jnp.array([[1e-3, 3.3, 7.1, 0.2], [4.4, 1e-4, 2.2, 9.9], [0.3, 0.7, 0.1, 6.5]], dtype=jnp.float32),
    jnp.ones((3, 3)),
]
totals = []
for cost in cases:
    for solver in (optax.assignment.hungarian_algorithm, optax.assignment.base_hungarian_algorithm):
        i, j = solver(cost)
        print(cost.shape, i, j, i.dtype, j.dtype, cost[i, j].sum())
        totals.append(cost[i, j].sum())

i, j = optax.assignment.hungarian_algorithm(jnp.zeros((0, 3)))
print(i, j, i.shape, j.dtype)
result = jnp.stack(totals)
