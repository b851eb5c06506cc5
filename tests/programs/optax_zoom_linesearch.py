import jax
import jax.numpy as jnp
import optax

def rosen2(w):
  return (1.0 - w[0]) ** 2 + 100.0 * (w[1] - w[0] ** 2) ** 2

def f(w):
  return (w[0] - 1.0) ** 4 + 2.0 * (w[1] + 0.5) ** 2 + 0.5 * (
      jnp.exp(w[0] - w[1]) + jnp.exp(w[1] - w[0]))

# L-BFGS with its default zoom line search, stepped one update at a time.
for opt, n in [(optax.lbfgs(), 9),
               (optax.lbfgs(memory_size=3, scale_init_precond=False), 5)]:
  w = jnp.array([3.0, 2.0])
  st = opt.init(w)
  print(st[-1].info, st[-1].learning_rate)
  vg = optax.value_and_grad_from_state(f)
  for i in range(n):
    v, g = vg(w, state=st)
    u, st = opt.update(g, st, w, value=v, grad=g, value_fn=f)
    w = optax.apply_updates(w, u)
    info = st[-1].info
    print(i, f'{float(v):.6e}', f'{float(st[-1].learning_rate):.6e}',
          int(info.num_linesearch_steps), f'{float(info.decrease_error):.3e}',
          f'{float(info.curvature_error):.3e}', w)
print(type(st[-1]).__name__, type(st[-1].info).__name__)
print(optax.tree_utils.tree_get(st, 'learning_rate'))

# The whole solve inside jax.lax.while_loop under jit.
def solve(w0, opt, max_iter):
  vg = optax.value_and_grad_from_state(f)
  def body(carry):
    w, s = carry
    v, g = vg(w, state=s)
    u, s = opt.update(g, s, w, value=v, grad=g, value_fn=f)
    return optax.apply_updates(w, u), s
  def cond(carry):
    _, s = carry
    n = optax.tree.get(s, 'count')
    return (n == 0) | ((n < max_iter) & (optax.tree.norm(optax.tree.get(s, 'grad')) >= 1e-4))
  return jax.lax.while_loop(cond, body, (w0, opt.init(w0)))

w, s = jax.jit(solve, static_argnums=(1, 2))(jnp.array([3.0, 2.0]), optax.lbfgs(), 100)
print(int(optax.tree.get(s, 'count')), f'{float(f(w)):.5e}')

# Gradient descent with a zoom line search that keeps its last step size
# as the next guess and caps it.
opt = optax.chain(optax.sgd(1.0), optax.scale_by_zoom_linesearch(
    max_linesearch_steps=10, max_learning_rate=0.5))
w = jnp.array([3.0, 2.0])
st = opt.init(w)
for i in range(8):
  v, g = jax.value_and_grad(f)(w)
  u, st = jax.jit(opt.update, static_argnames='value_fn')(
      g, st, w, value=v, grad=g, value_fn=f)
  w = w + u
  print(i, f'{float(v):.6e}', f'{float(st[1].learning_rate):.6e}', int(st[1].info.num_linesearch_steps))

# An ascent direction: the search fails and says why.
opt = optax.scale_by_zoom_linesearch(max_linesearch_steps=4, verbose=True)
w = jnp.array([0.5, 0.5])
st = opt.init(w)
v, g = jax.value_and_grad(rosen2)(w)
u, st = opt.update(g, st, w, value=v, grad=g, value_fn=rosen2)
print(u, st.learning_rate, st.info.num_linesearch_steps)

# An objective with data arguments, passed on by the line search and by
# value_and_grad_from_state; the parameters are a dict.
def fit(p, x, y):
  return jnp.sum((x @ p['w'] + p['b'] - y) ** 2)

x = jnp.array([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]])
y = jnp.array([1.0, 0.0, 2.0])
p = {'w': jnp.zeros(2), 'b': jnp.array(0.5)}
opt = optax.lbfgs()
st = opt.init(p)
vg = optax.value_and_grad_from_state(fit)
for i in range(4):
  v, g = vg(p, x, y=y, state=st)
  u, st = opt.update(g, st, p, value=v, grad=g, value_fn=fit, x=x, y=y)
  p = optax.apply_updates(p, u)
  print(i, f'{float(v):.5e}', st[-1].learning_rate, st[-1].info.num_linesearch_steps)
print(jax.tree.map(lambda a: a.round(3), p))
result = float(rosen2(w))
