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

# Lookahead: fast Adam steps, synchronised every third step.
for reset in (False, True):
    tx = optax.lookahead(optax.adam(0.1), sync_period=3, slow_step_size=0.4, reset_state=reset)
    params = optax.LookaheadParams.init_synced(start())
    state = tx.init(params)

    @jax.jit
    def step(params, state):
        g = jax.grad(loss)(params.fast)
        u, state = tx.update(g, state, params)
        return optax.apply_updates(params, u), state, u

    for i in range(5):
        params, state, u = step(params, state)
        print(i, r(loss(params.fast)), r(loss(params.slow)), r(state.steps_since_sync))
    print(r(u.slow), r(u.fast["b"]))
    print(r(state.fast_state[0].mu["b"]), r(state.fast_state[0].count))
p = optax.LookaheadParams(fast=jnp.ones(2), slow=jnp.zeros(2))
print(p, p.fast)
try:
    optax.lookahead(optax.sgd(0.1), 0, 0.5)
except ValueError as e:
    print("ValueError", e)

# Monitor: the updates pass through, measurements kept in the state.
tx = optax.chain(
    optax.monitor({"grad_norm": optax.tree.norm}),
    optax.adam(0.05),
    optax.monitor({"update_norm": optax.tree.norm, "ema": optax.ema(0.5)}),
)
params = start()
state = tx.init(params)
print(state)
for i in range(3):
    g = jax.grad(loss)(params)
    u, state = tx.update(g, state, params)
    params = optax.apply_updates(params, u)
    print(r(state[0].measurements), r(state[2].measurements["update_norm"]))
print(r(state[2].measurements["ema"]), r(state[2].measure_states[1].count))

# Per-example clipping of a batch of gradients.
grads = {"a": jnp.array([[3.0, 4.0], [0.3, 0.4], [1.0, -2.0]]),
         "b": jnp.array([[[1.0, 0.0]], [[0.0, 0.1]], [[2.0, 2.0]]])}
s, n = optax.per_example_global_norm_clip(grads, 2.0)
print(r(s), n)
s, n = optax.per_example_layer_norm_clip(grads, 2.0)
print(r(s), n)
s, n = optax.per_example_layer_norm_clip(grads, 3.0, uniform=False)
print(r(s), n)
try:
    optax.per_example_global_norm_clip({"a": jnp.ones((3, 2)), "b": jnp.ones((2,))}, 1.0)
except ValueError as e:
    print("ValueError")

# The centred RMSProp and scale_by_stddev.
opts = {
    "rms_centered": optax.rmsprop(0.02, centered=True),
    "rms_centered_momentum": optax.rmsprop(0.02, decay=0.8, centered=True, momentum=0.9, eps_in_sqrt=False),
    "rms_centered_debias": optax.rmsprop(0.02, centered=True, bias_correction=True, initial_scale=0.1),
    "stddev": optax.chain(optax.scale_by_stddev(decay=0.7, initial_scale=1.0), optax.scale(-0.03)),
}
for name, tx in opts.items():
    params = start()
    state = tx.init(params)

    @jax.jit
    def step(params, state):
        l, g = jax.value_and_grad(loss)(params)
        u, state = tx.update(g, state, params)
        return optax.apply_updates(params, u), state, l, u

    for i in range(5):
        params, state, l, u = step(params, state)
    print(name, r(l), r(u))
    print(r(state))
result = r(params)

# Measures averaged over the steps, and a snapshot of the last one.
tx = optax.chain(
    optax.sgd(0.1, momentum=0.9),
    optax.monitor({
        "clipped": optax.measure_with_ema(lambda u: optax.tree.norm(u) > 0.3, decay=0.8),
        "norm": optax.measure_with_ema(optax.tree.norm, decay=0.5, debias=False),
    }),
    optax.snapshot("max", lambda u: jnp.max(u["w"])),
    optax.clip_by_global_norm(0.3),
)
params = start()
state = tx.init(params)
print(state[1].measurements, state[1].measure_states[0], state[2])
for i in range(4):
    u, state = tx.update(jax.grad(loss)(params), state, params)
    params = optax.apply_updates(params, u)
    m = optax.tree.get(state, "clipped")
    print(i, r(state[1].measurements), r(state[2].measurement["max"]))
print(state[1].measure_states[0][1])
