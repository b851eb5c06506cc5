import jax
import jax.numpy as jnp
import optax

def r(t):
    # Four decimals: the last float32 digit of fused arithmetic is not checked.
    return jax.tree.map(lambda x: [round(v, 4) + 0.0 for v in jnp.ravel(x).tolist()], t)

def loss(p):
    h = jnp.tanh(jnp.array([0.5, -1.0, 2.0]) @ p["w"] + p["b"])
    z = jnp.sum(p["k"] * jnp.arange(24.0).reshape(2, 3, 4) / 10.0)
    return jnp.sum((h - jnp.array([0.3, -0.2, 0.1, 0.4])) ** 2) + 0.1 * jnp.sin(z) + jnp.sum(p["v"] @ p["w"])

def start():
    return {
        "w": jnp.array([[0.1, 0.2, -0.3, 0.5], [0.4, -0.5, 0.6, 0.0], [0.2, 0.3, -0.1, 0.7]]),
        "b": jnp.array([0.0, 0.1, -0.2, 0.05]),
        "k": jnp.linspace(-0.4, 0.6, 24).reshape(2, 3, 4),
        "v": jnp.array([[0.3, -0.1, 0.2], [0.5, 0.4, -0.6]]),
    }

MDN = optax.contrib.MuonDimensionNumbers
opts = {
    "muon": optax.contrib.muon(0.05),
    "muon_dims": optax.contrib.muon(0.05, muon_weight_dimension_numbers={
        "w": MDN(), "b": None, "k": MDN(reduction_axis=(0, 1), output_axis=2), "v": None}),
    "muon_opts": optax.contrib.muon(optax.linear_schedule(0.05, 0.01, 4), ns_coeffs="dion",
                                    beta=0.9, weight_decay=0.01, nesterov=False,
                                    adam_learning_rate=0.01, adam_b1=0.8, consistent_rms=0.2),
    "adaptive": optax.contrib.muon(0.02, adaptive=True, preconditioning="aol"),
    "schatten": optax.contrib.muon(0.02, preconditioning="schatten", ns_steps=3),
    "raw": optax.chain(optax.contrib.scale_by_muon(
        weight_dimension_numbers={"w": MDN(), "b": None, "k": MDN(1, (0, 2)), "v": MDN(1, 0)}),
        optax.scale(-0.03)),
}
for name, tx in opts.items():
    params = start()
    state = tx.init(params)
    if name in ("muon", "raw"):
        print(name, state)

    @jax.jit
    def step(params, state):
        l, g = jax.value_and_grad(loss)(params) if name != "raw" else (loss(params), jax.grad(loss)(params))
        if name == "raw":
            g = {"w": g["w"], "b": jnp.outer(g["b"], g["b"]), "k": g["k"], "v": g["v"]}
        updates, state = tx.update(g, state, params)
        if name == "raw":
            updates = dict(updates, b=updates["b"][0])
        return optax.apply_updates(params, updates), state, l, updates

    for i in range(4):
        params, state, l, u = step(params, state)
    print(name, r(l), r(u))
    print(r(state))

# Orthogonalised directly: a tall matrix, then a wide one in a dict.
tx = optax.contrib.scale_by_muon(ns_steps=6, beta=0.5)
t = jnp.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]])
u, s = tx.update(t, tx.init(t))
print(s)
print(r(u))
tx = optax.contrib.scale_by_muon(ns_coeffs=((3.0, -3.2, 1.2), (2.0, -1.5, 0.5)), ns_steps=2,
                                 weight_dimension_numbers={"a": MDN()})
g = {"a": jnp.array([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0]])}
u, s = tx.update(g, tx.init(g))
print(s.ns_coeffs)
print(r(u))
try:
    optax.contrib.scale_by_muon().update(g, tx.init(g))
except ValueError as e:
    print("ValueError")
result = r(u)
