import jax
import jax.numpy as jnp
import optax
from optax import contrib

def r(t):
    # Four decimals: the last float32 digit of fused arithmetic is not checked.
    return jax.tree.map(lambda x: [round(v, 4) + 0.0 for v in jnp.ravel(x).tolist()], t)

def loss(p):
    return jnp.sum((p["w"] - jnp.array([1.0, -2.0, 0.5])) ** 2 * jnp.array([1.0, 3.0, 0.2])) + jnp.sum(jnp.cos(p["w"]))

def start():
    return {"w": jnp.array([0.3, 0.1, -0.4])}

opts = {
    "ademamix": contrib.ademamix(0.05, b3=0.99, alpha=2.0),
    "ademamix_sched": contrib.ademamix(0.05, b3=optax.linear_schedule(0.9, 0.99, 4), alpha=optax.linear_schedule(0.0, 3.0, 5), weight_decay=0.01),
    "simplified": contrib.simplified_ademamix(0.02, alpha=1.5),
    "simplified_default": contrib.simplified_ademamix(0.01),
    "scale_by_ademamix": optax.chain(contrib.scale_by_ademamix(), optax.scale(-0.01)),
    "sam": contrib.sam(optax.sgd(0.1), optax.chain(contrib.normalize(), optax.sgd(0.05)), sync_period=3),
    "sam_adam": contrib.sam(optax.adam(0.1), optax.chain(contrib.normalize(), optax.adam(0.05)), reset_state=False),
    "normalize": optax.chain(contrib.normalize(), optax.sgd(0.1, momentum=0.5)),
}
for name, tx in opts.items():
    params = start()
    state = tx.init(params)
    if name in ("ademamix", "simplified", "sam"):
        print(name, state)

    @jax.jit
    def step(params, state):
        l, g = jax.value_and_grad(loss)(params)
        updates, state = tx.update(g, state, params)
        return optax.apply_updates(params, updates), state, l, updates

    for i in range(7):
        params, state, l, u = step(params, state)
        if name.startswith("sam"):
            print(i, r(l), r(u))
    print(name, r(l), r(u), r(params))
    print(r(state))

# Opaque SAM computes the adversarial gradients itself.
tx = contrib.sam(optax.sgd(0.1), optax.chain(contrib.normalize(), optax.sgd(0.05)), sync_period=3, opaque_mode=True)
params = start()
state = tx.init(params)
print(state)
for i in range(4):
    g = jax.grad(loss)(params)
    u, state = tx.update(g, state, params, grad_fn=lambda p, _: jax.grad(loss)(p))
    params = optax.apply_updates(params, u)
    print(i, r(u), r(state.adv_state), state.steps_since_sync)
try:
    tx.update(g, state, params)
except ValueError as e:
    print("ValueError", e)
result = r(params)
