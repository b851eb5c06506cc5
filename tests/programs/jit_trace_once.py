import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
from functools import partial
traces = []
count = 0
@jax.jit
def step(x, params):
    global count
    count += 1
    traces.append(x.shape)
    print("tracing", count, x, params["w"])
    y = x * params["w"] + params["b"]
    return {"y": y, "n": jnp.sum(y), "none": None}
params = {"w": jnp.float32(2.0), "b": jnp.ones(3)}
x = jnp.arange(3.0)
for i in range(3):
    out = step(x + i, params)
    print(count, out["y"], out["n"], out["none"])
out4 = step(jnp.arange(4.0), {"w": jnp.float32(2.0), "b": jnp.ones(4)})
print(count, traces, out4["n"])
one = jax.jit(lambda: 1)()
half = jax.jit(lambda: (1.5, True, None))()
print(one, type(one) is int, half[0], half[1], half[2])
print(jax.make_jaxpr(step)(x, params))
inner = jax.jit(lambda v: jnp.sin(v) * 2.0)
print(jax.make_jaxpr(lambda v: inner(jnp.exp(v)) + 1.0)(x))
g = jax.grad(lambda v: jnp.sum(inner(v) ** 2))(x)
vm = jax.vmap(inner)(jnp.ones((2, 3)))
mesh = Mesh(np.array(jax.devices()[:4]), ('d',))
body = jax.jit(lambda v: jax.lax.psum(inner(v), 'd'))
sm = jax.shard_map(body, mesh=mesh, in_specs=P('d'), out_specs=P())(jnp.arange(8.0))
around = jax.jit(jax.shard_map(lambda v: v * 2.0, mesh=mesh, in_specs=P('d'), out_specs=P('d')))(jnp.arange(8.0))
kw = jax.jit(lambda a, scale=1.0: a * scale)(x, scale=3.0)
print(g, vm, sm, around, kw)
with jax.named_scope("block"):
    done = jax.block_until_ready(step(x, params))
jax.effects_barrier()
print(done["y"].block_until_ready())
result = [out["y"], out4["n"], g, vm, sm, around, kw, count]
