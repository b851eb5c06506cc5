import jax
import jax.numpy as jnp
import optax

def r(t):
    # Four decimals: the last float32 digit of fused arithmetic is not checked.
    return jax.tree.map(lambda x: [round(v, 4) + 0.0 for v in jnp.ravel(x).tolist()], t)

goal = {"w": jnp.array([[0.5, -1.5, 2.0], [1.0, 0.25, -0.75]]), "b": jnp.array([0.3, -0.2])}

def loss(p):
    pred = p["w"] @ jnp.array([1.0, 2.0, -1.0]) + p["b"]
    return jnp.sum((pred - 1.0) ** 2) + 0.1 * jnp.sum((p["w"] - goal["w"]) ** 2)

def start():
    return {"w": jnp.array([[0.1, 0.2, -0.3], [0.4, -0.5, 0.6]]), "b": jnp.array([0.0, 0.1])}

opts = {
    "adamax": optax.adamax(0.05),
    "adamaxw": optax.adamaxw(0.05, weight_decay=0.1),
    "amsgrad": optax.amsgrad(0.05),
    "amsgrad_raw": optax.amsgrad(0.05, bias_correction_mu=False, bias_correction_nu=False),
    "radam": optax.radam(0.05),
    "radam_low": optax.radam(0.05, threshold=2.0),
    "radam_nesterov": optax.radam(0.05, threshold=3.0, nesterov=True),
    "yogi": optax.yogi(0.05),
    "adan": optax.adan(0.05, weight_decay=0.01),
    "adadelta": optax.adadelta(1.0, rho=0.8),
    "novograd": optax.novograd(0.05, weight_decay=0.01),
    "sched": optax.adamax(optax.exponential_decay(0.1, 2, 0.5)),
    "chain": optax.chain(optax.scale_by_yogi(b1=0.5), optax.scale(-0.02)),
}
for name, tx in opts.items():
    params = start()
    state = tx.init(params)
    if name in ("adamax", "amsgrad", "adan", "adadelta", "novograd", "yogi"):
        print(name, state)

    @jax.jit
    def step(params, state):
        l, g = jax.value_and_grad(loss)(params)
        updates, state = tx.update(g, state, params)
        return optax.apply_updates(params, updates), state, l, updates

    for i in range(7):
        params, state, l, u = step(params, state)
    print(name, r(l), r(u["w"]), r(params["b"]))
    print(jax.tree.map(lambda x: x.dtype, state))
    print(r(state))

# Eagerly, a step at a time, with the state read back.
tx = optax.radam(0.1, threshold=4.0)
params = {"x": jnp.array([1.0, -2.0, 3.0])}
state = tx.init(params)
for i in range(6):
    g = jax.grad(lambda p: jnp.sum(p["x"] ** 2))(params)
    u, state = tx.update(g, state)
    params = optax.apply_updates(params, u)
    print(i, r(u), state[0].count)
result = r(params)
