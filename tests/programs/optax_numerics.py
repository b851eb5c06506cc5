# optax's numerics for writing optimizers: moment updates and bias
# correction over pytrees (top level, optax.tree, optax.tree_utils),
# safe_norm, safe_root_mean_squares and adaptive_grad_clip.
import jax
import jax.numpy as jnp
import optax

g = {"w": jnp.array([0.5, -1.0, 2.0]), "b": jnp.array([[0.1, 0.2], [-0.3, 0.4]])}
m = jax.tree.map(lambda x: jnp.full_like(x, 0.2), g)
print(optax.update_moment(g, m, 0.9, 1))
print(optax.tree.update_moment(g, m, 0.99, 2))
print(optax.tree_utils.tree_update_moment_per_elem_norm(g, m, 0.9, 2))
print(optax.update_infinity_moment(g, m, 0.9, 1e-8))
print(optax.bias_correction(m, 0.9, jnp.array(3, jnp.int32)))
print(optax.tree.bias_correction(m, 0.999, 1), optax.tree_utils.tree_bias_correction(m, 0.5, 2))

x = jnp.array([[3.0, 4.0], [0.0, 0.0]])
print(optax.safe_norm(x, 1e-6), optax.safe_norm(x, 1e-6, axis=1))
print(optax.safe_norm(x, 0.5, axis=1, keepdims=True), optax.safe_norm(x, 1.0, ord=1, axis=0))
print(jax.grad(lambda v: optax.safe_norm(v, 1e-3))(jnp.zeros(3)))
print(jax.grad(lambda v: jnp.sum(optax.safe_norm(v, 1e-3, axis=1)))(x))
print(optax.safe_root_mean_squares(x, 1e-6), optax.safe_root_mean_squares(jnp.zeros(4), 0.1))
print(jax.grad(lambda v: optax.safe_root_mean_squares(v, 0.1))(jnp.zeros(4)))

params = {"w": jnp.array([[1.0, 0.1], [-2.0, 0.2], [0.5, 0.0]]), "b": jnp.array([0.3, -0.4])}
grads = {"w": jnp.array([[0.5, 0.3], [0.2, -0.4], [0.1, 0.1]]), "b": jnp.array([1.0, 2.0])}
agc = optax.adaptive_grad_clip(0.1)
st = agc.init(params)
print(type(agc).__name__, st)
u, st = agc.update(grads, st, params)
print(u)
print(optax.adaptive_grad_clip(0.5, eps=0.01, axis=0).update(grads, st, params)[0])
kernel = jnp.arange(24.0).reshape(2, 3, 2, 2) / 10
print(optax.adaptive_grad_clip(0.05).update(kernel, st, -kernel)[0][0, 0])
opt = optax.chain(optax.adaptive_grad_clip(0.1), optax.sgd(0.1))
st = opt.init(params)
u, st = jax.jit(opt.update)(grads, st, params)
print(u["w"])
for bad in [lambda: agc.update(grads, st), lambda: agc.update(grads, st, None),
            lambda: agc.update(jnp.ones((1, 1, 1, 1, 1, 2)), st, jnp.ones((1, 1, 1, 1, 1, 2)))]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)

result = [optax.update_moment(g, m, 0.9, 2)["w"], optax.bias_correction(m, 0.9, 3)["b"], u["w"]]
