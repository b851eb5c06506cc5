# optax.contrib schedule-free optimizers: schedule_free around a base
# optimizer, schedule_free_sgd (with warmup and weight decay), the state,
# and schedule_free_eval_params for the averaged iterate.
import jax
import jax.numpy as jnp
import optax


def loss(p):
    return jnp.sum((p['w'] - jnp.array([1.0, -2.0, 0.5])) ** 2) + 0.5 * p['b'] ** 2


params = {'w': jnp.array([0.3, 0.1, -0.4]), 'b': jnp.array(1.5)}
for opt in [optax.contrib.schedule_free_sgd(0.1),
            optax.contrib.schedule_free_sgd(0.2, warmup_steps=3, b1=0.8, weight_decay=0.01),
            optax.contrib.schedule_free(optax.sgd(0.05, momentum=0.5), learning_rate=0.05),
            optax.contrib.schedule_free(optax.sgd(optax.linear_schedule(0.1, 0.01, 5)), optax.linear_schedule(0.1, 0.01, 5), weight_lr_power=1.0)]:
    p = params
    state = opt.init(p)
    for _ in range(5):
        g = jax.grad(loss)(p)
        u, state = opt.update(g, state, p)
        p = optax.apply_updates(p, u)
    print(p)
    print(state.b1, state.weight_sum, state.step_count, state.max_lr, state.z)
    print(optax.contrib.schedule_free_eval_params(state, p))
print(type(state).__name__, state._fields)
print(optax.contrib.schedule_free_sgd(state_dtype=jnp.bfloat16).init(params).z)
try:
    optax.contrib.schedule_free_eval_params(optax.sgd(0.1).init(params), params)
except Exception as e:
    print(type(e).__name__, e)
try:
    optax.contrib.schedule_free_eval_params(state._replace(b1=None), params)
except ValueError as e:
    print('ValueError', e)
step = jax.jit(lambda p, s, g: opt.update(g, s, p))
u, s2 = step(params, opt.init(params), jax.grad(loss)(params))
result = u
