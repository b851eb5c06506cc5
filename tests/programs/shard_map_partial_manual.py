# shard_map manual over some mesh axes only (axis_names={...}): the body is
# split over the manual axes, sees the whole extent along the others, and
# its collectives run over the manual axes.
import jax
import jax.numpy as jnp
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((2, 4), ("batch", "model"))
auto_mesh = jax.make_mesh((4, 2), ("i", "j"), axis_types=(AxisType.Auto, AxisType.Auto))
x = jnp.arange(48.0).reshape(8, 6) / 8


def row_totals(block):
    print("block", jax.typeof(block), block.shape)
    total = jax.lax.psum(block.sum(axis=1), "batch")
    print("total", jax.typeof(total))
    return block - total[:, None] / 10


f = jax.shard_map(row_totals, mesh=mesh, in_specs=P("batch"), out_specs=P("batch"), axis_names={"batch"})
out = f(x)
print(out)
print(out.sharding, jax.typeof(out))

ranks = jax.shard_map(
    lambda b: b * 0 + jax.lax.axis_index("batch"),
    mesh=mesh, in_specs=P("batch"), out_specs=P("batch"), axis_names=frozenset({"batch"}),
)(x)
print(ranks.sum(axis=1))


def shown(block):
    jax.debug.print("rows {r}", r=block[:, 0])
    return jax.lax.pmax(block, "i")


biggest = jax.shard_map(shown, mesh=auto_mesh, in_specs=P("i"), out_specs=P(), axis_names={"i"})(x)
print(biggest, biggest.sharding, jax.typeof(biggest))

cols = jax.shard_map(
    lambda b: jax.lax.psum(b.sum(axis=1), "j"),
    mesh=auto_mesh, in_specs=P(None, "j"), out_specs=P(), axis_names={"j"},
)(x)
print(cols, cols.sharding, jax.typeof(cols))


def attempt(label, fn):
    try:
        print(label, fn())
    except (NameError, ValueError, TypeError) as e:
        print(label, type(e).__name__, e)


attempt("other axis", lambda: jax.shard_map(
    lambda b: jax.lax.psum(b, "model"), mesh=mesh, in_specs=P("batch"), out_specs=P("batch"),
    axis_names={"batch"})(x))
attempt("in_specs", lambda: jax.shard_map(
    lambda b: b, mesh=mesh, in_specs=P("model"), out_specs=P("model"), axis_names={"batch"})(x))
attempt("out_specs", lambda: jax.shard_map(
    lambda b: b, mesh=mesh, in_specs=P("batch"), out_specs=P("batch", "model"), axis_names={"batch"})(x))
attempt("tuple", lambda: jax.shard_map(
    lambda b: b, mesh=mesh, in_specs=P("batch"), out_specs=P("batch"), axis_names=("batch",))(x))
try:
    jax.shard_map(lambda b: b, mesh=mesh, in_specs=P("batch"), out_specs=P(), axis_names={"batch"})(x)
except ValueError as e:
    print("unmentioned", str(e).split("\n")[2])

result = out
