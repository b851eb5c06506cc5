# nnx.custom_vjp: rules that see module states (graph mode) or modules
# (tree mode), gradients through nnx.grad, and non-differentiated arguments.
import jax
import jax.numpy as jnp
from flax import nnx


class Pair(nnx.Module):
    def __init__(self, a, b):
        self.a = nnx.Param(a)
        self.b = nnx.Param(b)


@nnx.custom_vjp
def g(m, scale):
    return jnp.tanh(m.a * scale) * m.b


def g_fwd(m, scale):
    t = jnp.tanh(m.a * scale)
    return g(m, scale), (t, scale, m)


def g_bwd(res, cts):
    states_g, out_g = cts
    t, scale, m = res
    print("bwd gets", type(states_g).__name__, len(states_g), states_g[1])
    print("residual module", type(m).__name__, m.b[...])
    (m_g, s_g) = states_g
    m_g = jax.tree.map(lambda x: x, m_g)
    m_g["a"][...] = out_g * m.b * (1 - t * t) * scale * 3.0
    m_g["b"][...] = out_g * t
    return (m_g, jnp.zeros_like(scale))


g.defvjp(g_fwd, g_bwd)
m = Pair(jnp.array([0.5, -1.0, 2.0]), jnp.array([1.5, 2.0, -0.5]))
s = jnp.float32(0.7)
print(type(g).__name__, g(m, s))
grads = nnx.grad(lambda m, s: g(m, s).sum())(m, s)
print(type(grads).__name__)
print(grads["a"][...], grads["b"][...])
loss, (gm, gs) = nnx.value_and_grad(lambda m, s: (g(m, s) ** 2).sum(), argnums=(0, 1))(m, s)
print(loss, gm["a"][...], gm["b"][...], gs)


# Tree mode: the backward rule gets the output cotangent and returns a
# module of gradients.
@nnx.custom_vjp(graph_updates=False)
def h(m):
    return jnp.sin(m.a) @ m.b


def h_fwd(m):
    return h(m), (jnp.cos(m.a), jnp.sin(m.a), m)


def h_bwd(res, out_g):
    cos_a, sin_a, m = res
    print("tree bwd", type(m).__name__, out_g.shape)
    m_g = nnx.clone(m)
    m_g.a[...] = cos_a * out_g * m.b * 2.0
    m_g.b[...] = sin_a * out_g
    return (m_g,)


h.defvjp(h_fwd, h_bwd)
print(type(h).__name__, h(m))
th = nnx.grad(h)(m)
print(th["a"][...], th["b"][...])


# An integer nondiff argument comes first in the backward rule.
@nnx.custom_vjp(nondiff_argnums=(1,))
def power(m, n):
    return (m.a ** n).sum()


def power_fwd(m, n):
    return power(m, n), (m.a,)


def power_bwd(n, res, cts):
    (a,) = res
    states_g, out_g = cts
    (m_g,) = states_g
    m_g = jax.tree.map(lambda x: x, m_g)
    m_g["a"][...] = out_g * n * a ** (n - 1)
    m_g["b"][...] = jnp.ones_like(m_g["b"][...])
    return (m_g,)


power.defvjp(power_fwd, power_bwd)
pg = nnx.grad(power)(m, 3)
print(power(m, 2), pg["a"][...], pg["b"][...])


# Writes to a BatchStat inside the function reach the caller's module.
class Counter(nnx.Module):
    def __init__(self):
        self.w = nnx.Param(jnp.array([1.0, 2.0]))
        self.calls = nnx.BatchStat(jnp.array(0.0))


@nnx.custom_vjp
def count(c, x):
    c.calls[...] += 1.0
    return (c.w * x).sum()


def count_fwd(c, x):
    return count(c, x), (c.w, x)


def count_bwd(res, cts):
    w, x = res
    states_g, out_g = cts
    c_g = jax.tree.map(lambda v: v, states_g[0])
    c_g["w"][...] = out_g * x
    return (c_g, out_g * w)


count.defvjp(count_fwd, count_bwd)
c = Counter()
print(count(c, jnp.array([3.0, 4.0])), c.calls[...])
cg, xg = nnx.grad(count, argnums=(0, 1))(c, jnp.array([3.0, 4.0]))
print(cg["w"][...], xg, c.calls[...])

# Writing a number or another dtype through `[...]` keeps the variable's
# shape and dtype.
st = jax.tree.map(lambda v: v, nnx.state(m))
st["a"][...] = 1.0
st["b"][...] = jnp.array([1, 2, 3])
print(st["a"][...], st["b"][...], st["b"][...].dtype)
