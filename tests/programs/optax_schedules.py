import jax
import jax.numpy as jnp
import optax

scheds = {
    "constant": optax.constant_schedule(0.25),
    "linear": optax.linear_schedule(1.0, 0.1, transition_steps=8, transition_begin=2),
    "poly": optax.polynomial_schedule(init_value=0.5, end_value=0.01, power=2, transition_steps=6),
    "piecewise": optax.piecewise_constant_schedule(0.3, {3: 0.5, 7: 0.1}),
    "expo": optax.exponential_decay(init_value=0.2, transition_steps=4, decay_rate=0.7),
    "expo_stair": optax.exponential_decay(0.2, 3, 0.5, transition_begin=1, staircase=True, end_value=0.04),
    "cosine": optax.cosine_decay_schedule(0.4, decay_steps=9, alpha=0.1),
    "warm_cos": optax.warmup_cosine_decay_schedule(0.0, 1.0, warmup_steps=3, decay_steps=10, end_value=0.05),
    "warm_exp": optax.warmup_exponential_decay_schedule(0.01, 0.5, 2, 3, 0.8),
    "onecycle": optax.cosine_onecycle_schedule(10, 0.8, pct_start=0.25),
    "joined": optax.join_schedules([optax.constant_schedule(1.0), optax.linear_schedule(0.5, 0.0, 4)], [5]),
}
table = {}
for name, s in scheds.items():
    vals = [s(i) for i in range(12)]
    print(name, [round(float(v), 6) for v in vals])
    table[name] = jnp.stack([jnp.asarray(v, jnp.float32) for v in vals])

# The count as a traced int32 array, as optimizers call schedules.
jitted = jax.jit(lambda c: scheds["warm_cos"](c))
print(jitted(jnp.array(4, jnp.int32)))
print(optax.schedules.linear_schedule(2.0, 0.0, 4)(jnp.array(1)))
result = table
