import jax
import jax.numpy as jnp
import optax

def r(t):
    # Four decimals: the last float32 digit of fused arithmetic is not checked.
    return jax.tree.map(lambda x: [round(v, 4) + 0.0 for v in jnp.ravel(x).tolist()], t)

def loss(p):
    h = jnp.tanh(jnp.array([0.5, -1.0, 2.0]) @ p["w"] + p["b"])
    z = jnp.sum(p["k"] * jnp.arange(24.0).reshape(2, 3, 4) / 10.0)
    return jnp.sum((h - jnp.array([0.3, -0.2, 0.1, 0.4])) ** 2) + jnp.sin(z)

def start():
    return {
        "w": jnp.array([[0.1, 0.2, -0.3, 0.5], [0.4, -0.5, 0.6, 0.0], [0.2, 0.3, -0.1, 0.7]]),
        "b": jnp.array([0.0, 0.1, -0.2, 0.05]),
        "k": jnp.linspace(-0.4, 0.6, 24).reshape(2, 3, 4),
    }

opts = {
    "default": optax.adafactor(0.05),
    "factored": optax.adafactor(0.05, min_dim_size_to_factor=2),
    "momentum": optax.adafactor(0.1, min_dim_size_to_factor=3, momentum=0.9,
                                weight_decay_rate=0.01, clipping_threshold=None),
    "no_scale": optax.adafactor(optax.linear_schedule(0.1, 0.01, 4), min_dim_size_to_factor=2,
                                multiply_by_parameter_scale=False, decay_offset=1),
    "unfactored": optax.adafactor(0.05, factored=False, decay_rate=0.5, eps=1e-20),
    "raw": optax.chain(optax.scale_by_factored_rms(min_dim_size_to_factor=2), optax.scale(-0.05)),
    "custom_decay": optax.chain(optax.scale_by_factored_rms(
        min_dim_size_to_factor=3, decay_rate=0.9,
        decay_rate_fn=lambda step, rate: jnp.minimum(rate, 1.0 - 1.0 / (step + 2.0))), optax.scale(-0.05)),
}
for name, tx in opts.items():
    params = start()
    state = tx.init(params)
    if name in ("default", "factored"):
        print(name, jax.tree.map(lambda x: x.shape, state))

    @jax.jit
    def step(params, state):
        l, g = jax.value_and_grad(loss)(params)
        updates, state = tx.update(g, state, params)
        return optax.apply_updates(params, updates), state, l, updates

    for i in range(5):
        params, state, l, u = step(params, state)
    print(name, r(l), r(u))
    print(r(state))

# Eagerly, one step of the factored scaling on a 3-d leaf.
tx = optax.scale_by_factored_rms(min_dim_size_to_factor=2)
g = {"k": jnp.arange(1.0, 25.0).reshape(2, 3, 4) / 7.0}
u, s = tx.update(g, tx.init(g), g)
print(s)
result = r(u)
