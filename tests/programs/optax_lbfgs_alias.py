import jax
import jax.numpy as jnp
import optax

def rosen(w):
  return jnp.sum(10.0 * (w[1:] - w[:-1] ** 2) ** 2 + (1.0 - w[:-1]) ** 2)

# No line search: the L-BFGS direction scaled by -1 or by -learning_rate.
for lr in (None, 0.05):
  opt = optax.lbfgs(lr, memory_size=4, linesearch=None)
  w = jnp.array([-0.5, 0.8, 0.3])
  st = opt.init(w)
  for i in range(5):
    v, g = jax.value_and_grad(rosen)(w)
    u, st = opt.update(g, st, w)
    w = optax.apply_updates(w, u)
  print(lr, round(float(rosen(w)), 4), [round(x, 4) for x in w.tolist()])

# A backtracking line search that keeps the gradient for the next step.
opt = optax.lbfgs(
    scale_init_precond=False,
    linesearch=optax.scale_by_backtracking_linesearch(
        max_backtracking_steps=20, store_grad=True))
w = jnp.array([-0.5, 0.8, 0.3])
st = opt.init(w)
vg = optax.value_and_grad_from_state(rosen)
for i in range(8):
  v, g = vg(w, state=st)
  u, st = opt.update(g, st, w, value=v, grad=g, value_fn=rosen)
  w = optax.apply_updates(w, u)
  print(i, round(float(v), 5), round(float(st[-1].learning_rate), 5))
print(jax.tree.map(jnp.shape, st[0].diff_params_memory), int(st[0].count))
result = float(rosen(w))
