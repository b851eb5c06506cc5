# optax's wrappers that apply a transformation on some steps only:
# apply_if_finite, conditionally_transform/mask, apply_every, the skip
# functions, periodic/incremental updates, and the small builders
# (stateless, named_chain, keep_params_nonnegative, scale_gradient, ...).
import jax
import jax.numpy as jnp
import optax

params = {"w": jnp.array([1.0, -2.0, 0.5]), "b": jnp.array(0.25)}
good = {"w": jnp.array([0.1, 0.2, -0.3]), "b": jnp.array(0.5)}
bad = {"w": jnp.array([0.1, jnp.nan, -0.3]), "b": jnp.array(jnp.inf)}

opt = optax.apply_if_finite(optax.adam(0.1), max_consecutive_errors=2)
state = opt.init(params)
print(state)
for g in [good, bad, bad, bad, good]:
    updates, state = opt.update(g, state, params)
    print(updates["w"], state.notfinite_count, state.last_finite, state.total_notfinite, state.inner_state[0].count)

step = jax.jit(opt.update)
u, s = step(bad, opt.init(params), params)
print(u, s.notfinite_count, s.last_finite)

ct = optax.conditionally_transform(optax.scale(-2.0), lambda step: step >= 2)
st = ct.init(params)
print(st)
for _ in range(4):
    u, st = ct.update(good, st)
    print(u["w"], st.step)

cm = optax.conditionally_mask(optax.sgd(0.5, momentum=0.9), lambda step: step % 2 == 1)
st = cm.init(params)
for _ in range(3):
    u, st = cm.update(good, st)
    print(u["w"], st.step, st.inner_state[0].trace["w"])
print(type(st).__name__, st._fields)

ae = optax.apply_every(3)
st = ae.init(params)
print(st)
for i in range(5):
    g = jax.tree.map(lambda x: x * (i + 1), good)
    u, st = ae.update(g, st)
    print(u["w"], st.count, st.grad_acc["b"])
chained = optax.chain(optax.apply_every(2), optax.sgd(1.0))
st = chained.init(params)
for i in range(2):
    u, st = chained.update(good, st)
    print(u["b"])

print(optax.skip_not_finite(bad, 0, params))
print(optax.skip_not_finite(good, 0, params))
print(optax.skip_large_updates(good, 0, params, 0.5))
print(optax.skip_large_updates(good, 0, params, 0.1))

new = {"w": jnp.ones(3), "b": jnp.array(2.0)}
print(optax.periodic_update(new, params, jnp.array(4), 2))
print(optax.periodic_update(new, params, 5, 2))
print(optax.incremental_update(new, params, 0.1))

sl = optax.stateless(lambda u, p: jax.tree.map(lambda x, y: x + 0.1 * y, u, p))
print(type(sl).__name__, sl.init(params), sl.update(good, sl.init(params), params)[0])
tm = optax.stateless_with_tree_map(lambda u, p: -u if p is None else u * p)
print(tm.update(good, optax.EmptyState())[0], tm.update(good, optax.EmptyState(), params)[0])
print(optax.init_empty_state(params))
ext = optax.with_extra_args_support(sl)
print(type(ext).__name__, optax.with_extra_args_support(optax.adam(0.1)) is not None)
print(ext.update(good, optax.EmptyState(), params, loss=1.0)[0]["b"])

nc = optax.named_chain(("clip", optax.clip(0.2)), ("mom", optax.trace(0.5)))
st = nc.init(params)
print(st)
u, st = nc.update(good, st)
u, st = nc.update(good, st)
print(u["w"], st["mom"].trace["w"])
try:
    optax.named_chain(("a", optax.sgd(1.0)), ("a", optax.sgd(1.0)))
except ValueError as e:
    print("ValueError", e)

kp = optax.keep_params_nonnegative()
pos = {"w": jnp.array([0.5, 1.0, 0.0]), "b": jnp.array(0.1)}
delta = {"w": jnp.array([-1.0, -0.5, 0.2]), "b": jnp.array(-0.2)}
print(type(kp).__name__, kp.update(delta, kp.init(pos), pos)[0])
for bad_call in [lambda: kp.update(delta, kp.init(pos)), lambda: kp.update(delta, kp.init(pos), None)]:
    try:
        bad_call()
    except Exception as e:
        print(type(e).__name__, e)

nbn = optax.normalize_by_update_norm(scale_factor=2.0)
print(nbn.update(good, nbn.init(params))[0])

f = lambda x: jnp.sum(optax.scale_gradient(x, 0.5) ** 2)
print(jax.grad(f)(jnp.array([1.0, 2.0])), optax.scale_gradient(jnp.array([1.0, 2.0]), 0.5))
print(jax.grad(lambda x: jnp.sum(optax.scale_gradient({"a": x}, 0.0)["a"] * x))(jnp.array([3.0])))
print(jax.grad(lambda x: jnp.sum(optax.scale_gradient(x, 1.0) * x))(jnp.array([3.0])))
print(jax.jit(jax.grad(lambda x: jnp.sum(optax.scale_gradient(x ** 2, -3.0))))(jnp.array([1.0, -1.0])))

result = [jnp.nan_to_num(state.inner_state[0].mu["w"]), u["w"]]
