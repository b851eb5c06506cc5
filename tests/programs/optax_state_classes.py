# optax's state classes: the classes a program names are the classes its
# optimizers build their states with; they construct, print, compare, and
# behave as NamedTuples.
import jax
import jax.numpy as jnp
import optax

params = {"w": jnp.array([1.0, -2.0, 3.0]), "b": jnp.array(0.5)}
opt = optax.adam(0.1)
state = opt.init(params)
print(isinstance(state[0], optax.ScaleByAdamState), isinstance(state[1], optax.EmptyState))
print(isinstance(state[0], optax.EmptyState), isinstance(state, tuple), isinstance(state[0], tuple))
print(type(state[0]))
print(type(state[0]) is optax.ScaleByAdamState)
print(optax.ScaleByAdamState._fields, optax.MultiStepsState._fields)

made = optax.ScaleByAdamState(count=jnp.array(0, jnp.int32), mu=state[0].mu, nu=state[0].nu)
print(made)
print(made == state[0], made == (made.count, made.mu, made.nu))
same = optax.ScaleByAdamState(state[0].count, state[0].mu, state[0].nu)
print(same == state[0], same != state[0])
print(optax.ScaleByAdamState(1, 2, 3) == optax.ScaleByAdamState(1, 2, 3))
print(optax.ScaleByAdamState(1, 2, 3) == optax.TraceState(1))
print(optax.EmptyState() == optax.EmptyState(), optax.EmptyState() == ())
print(optax.EmptyState(), optax.ClipState(), optax.MultiTransformState is optax.PartitionState)
print(optax.ScaleState is optax.EmptyState, optax.AddDecayedWeightsState())

replaced = state[0]._replace(count=jnp.array(7, jnp.int32))
print(replaced.count, type(replaced).__name__, replaced.mu is state[0].mu)
print(list(state[0]._asdict().keys()))
count, mu, nu = state[0]
print(count, len(state[0]), state[0][-1]["b"])

sgd_state = optax.sgd(0.1, momentum=0.9).init(params)
print(isinstance(sgd_state[0], optax.TraceState), sgd_state[0])
tr = optax.TraceState(trace={"w": jnp.zeros(2)})
print(tr, jax.tree.leaves(tr))

ms = optax.MultiStepsState(mini_step=0, gradient_step=0, inner_opt_state=(), acc_grads={})
print(ms)
ema = optax.EmaState(count=jnp.zeros([], jnp.int32), ema=jnp.ones(2))
print(jax.tree.structure(ema))
print(isinstance(optax.ema(0.9).init(jnp.ones(2)), optax.EmaState))
print(isinstance(opt, optax.GradientTransformation), isinstance(opt, optax.GradientTransformationExtraArgs))
print(type(opt))
tx = optax.GradientTransformation(lambda p: optax.EmptyState(), lambda u, s, p=None: (u, s))
print(type(tx).__name__, isinstance(tx, optax.GradientTransformationExtraArgs))

mask_state = optax.masked(optax.sgd(0.1, momentum=0.5), {"w": True, "b": False}).init(params)
print(isinstance(mask_state, optax.MaskedState), type(mask_state.inner_state[0]).__name__)
inj = optax.inject_hyperparams(optax.adam)(learning_rate=0.01).init(params)
print(type(inj).__name__, type(inj.inner_state[0]).__name__)

for bad in [lambda: optax.ScaleByAdamState(1, 2), lambda: optax.ScaleByAdamState(1, 2, 3, 4),
            lambda: optax.ScaleByAdamState(1, 2, nu=3, mx=4), lambda: made._replace(foo=1)]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)

@jax.jit
def step(p, s):
    g = jax.grad(lambda q: jnp.sum(q["w"] ** 2) + q["b"] ** 2)(p)
    u, s = opt.update(g, s, p)
    return optax.apply_updates(p, u), s

p2, s2 = step(params, state)
print(type(s2[0]).__name__, isinstance(s2[0], optax.ScaleByAdamState), s2[0].count)
result = [p2["w"], s2[0].mu["w"], s2[0].nu["b"]]
