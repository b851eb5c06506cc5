# Building sharded arrays shard by shard: make_array_from_callback (which
# index each device asks for, and how often), from single-device arrays, and
# from process-local data.
import numpy as np
import jax
import jax.numpy as jnp
from jax.sharding import Mesh, NamedSharding, SingleDeviceSharding, PartitionSpec as P

mesh = jax.make_mesh((2, 4), ("rows", "cols"))
table = np.arange(48, dtype=np.float32).reshape(8, 6) / 4

asked = []


def fetch(index):
    asked.append(index)
    print("fetch", index)
    return table[index]


by_rows = jax.make_array_from_callback((8, 6), NamedSharding(mesh, P("rows")), fetch)
print(len(asked), by_rows.sum(), jax.typeof(by_rows))
print(by_rows.sharding)
for shard in by_rows.addressable_shards[2:6]:
    print(shard.device, shard.index, shard.replica_id, shard.data.shape)

tiles = jax.make_array_from_callback(
    (8, 6), NamedSharding(mesh, P("cols", "rows")), lambda i: table[i] * 2
)
print(tiles.sharding.spec, jax.typeof(tiles), np.asarray(tiles)[5, 4])
print([s.index for s in tiles.addressable_shards[:3]])

cols = jax.make_array_from_callback(
    (8, 4), NamedSharding(mesh, P(None, "cols")),
    lambda i: (print("cols", i), np.full((8, 1), i[1].start, np.int32))[1],
)
print(np.asarray(cols)[0], cols.dtype)

asked.clear()
whole = jax.make_array_from_callback((8, 6), NamedSharding(mesh, P()), fetch)
print(len(asked), whole.is_fully_replicated, jax.typeof(whole))

scalar = jax.make_array_from_callback((), NamedSharding(mesh, P()), lambda i: (print("scalar", i), 1.5)[1])
print(scalar, jax.typeof(scalar), scalar.dtype)

one = jax.make_array_from_callback(
    (3,), SingleDeviceSharding(jax.devices()[5]), lambda i: (print("one", i), np.arange(3))[1]
)
print(one, one.sharding, one.devices())

shuffled = Mesh(np.array(jax.devices())[::-1].reshape(2, 4), ("a", "b"))
back = jax.make_array_from_callback(
    (4, 4), NamedSharding(shuffled, P("b", "a")),
    lambda i: (print("back", i), jnp.asarray(table[:4, :4][i]))[1],
)
print(back.addressable_shards[0].device, back.addressable_shards[0].index)

rows_sharding = NamedSharding(mesh, P("rows"))
places = rows_sharding.addressable_devices_indices_map((8, 6))
print(list(places.items())[3])
pieces = [jax.device_put(table[idx] + 100, d) for d, idx in places.items()]
glued = jax.make_array_from_single_device_arrays((8, 6), rows_sharding, pieces[::-1])
print(np.asarray(glued)[:, 0], jax.typeof(glued), glued.sharding.spec)

local = jax.make_array_from_process_local_data(rows_sharding, table)
print(local.sharding.spec, jax.typeof(local), local.sum())
tree = jax.make_array_from_process_local_data(
    NamedSharding(mesh, P("cols")), {"w": table[:4], "b": table[0, :4]}
)
print(jax.typeof(tree["w"]), jax.typeof(tree["b"]))
with jax.set_mesh(mesh):
    ctx = jax.make_array_from_process_local_data(P(None, "rows"), table, (8, 6))
    print(ctx.sharding.spec)


def attempt(label, f):
    try:
        f()
        print(label, "ok")
    except (ValueError, TypeError) as e:
        print(label, isinstance(e, ValueError), isinstance(e, TypeError), e)


attempt("short", lambda: jax.make_array_from_callback((8, 6), rows_sharding, lambda i: table[i][:2]))
attempt("dtypes", lambda: jax.make_array_from_callback(
    (8, 6), rows_sharding, lambda i: table[i].astype(np.int32) if i[0].start else table[i]))
attempt("asked dtype", lambda: jax.make_array_from_callback((8, 6), rows_sharding, fetch, dtype=jnp.int32))
attempt("spec", lambda: jax.make_array_from_callback((8, 6), P("rows"), fetch))
attempt("list", lambda: jax.make_array_from_callback((8, 6), rows_sharding, lambda i: [1.0]))
attempt("count", lambda: jax.make_array_from_single_device_arrays((8, 6), rows_sharding, pieces[:3]))
attempt("same device", lambda: jax.make_array_from_single_device_arrays(
    (8, 6), rows_sharding, [jnp.asarray(table[:4])] * 8))
attempt("local shape", lambda: jax.make_array_from_process_local_data(rows_sharding, table, (16, 6)))

result = glued
