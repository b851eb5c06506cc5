import jax
import jax.numpy as jnp
import optax

def loss(p, x, y):
    return jnp.mean((x @ p["w"] + p["b"] - y) ** 2)

x = jnp.arange(12.0).reshape(4, 3) / 6.0
y = jnp.array([1.0, 0.0, -1.0, 2.0])
out = {}
for name, tx in [("sgd", optax.sgd(0.1)), ("momentum", optax.sgd(0.1, momentum=0.9)),
                 ("nesterov", optax.sgd(0.05, momentum=0.8, nesterov=True)),
                 ("adamw", optax.adamw(0.05, weight_decay=0.1))]:
    params = {"w": jnp.array([0.1, -0.2, 0.3]), "b": jnp.array(0.0)}
    state = tx.init(params)
    for _ in range(5):
        g = jax.grad(loss)(params, x, y)
        updates, state = tx.update(g, state, params)
        params = optax.apply_updates(params, updates)
    print(name, loss(params, x, y), params["w"])
    out[name] = params
print(optax.sgd(0.1, momentum=0.9).init({"a": jnp.ones(2)}))
result = out
