import jax
import jax.numpy as jnp
import optax

def r(t):
    # Four decimals in Python floats: the last float32 digit of XLA's fused
    # arithmetic is not part of what these programs check.
    return jax.tree.map(lambda x: [round(v, 4) + 0.0 for v in jnp.ravel(x).tolist()], t)

target = jnp.array([[1.0, -2.0], [0.5, 3.0]])

def loss(p):
    return jnp.sum((p["w"] @ jnp.array([1.0, -1.0]) - target[0]) ** 2) + jnp.sum((p["v"] - target[1]) ** 2)

def params0():
    return {"w": jnp.array([[0.1, -0.3], [0.2, 0.4]]), "v": jnp.array([0.0, 1.0])}

opts = {
    "adam_sched": optax.adam(optax.linear_schedule(0.1, 0.01, 5)),
    "nadam": optax.adam(0.05, nesterov=True),
    "adamw": optax.adamw(0.05, weight_decay=0.2),
    "lion": optax.lion(0.01),
    "rmsprop": optax.rmsprop(0.02, momentum=0.5),
    "adagrad": optax.adagrad(0.1),
    "adabelief": optax.adabelief(0.05),
    "lamb": optax.lamb(0.05, weight_decay=0.01),
    "trust": optax.chain(optax.scale_by_trust_ratio(min_norm=0.5), optax.sgd(0.1)),
    "chain": optax.chain(optax.clip_by_global_norm(1.0), optax.scale_by_adam(), optax.scale_by_schedule(optax.exponential_decay(0.1, 2, 0.9)), optax.scale(-1.0)),
    "clip": optax.chain(optax.clip(0.3), optax.sgd(0.1, momentum=0.9, nesterov=True)),
    "rms": optax.chain(optax.scale_by_rms(), optax.scale_by_learning_rate(0.01)),
}
out = {}
for name, tx in opts.items():
    params = params0()
    state = tx.init(params)
    if name in ("adam_sched", "rmsprop", "chain", "adagrad"):
        print(name, state)

    @jax.jit
    def step(params, state):
        l, g = jax.value_and_grad(loss)(params)
        updates, state = tx.update(g, state, params)
        return optax.apply_updates(params, updates), state, l

    for i in range(6):
        params, state, l = step(params, state)
    print(name, r(l), r(params["w"]))
    out[name] = params
print(r(state))
print(jax.tree.map(lambda x: x.shape, state))
print(len(jax.tree.leaves(opts["adamw"].init(params0()))))
print(r(optax.global_norm(params0())))
print(optax.set_to_zero().update(params0(), optax.EmptyState())[0])
result = out
