import jax
import jax.numpy as jnp
import optax

scheds = {
    "interp_linear": optax.piecewise_interpolate_schedule("linear", 0.5, {3: 2.0, 7: 0.25, 10: 0.1}),
    "interp_cosine": optax.piecewise_interpolate_schedule("cosine", 1.0, {2: 0.5, 5: 4.0}),
    "interp_none": optax.piecewise_interpolate_schedule("linear", 0.3),
    "onecycle": optax.linear_onecycle_schedule(20, 0.8),
    "warmup_constant": optax.warmup_constant_schedule(0.0, 0.6, 4),
    "sgdr": optax.sgdr_schedule([
        dict(init_value=0.0, peak_value=1.0, warmup_steps=2, decay_steps=6),
        dict(init_value=0.1, peak_value=0.5, warmup_steps=1, decay_steps=5, end_value=0.05),
    ]),
}
for name, s in scheds.items():
    print(name, [round(float(s(i)), 6) for i in range(0, 14)])
    print(repr(s(3)), repr(s(jnp.int32(5))))
    # Rounded: XLA may fuse the interpolation into one multiply-add.
    print(round(float(jax.jit(s)(jnp.int32(9))), 6))

# Python-int counts give weakly typed values where optax's arithmetic does.
for s in [optax.linear_schedule(1.0, 0.1, 10), optax.cosine_decay_schedule(1.0, 10),
          optax.piecewise_constant_schedule(1.0, {3: 0.5}), optax.exponential_decay(1.0, 3, 0.5),
          optax.warmup_cosine_decay_schedule(0.0, 1.0, 2, 10), optax.cosine_onecycle_schedule(10, 1.0)]:
    print(repr(s(4)), repr(s(jnp.int32(4))))

try:
    optax.piecewise_interpolate_schedule("quadratic", 1.0)
except ValueError as e:
    print("ValueError", e)
try:
    scheds["interp_linear"](jnp.arange(5))
except TypeError as e:
    print("TypeError", e)

tx = optax.sgd(optax.piecewise_interpolate_schedule("linear", 0.2, {2: 0.5, 4: 0.0}))
params = jnp.array([1.0, -1.0])
state = tx.init(params)
for i in range(5):
    u, state = tx.update(params * 2.0, state)
    params = optax.apply_updates(params, u)
    print(i, params, state)
result = params
