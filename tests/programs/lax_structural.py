import jax
import jax.numpy as jnp
from jax import lax

m = jnp.arange(20.0).reshape(4, 5)
print(lax.slice(m, (1, 0), (4, 5), (2, 2)))
print(lax.slice_in_dim(m, -3, None, axis=0))
print(lax.slice_in_dim(m, 1, 5, stride=3, axis=1))
print(lax.index_in_dim(m, -1, axis=1))
print(lax.index_in_dim(m, 2, keepdims=False))

v = jnp.array([3, 1, 4, 1, 5], dtype=jnp.int32)
print(lax.pad(v, 9, [(1, 2, 2)]))
print(lax.pad(v, 0, [(-2, -1, 1)]))
print(lax.pad(m, -1.0, [(1, -1, 0), (0, 1, 1)]))

col = jnp.array([[1.5], [2.5]])
print(lax.broadcast(v, (2,)).shape, lax.broadcast(col, (3, 1)).shape)
print(lax.broadcast_in_dim(col, (2, 4, 3), (0, 2)))
print(lax.broadcast_in_dim(col, (3, 2), (1, 0)))
print(lax.broadcast_like(jnp.float32(2.0), m))
print(lax.stack([v, v * 2], axis=-1))
parts = lax.unstack(m, axis=1)
print(len(parts), parts[3])
print(lax.tile(col, (2, 3)))
print(lax.optimization_barrier((m[0], {"k": v})))

r = jnp.array([-2.5, -1.5, -0.5, -0.3, 0.0, 0.5, 1.5, 2.5, 2.7, jnp.nan])
print(lax.round(r))
print(lax.round(r, lax.RoundingMethod.TO_NEAREST_EVEN))
print(lax.round(r, 1))
print(lax.RoundingMethod.AWAY_FROM_ZERO)
print(lax.nextafter(jnp.float32(1.0), jnp.float32(2.0)) - 1.0)
print(lax.nextafter(jnp.array([1.0, -1.0, 0.0, 3.0]), jnp.array([0.0, -2.0, -1.0, 3.0])))

x = jnp.array([[4.0, 8.0, 1.0, 8.0, 3.0], [0.0, -1.0, 7.0, 7.0, 2.0]])
vals, idx = lax.top_k(x, 3)
print(vals, idx)
print(lax.approx_max_k(x, 2))
print(lax.approx_min_k(x, 2, reduction_dimension=0))

print(lax.associative_scan(jnp.add, jnp.arange(1, 8)))
print(lax.associative_scan(jnp.multiply, jnp.arange(1.0, 7.0), reverse=True))
print(lax.associative_scan(jnp.maximum, x, axis=1))
pairs = (jnp.array([1.0, 2.0, 3.0, 4.0]), jnp.array([0.5, 0.5, 2.0, 1.0]))
print(lax.associative_scan(lambda a, b: (a[0] * b[0], a[1] * b[0] + b[1]), pairs))


@jax.jit
def f(a):
    return lax.tile(lax.slice_in_dim(a, 1, 3), (2, 1)).sum() + lax.top_k(a[0], 2)[0].sum()


print(f(m))
print(jax.grad(lambda a: lax.pad(a, 0.0, [(1, 1, 1), (0, 0, 0)]).sum() * 2.0)(m[:2]))
print(jax.vmap(lambda row: lax.index_in_dim(row, 1, keepdims=False))(m))
try:
    lax.index_in_dim(m, 4)
except IndexError as e:
    print("IndexError:", e)
try:
    lax.round(v)
except TypeError as e:
    print("TypeError:", e)


def row_fn(r):
    print("row shape:", r["a"].shape)
    return {"s": r["a"].sum() * r["b"], "t": r["a"][::-1]}


tree = {"a": jnp.arange(21.0).reshape(7, 3), "b": jnp.arange(7.0)}
out = lax.map(row_fn, tree, batch_size=3)
print(out["s"], out["t"].shape)
print(lax.map(lambda v: v * 2, jnp.arange(6), batch_size=2))
print(lax.map(lambda v: v + 1, jnp.arange(4), batch_size=8))
