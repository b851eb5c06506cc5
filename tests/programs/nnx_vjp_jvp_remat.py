# nnx.vjp and nnx.jvp in tree mode (graph mode with graph updates is
# Flax's NotImplementedError), and nnx.remat in both modes.
import jax
import jax.numpy as jnp
from flax import nnx

model = nnx.Linear(2, 3, rngs=nnx.Rngs(0))
x = jnp.array([[1.0, -2.0]])


def loss_fn(m, x):
    return jnp.sum(jnp.tanh(m(x)))


out, vjp_fn = nnx.vjp(loss_fn, model, x, graph=False)
m_ct, x_ct = vjp_fn(jnp.float32(2.0))
print(out, type(m_ct).__name__)
print(m_ct.kernel[...], m_ct.bias[...], x_ct)

out2, vjp_fn2 = nnx.vjp(loss_fn, model, x, graph=True, graph_updates=False)
m_ct2, x_ct2 = vjp_fn2(jnp.ones_like(out2))
print(out2, m_ct2.kernel[...], x_ct2)


@nnx.vjp(graph=False, has_aux=True)
def with_aux(m, x):
    y = m(x)
    return jnp.sum(y ** 2), {"mean": y.mean()}


o3, f3, aux3 = with_aux(model, x)
print(o3, aux3["mean"], f3(jnp.float32(1.0))[0].bias[...])

tangent = jax.tree.map(jnp.zeros_like, model)
tangent.kernel[...] = jnp.ones((2, 3))
p, t = nnx.jvp(loss_fn, (model, x), (tangent, jnp.zeros_like(x)), graph=False)
print(p, t)
tangent.bias[...] = jnp.array([0.5, -1.0, 2.0])
p2, t2 = nnx.jvp(graph=False)(loss_fn)((model, x), (tangent, jnp.zeros_like(x)))
print(p2, t2)

for name, f in [("vjp", lambda: nnx.vjp(loss_fn, model, x)),
                ("jvp", lambda: nnx.jvp(loss_fn, (model, x), (tangent, x)))]:
    try:
        f()
    except NotImplementedError as e:
        print(name, "NotImplementedError:", e)


class Counter(nnx.Module):
    def __init__(self):
        self.w = nnx.Param(jnp.array([0.5, -1.5, 2.0]))
        self.n = nnx.BatchStat(jnp.array(0))

    def __call__(self, x):
        self.n[...] += 1
        return jnp.sin(self.w * x)


c = Counter()
o, fn = nnx.vjp(lambda c, x: c(x).sum(), c, jnp.float32(1.5), graph=False)
print(o, c.n[...], fn(jnp.float32(1.0))[0].w[...])


class Block(nnx.Module):
    def __init__(self, rngs):
        self.lin = nnx.Linear(3, 3, rngs=rngs)
        self.calls = nnx.BatchStat(jnp.array(0))

    def __call__(self, x):
        self.calls[...] += 1
        return jax.nn.gelu(self.lin(x))


blk = Block(nnx.Rngs(1))
h = jnp.array([[0.1, 0.2, -0.3]])
step = nnx.remat(lambda b, h: b(b(h)))
print(step(blk, h), blk.calls[...])
grads = nnx.grad(lambda b, h: step(b, h).sum())(blk, h)
print(grads["lin"]["kernel"][...], blk.calls[...])


@nnx.remat(policy=jax.checkpoint_policies.nothing_saveable, graph=False)
def tree_step(b, h):
    return b(h) * 2.0


print(tree_step(blk, h), blk.calls[...])
g2 = nnx.grad(lambda b: tree_step(b, h).sum())(blk)
print(g2["lin"]["bias"][...], blk.calls[...])
print(nnx.remat(Block.__call__)(blk, h), blk.calls[...])
try:
    nnx.remat(blk.__call__)
except ValueError as e:
    print("ValueError:", e)
