import jax
import jax.numpy as jnp
import optax

def r(t):
    # Four decimals in Python floats: the last float32 digit of XLA's fused
    # arithmetic is not part of what these programs check.
    return jax.tree.map(lambda x: [round(v, 4) + 0.0 for v in jnp.ravel(x).tolist()], t)

def loss(p, x):
    return jnp.sum((p["a"] * x - 1.0) ** 2) + jnp.sum(p["b"] ** 2 * x[0])

params = {"a": jnp.array([0.5, -0.5]), "b": jnp.array([1.0, 2.0, 3.0])}
xs = [jnp.array([1.0, 2.0]), jnp.array([0.5, -1.0]), jnp.array([2.0, 0.1]), jnp.array([1.5, 1.5])]

# inject_hyperparams: a schedule and numbers, kept in the state.
tx = optax.inject_hyperparams(optax.adamw)(learning_rate=optax.linear_schedule(0.1, 0.0, 4), weight_decay=0.01)
state = tx.init(params)
print(state)
p = params
for x in xs:
    g = jax.grad(loss)(p, x)
    u, state = jax.jit(tx.update)(g, state, p)
    p = optax.apply_updates(p, u)
print(state.hyperparams["learning_rate"], state.count, r(p))

clipper = optax.inject_hyperparams(optax.clip_by_global_norm)(max_norm=optax.linear_schedule(1.0, 0.0, transition_steps=3))
cs = clipper.init(None)
for _ in range(4):
    _, cs = clipper.update(None, cs)
print(cs)

# MultiSteps: gradients averaged over two mini-steps.
ms = optax.MultiSteps(optax.sgd(0.1, momentum=0.9), every_k_schedule=2)
mstate = ms.init(params)
print(mstate)
p = params
for x in xs:
    g = jax.grad(loss)(p, x)
    u, mstate = ms.update(g, mstate, p)
    p = optax.apply_updates(p, u)
    print(mstate.mini_step, mstate.gradient_step, r(u["a"]))
print(r(p))

# flatten: one vector for all leaves.
ft = optax.flatten(optax.adam(0.1))
fstate = ft.init(params)
print(fstate)
u, fstate = ft.update(jax.grad(loss)(params, xs[0]), fstate)
print(r(u))
result = {"p": p, "u": u}
