import jax
import jax.numpy as jnp
import optax

def r(t):
    return jax.tree.map(lambda x: [round(v, 4) + 0.0 for v in jnp.ravel(x).tolist()], t)

params = {"kernel": jnp.array([[0.5, -1.0], [2.0, 0.25]]), "bias": jnp.array([0.1, -0.2]), "scale": jnp.array([1.0, 1.5])}

def loss(p):
    y = p["kernel"] @ jnp.array([1.0, 2.0]) + p["bias"]
    return jnp.sum((y * p["scale"] - jnp.array([1.0, -1.0])) ** 2)

m = optax.masked(optax.adam(0.1), {"kernel": True, "bias": False, "scale": True})
ms = m.init(params)
print(ms)
g = jax.grad(loss)(params)
u, ms = m.update(g, ms, params)
print(r(u))
print(r(g["bias"]))

labels = {"kernel": "w", "bias": "b", "scale": "w"}
tx = optax.partition({"w": optax.adam(0.05), "b": optax.sgd(0.1, momentum=0.9)}, labels)
st = tx.init(params)
print(st)
p = params
for _ in range(4):
    g = jax.grad(loss)(p)
    u, st = jax.jit(tx.update)(g, st, p)
    p = optax.apply_updates(p, u)
print(r(p))

tx2 = optax.multi_transform({"frozen": optax.set_to_zero(), "train": optax.sgd(0.1)},
                            lambda ps: jax.tree.map(lambda x: "train" if x.ndim == 2 else "frozen", ps))
st2 = tx2.init(params)
u2, st2 = tx2.update(jax.grad(loss)(params), st2, params)
print(r(u2))
print(st2)
result = p
