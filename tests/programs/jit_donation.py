# Buffer donation with jax.jit on CPU: a donated argument whose buffer an
# output takes is deleted (its shape and dtype stay readable, any read of its
# data raises); one no output can take stays alive and compiling warns.
import warnings
import jax
import jax.numpy as jnp


def attempt(label, f):
    try:
        print(label, f())
    except Exception as e:
        print(label, type(e).__name__, e)


def step(x, y):
    return x + 1, y * 2


g = jax.jit(step, donate_argnums=(0,))
x = jnp.arange(4, dtype=jnp.int32)
y = jnp.ones(4)
alias = x
a, b = g(x, y)
print(a, b, x.is_deleted(), alias.is_deleted(), y.is_deleted())
print(x.shape, x.dtype, x.ndim, x.size, len(x), x.weak_type)
attempt("print", lambda: print(x))
attempt("repr", lambda: repr(alias))
attempt("fstring", lambda: f"{x}")
attempt("add", lambda: x + 1)
attempt("sum", lambda: jnp.sum(x))
attempt("method", lambda: x.sum())
attempt("index", lambda: x[0])
attempt("list", lambda: list(x))
attempt("stack", lambda: jnp.stack([x, a]))
attempt("copy", lambda: x.copy())
attempt("float", lambda: float(x[1]))
attempt("new jit", lambda: jax.jit(lambda t: t * 3)(x))
attempt("same jit", lambda: g(x, y))
attempt("ready", lambda: x.block_until_ready())
print(a + 1, a.is_deleted())

# Matching: exact shape and dtype first, then the element count.
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    p = jnp.ones(6)
    jax.jit(lambda p: (p * 2).reshape(2, 3), donate_argnums=0)(p)
    q = jnp.ones(5)
    jax.jit(lambda q: (q + 1).astype(jnp.int32), donate_argnums=0)(q)
    r = jnp.ones(3)
    s = jnp.ones(7)
    out = jax.jit(lambda r, s: (s * 2, jnp.sum(r)), donate_argnums=(0, 1))(r, s)
    print("matched", p.is_deleted(), q.is_deleted(), r.is_deleted(), s.is_deleted(), out[1])
    u = jnp.ones(2)
    v = jnp.ones(2)
    jax.jit(lambda u, v: u + v, donate_argnums=(0, 1))(u, v)
    print("first takes", u.is_deleted(), v.is_deleted())
    w = jnp.ones(9)
    jax.jit(lambda w: jnp.arange(9.0), donate_argnums=0)(w)
    k = jnp.ones(10)
    jax.jit(lambda k: jnp.arange(10.0), donate_argnums=0, keep_unused=True)(k)
    print("unused", w.is_deleted(), "kept", k.is_deleted())
for m in caught:
    print(m.category.__name__, m.message)

# Pytrees, keywords, static arguments, identity, and a jit inside a jit.
tree = {"a": jnp.ones(3), "b": jnp.zeros(2)}
jax.jit(lambda t: {"a": t["a"] + 1}, donate_argnums=0)(tree)
print("tree", tree["a"].is_deleted(), tree["b"].is_deleted())
kx = jnp.ones(4)
jax.jit(lambda x, n: x * n, donate_argnames="x", static_argnames="n")(x=kx, n=3)
sx = jnp.ones(4)
jax.jit(lambda n, x: x * n, static_argnums=0, donate_argnums=1)(2, sx)
nx = jnp.ones(4)
jax.jit(lambda x: x - 1, donate_argnums=-1)(nx)
print("kw", kx.is_deleted(), "static", sx.is_deleted(), "negative", nx.is_deleted())
ix = jnp.ones(3)
same = jax.jit(lambda x: x, donate_argnums=0)(ix)
print("identity", ix.is_deleted(), same)
ox = jnp.ones(3)


@jax.jit
def outer(x):
    return jax.jit(lambda t: t + 1, donate_argnums=0)(x) * 2


print(outer(ox), ox.is_deleted())
chain = jax.jit(lambda x: x + 1, donate_argnums=0)
c0 = jnp.zeros(2)
c1 = chain(c0)
c2 = chain(c1)
print("chain", c0.is_deleted(), c1.is_deleted(), c2)

# Passing one array twice with a donation is XLA's error.
t = jnp.ones(11)
attempt("twice", lambda: jax.jit(lambda a, b: a + b, donate_argnums=0)(t, t))
attempt("twice used", lambda: jax.jit(lambda a, b: a + b, donate_argnums=1)(t, t))
print(t.is_deleted())

# x.delete()
z = jnp.zeros(3)
print(z.delete(), z.is_deleted())
attempt("deleted", lambda: z * 2)
attempt("argnums", lambda: jax.jit(lambda x: x, donate_argnums=2))
attempt("both", lambda: jax.jit(lambda x: x, donate_argnums=0, static_argnums=0))
result = float(a.sum())
