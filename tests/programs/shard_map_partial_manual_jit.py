# shard_map manual over some mesh axes (axis_names={...}) inside jit: the
# values, the result's sharding over the whole mesh (full-rank spec over
# explicit axes, XLA's spelling over auto ones), jax.typeof inside the
# trace, the staged equation, the compiled shardings and a gradient.
import jax
import jax.numpy as jnp
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((2, 4), ("batch", "model"))
auto_mesh = jax.make_mesh((4, 2), ("i", "j"), axis_types=(AxisType.Auto, AxisType.Auto))
x = jnp.arange(48.0).reshape(8, 6) / 8


def centred(block):
    print("block", jax.typeof(block))
    mean = jax.lax.pmean(block.sum(axis=0), "batch")
    print("mean", jax.typeof(mean))
    return block - mean / 4


@jax.jit
def step(x):
    y = jax.shard_map(centred, mesh=mesh, in_specs=P("batch"), out_specs=P("batch"),
                      axis_names={"batch"})(x * 2)
    print("y", jax.typeof(y))
    return (y + 1).sum(axis=1)


out = step(x)
print(out)
print(out.sharding, jax.typeof(out))
placed = jax.device_put(x, NamedSharding(mesh, P("batch")))
again = step(placed)
print(again.sharding, jax.typeof(again))
print(jax.make_jaxpr(step)(placed))


@jax.jit
def gathered(x):
    y = jax.shard_map(lambda b: jax.lax.psum(b, "i"), mesh=auto_mesh, in_specs=P("i"),
                      out_specs=P(), axis_names={"i"})(x)
    return jnp.sin(y) + 1.0


on_auto = jax.device_put(x, NamedSharding(auto_mesh, P("i")))
s = gathered(on_auto)
print(s, s.sharding, jax.typeof(s))
print(gathered(x).sharding)
print(gathered.lower(on_auto).compile().output_shardings)

whole = jax.jit(jax.shard_map(lambda b: b * 3, mesh=auto_mesh, in_specs=P("j"),
                              out_specs=P("j"), axis_names={"j"}))(x.T)
print(whole.sharding)


def loss(w, x):
    return jax.shard_map(lambda w, b: jax.lax.psum((b @ w).sum(), "i"), mesh=auto_mesh,
                         in_specs=(P(), P("i")), out_specs=P(), axis_names={"i"})(w, x)


w = jnp.ones((6, 3)) / 3
value, grad = jax.jit(jax.value_and_grad(loss))(w, x)
print(value, grad, grad.sharding)

# Over explicit axes a full map's in_specs must match its argument's type,
# inside jit too (an unplaced argument is replicated).
full = jax.shard_map(lambda b: b * 2, mesh=mesh, in_specs=P("batch"), out_specs=P("batch"))
try:
    jax.jit(full)(x)
except ValueError as e:
    print("explicit", str(e).split(". ")[0])
print(jax.jit(full)(placed).sharding)

result = out
