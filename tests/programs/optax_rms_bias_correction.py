# scale_by_rms with bias correction (its state keeps a step count) and
# schedule_free_adamw built on it.
import jax
import jax.numpy as jnp
import optax

params = {"w": jnp.array([0.5, -1.25, 2.0]), "b": jnp.array(0.3)}


def loss(p):
    return jnp.sum((p["w"] * 1.5 - 0.25) ** 2) + p["b"] ** 2 * 3.0


for kw in [dict(bias_correction=True, eps_in_sqrt=False),
           dict(bias_correction=True, eps_in_sqrt=False, decay=0.99, initial_scale=0.5)]:
    tx = optax.scale_by_rms(**kw)
    st = tx.init(params)
    print(type(st).__name__, st)
    p = params
    for k in range(3):
        g = {"w": jnp.array([0.3, -2.0, 1.5]) * (k + 1), "b": jnp.array(-0.7 + k, dtype=jnp.float32)}
        u, st = tx.update(g, st)
        print(u)
    print(st)

opt = optax.contrib.schedule_free_adamw(learning_rate=0.05, warmup_steps=2, weight_decay=1e-3)
st = opt.init(params)
p = params
for i in range(4):
    l, g = jax.value_and_grad(loss)(p)
    u, st = opt.update(g, st, p)
    p = optax.apply_updates(p, u)
    print(i, l)
print(p)
print(optax.contrib.schedule_free_eval_params(st, p))
