import jax
import jax.numpy as jnp
import optax

target = jnp.array([1.0, -2.0, 3.0])
params = {"w": jnp.zeros(3), "b": jnp.array([0.5])}

def loss(p):
    return jnp.sum((p["w"] - target) ** 2) + jnp.sum((p["b"] - 1.5) ** 2)

tx = optax.adam(learning_rate=0.1)
state = tx.init(params)
print(state)
for step in range(10):
    l, g = jax.value_and_grad(loss)(params)
    updates, state = tx.update(g, state, params)
    params = optax.apply_updates(params, updates)
    print(step, l)
print(params)
print(state[0].count)
result = params
