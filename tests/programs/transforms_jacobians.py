import jax, jax.numpy as jnp

def field(v):
    return jnp.tanh(v) * jnp.sum(v * v)

pt = jnp.array([0.5, -1.25, 2.0])
jf = jax.jacfwd(field)(pt)
jr = jax.jacrev(field)(pt)
print(jf.shape, jf.dtype, jr.shape)
print(jnp.allclose(jf, jr, atol=1e-5))

def tree_fn(a, b):
    return {"p": a * b[1], "q": (jnp.dot(a, b), jnp.cos(b))}

u = jnp.array([1.5, 0.25, -0.75])
w = jnp.array([0.2, 0.4, 0.6])
tf = jax.jacfwd(tree_fn, argnums=(0, 1))(u, w)
tr = jax.jacrev(tree_fn, argnums=(0, 1))(u, w)
print(jax.tree_util.tree_map(lambda t: t.shape, tf))
print(jax.tree_util.tree_map(lambda t: t.shape, tr))
print(jax.tree_util.tree_structure(tf) == jax.tree_util.tree_structure(tr))
single = jax.jacrev(tree_fn, argnums=1)(u, w)
print(jax.tree_util.tree_map(lambda t: t.shape, single))

mat = jnp.arange(1.0, 7.0).reshape(2, 3) / 10.0
jm = jax.jacrev(lambda m: jnp.sin(m @ u))(mat)
print(jm.shape)

def with_aux(v):
    return jnp.sum(jnp.exp(v) * 0.5), {"norm": jnp.sum(v * v)}

jaux, aux = jax.jacfwd(with_aux, has_aux=True)(u)
raux, aux2 = jax.jacrev(with_aux, has_aux=True)(u)
print(aux["norm"], aux2["norm"])

hs = jax.hessian(lambda v: jnp.sum(jnp.sin(v) * v * v))(u)
hp = jax.hessian(lambda v, s: jnp.sum(v * v * s * s), argnums=(0, 1))(u, 1.5)
print(hs.shape, jax.tree_util.tree_map(lambda t: t.shape, hp))

y, lin = jax.linearize(lambda v: jnp.exp(v) * v, u)
tangent = lin(jnp.array([1.0, 0.0, 2.0]))
back = jax.linear_transpose(lambda v: 3.0 * v[::-1] + v, u)(jnp.array([1.0, 2.0, 3.0]))
print(type(back).__name__, len(back))

try:
    jax.jacfwd(lambda n: n * 2)(3)
except TypeError as e:
    print("TypeError:", e)
try:
    jax.jacrev(lambda n: n * 2)(jnp.arange(3))
except TypeError as e:
    print("TypeError:", e)

result = [jf, jr, tf["p"][0], tf["p"][1], tf["q"][0][0], tf["q"][0][1], tf["q"][1][1],
          tr["p"][0], tr["q"][1][1], single["q"][0], jm, jaux, raux, hs, hp[0][0], hp[0][1],
          hp[1][1], y, tangent, back[0]]
