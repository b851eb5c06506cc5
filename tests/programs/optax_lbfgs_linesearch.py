import jax
import jax.numpy as jnp
import optax

def r(t):
    return jax.tree.map(lambda x: [round(v, 4) + 0.0 for v in jnp.ravel(x).tolist()], t)

a = jnp.array([[3.0, 0.5, 0.0], [0.5, 2.0, 0.3], [0.0, 0.3, 1.0]])
b = jnp.array([1.0, -2.0, 0.5])

def quad(p):
    return 0.5 * p["x"] @ (a @ p["x"]) - b @ p["x"] + jnp.sum((p["y"] - 1.0) ** 2)

p = {"x": jnp.zeros(3), "y": jnp.array([0.5, 3.0])}
tx = optax.scale_by_lbfgs(memory_size=3)
st = tx.init(p)
for i in range(6):
    v, g = jax.value_and_grad(quad)(p)
    u, st = tx.update(g, st, p)
    p = jax.tree.map(lambda w, d: w - 0.5 * d, p, u)
    print(i, round(float(v), 4))
print(st.count, st.weights_memory.shape, jax.tree.map(jnp.shape, st.diff_params_memory))
print(r(p))

# Under jit the memory row is picked by a traced count.
tx2 = optax.scale_by_lbfgs(scale_init_precond=False)
p2 = {"x": jnp.zeros(3), "y": jnp.array([0.5, 3.0])}
st2 = tx2.init(p2)

@jax.jit
def step(p, st):
    g = jax.grad(quad)(p)
    u, st = tx2.update(g, st, p)
    return optax.apply_updates(p, jax.tree.map(lambda d: -0.3 * d, u)), st

for _ in range(5):
    p2, st2 = step(p2, st2)
print(r(p2), round(float(quad(p2)), 4))

def l1(w):
    return jnp.sum(jnp.abs(w - 0.25))

for store in (False, True):
    opt = optax.chain(optax.sgd(learning_rate=1.0), optax.scale_by_backtracking_linesearch(max_backtracking_steps=12, store_grad=store))
    w = jnp.array([1.0, -2.0, 0.5, 3.0])
    s = opt.init(w)
    for i in range(8):
        if store:
            v, g = optax.value_and_grad_from_state(l1)(w, state=s)
        else:
            v, g = jax.value_and_grad(l1)(w)
        u, s = opt.update(g, s, w, value=v, grad=g, value_fn=l1)
        w = w + u
    print(store, round(float(l1(w)), 4), s[1].info.num_linesearch_steps, round(float(s[1].learning_rate), 4))
result = {"p": p, "p2": p2, "w": w}
