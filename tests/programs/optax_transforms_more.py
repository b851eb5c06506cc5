import jax
import jax.numpy as jnp
import optax

def r(t):
    # Four decimals: the last float32 digit of fused arithmetic is not checked.
    return jax.tree.map(lambda x: [round(v, 4) + 0.0 for v in jnp.ravel(x).tolist()], t)

def loss(p):
    pred = p["w"] @ jnp.array([1.0, 2.0, -1.0]) + p["b"]
    return jnp.sum((pred - 1.0) ** 2) + 0.05 * jnp.sum(p["w"] ** 4)

def start():
    return {"w": jnp.array([[0.1, 0.2, -0.3], [0.4, -0.5, 0.6]]), "b": jnp.array([0.0, 0.1])}

opts = {
    "sign_sgd": optax.sign_sgd(0.05),
    "signum": optax.signum(0.05, beta=0.8),
    "rprop": optax.rprop(0.1, eta_minus=0.4, eta_plus=1.3),
    "sm3": optax.sm3(0.1),
    "sm3_b2": optax.chain(optax.scale_by_sm3(b1=0.5, b2=0.9), optax.scale(-0.1)),
    "optimistic": optax.optimistic_gradient_descent(0.05, alpha=0.7, beta=0.4),
    "optimistic_adam": optax.optimistic_adam_v2(0.05),
    "fromage": optax.fromage(0.2),
    "lars": optax.lars(0.5, weight_decay=0.01, trust_coefficient=0.1),
    "lars_nesterov": optax.lars(0.5, momentum=0.8, nesterov=True),
    "centralize": optax.chain(optax.centralize(), optax.sgd(0.05)),
    "ema": optax.chain(optax.ema(0.7), optax.scale(-0.1)),
    "block_rms": optax.chain(optax.clip_by_block_rms(0.5), optax.scale_by_param_block_rms(), optax.scale(-0.3)),
    "block_norm": optax.chain(optax.scale_by_param_block_norm(), optax.scale(-0.1)),
    "noisy_sgd": optax.noisy_sgd(0.05, key=jax.random.key(3)),
    "add_noise": optax.chain(optax.add_noise(0.1, 0.6, 7), optax.sgd(0.02)),
}
for name, tx in opts.items():
    params = start()
    state = tx.init(params)
    if name in ("rprop", "sm3", "optimistic", "lars", "ema"):
        print(name, state)

    @jax.jit
    def step(params, state):
        l, g = jax.value_and_grad(loss)(params)
        updates, state = tx.update(g, state, params)
        return optax.apply_updates(params, updates), state, l, updates

    for i in range(6):
        params, state, l, u = step(params, state)
    print(name, r(l), r(u["w"]), r(params["b"]))
    if name != "optimistic_adam":
        print(r(jax.tree.map(lambda x: x if x.dtype != jax.random.key(0).dtype else jax.random.key_data(x), state)))

# Polyak's step needs the loss value.
tx = optax.polyak_sgd(max_learning_rate=0.5, f_min=0.1)
params = start()
state = tx.init(params)
print(state)
for i in range(5):
    l, g = jax.value_and_grad(loss)(params)
    u, state = tx.update(g, state, params, value=l)
    params = optax.apply_updates(params, u)
    print(i, r(l), r(u["b"]))
tx = optax.chain(optax.scale_by_polyak(variant="sps+", eps=0.01), optax.scale(-1.0))
u, _ = tx.update({"x": jnp.array([1.0, 2.0])}, tx.init(None), value=jnp.array(-1.0))
print(r(u))
print(optax.centralize().update(jnp.array([[1.0, 2.0, 6.0], [4.0, 5.0, 9.0]]), optax.EmptyState()))
print(optax.safe_increment(jnp.asarray(41, jnp.int32)), optax.safe_int32_increment(jnp.asarray(2**31 - 1, jnp.int32)))
print(optax.safe_increment(jnp.asarray(1.5, jnp.float32)))
result = r(params)

# The deprecated optimistic_adam weighs its optimistic step by the rate.
tx = optax.optimistic_adam(0.05, 0.5)
params = start()
state = tx.init(params)
for i in range(4):
    g = jax.grad(loss)(params)
    u, state = tx.update(g, state, params)
    params = optax.apply_updates(params, u)
    print(i, r(u["b"]))
result = r(params)
