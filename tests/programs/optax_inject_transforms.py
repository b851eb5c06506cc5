import jax
import jax.numpy as jnp
import optax

def r(t):
    # Four decimals: the last float32 digit of fused arithmetic is not checked.
    return jax.tree.map(lambda x: [round(v, 4) + 0.0 for v in jnp.ravel(x).tolist()], t)

def loss(p):
    h = jnp.tanh(jnp.array([0.5, -1.0, 2.0]) @ p["w"] + p["b"])
    return jnp.sum((h - jnp.array([0.3, -0.2, 0.1, 0.4])) ** 2) + 0.05 * jnp.sum(p["w"] ** 4)

def start():
    return {
        "w": jnp.array([[0.1, 0.2, -0.3, 0.5], [0.4, -0.5, 0.6, 0.0], [0.2, 0.3, -0.1, 0.7]]),
        "b": jnp.array([0.0, 0.1, -0.2, 0.05]),
    }

ramp = optax.linear_schedule(0.5, 0.9, 4)
opts = {
    "scale_by_adam": optax.chain(optax.inject_hyperparams(optax.scale_by_adam)(b1=ramp, b2=0.99), optax.scale(-0.05)),
    "scale_by_rms": optax.chain(optax.inject_hyperparams(optax.scale_by_rms)(decay=0.8, initial_scale=0.5), optax.scale(-0.05)),
    "trace": optax.chain(optax.inject_hyperparams(optax.trace)(decay=ramp, nesterov=True), optax.scale(-0.05)),
    "ema": optax.chain(optax.inject_hyperparams(optax.ema)(0.6), optax.scale(-0.1)),
    "weights": optax.chain(optax.inject_hyperparams(optax.add_decayed_weights)(0.1), optax.sgd(0.05)),
    "belief": optax.chain(optax.inject_hyperparams(optax.scale_by_belief)(), optax.scale(-0.02)),
    "yogi": optax.chain(optax.inject_hyperparams(optax.scale_by_yogi)(initial_accumulator_value=0.01), optax.scale(-0.02)),
    "stddev": optax.chain(optax.inject_hyperparams(optax.scale_by_stddev)(decay=0.7, initial_scale=1.0), optax.scale(-0.03)),
    "nadamw": optax.inject_hyperparams(optax.nadamw)(learning_rate=ramp, weight_decay=0.01),
    "adamax": optax.inject_hyperparams(optax.adamax)(0.05, b1=0.8),
    "lamb": optax.inject_hyperparams(optax.lamb)(0.05),
    "adagrad": optax.inject_hyperparams(optax.adagrad)(0.1, initial_accumulator_value=0.5),
    "rmsprop_centered": optax.inject_hyperparams(optax.rmsprop)(0.02, centered=True, momentum=0.5),
}
for name, tx in opts.items():
    params = start()
    state = tx.init(params)
    if name in ("scale_by_adam", "ema"):
        print(name, state)

    @jax.jit
    def step(params, state):
        l, g = jax.value_and_grad(loss)(params)
        updates, state = tx.update(g, state, params)
        return optax.apply_updates(params, updates), state, l, updates

    for i in range(4):
        params, state, l, u = step(params, state)
        if i == 1 and name == "scale_by_adam":
            state[0].hyperparams["b2"] = jnp.array(0.9)
    print(name, r(l), r(u["b"]))
    print(r(state))
result = r(params)
