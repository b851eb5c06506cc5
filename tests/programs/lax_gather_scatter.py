# lax.gather and the lax.scatter family with XLA dimension numbers:
# row and element gathers, windows, batching dimensions, the clip and fill
# modes, scatter-add with repeated indices, set/mul/min/max/sub, under jit,
# vmap and grad.
import jax
import jax.numpy as jnp
from jax import lax

x = jnp.arange(20.0).reshape(4, 5)
rows = jnp.array([[2], [0], [3]])
dn = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))
print(dn)
print(lax.gather(x, rows, dn, (1, 5)))
pts = jnp.array([[0, 1], [3, 4], [2, 2]])
dn2 = lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0, 1), start_index_map=(0, 1))
print(lax.gather(x, pts, dn2, (1, 1)))
win = lax.GatherDimensionNumbers(offset_dims=(1, 2), collapsed_slice_dims=(), start_index_map=(0, 1))
print(lax.gather(x, jnp.array([[1, 1], [3, 4]]), win, (2, 3), mode="clip"))
print(lax.gather(x, jnp.array([[1, 1], [3, 4], [-1, 0]]), win, (2, 3), mode="fill"))
print(lax.gather(x, jnp.array([[3, 4]]), win, (2, 3), mode=lax.GatherScatterMode.FILL_OR_DROP, fill_value=-1.0))
one = lax.GatherDimensionNumbers((), (0,), (0,))
print(lax.gather(jnp.arange(6), jnp.array([[7], [-2]]), one, (1,)))
print(lax.gather(jnp.arange(6), jnp.array([[7], [-2], [1]]), one, (1,), mode="fill"))
cols = lax.GatherDimensionNumbers(offset_dims=(0,), collapsed_slice_dims=(1,), start_index_map=(1,))
print(lax.gather(x, jnp.array([[4], [1]]), cols, (4, 1), mode=lax.GatherScatterMode.PROMISE_IN_BOUNDS))
# One index per batch row: operand_batching_dims pairs x's rows with idx's.
bdn = lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(1,), start_index_map=(1,),
                                 operand_batching_dims=(0,), start_indices_batching_dims=(0,))
print(lax.gather(x, jnp.array([[4], [0], [2], [1]]), bdn, (1, 1)))
print(lax.GatherScatterMode.CLIP, lax.GatherScatterMode.FILL_OR_DROP.value)
print(lax.index_take(x, (jnp.array([0, -1, 6]),), (0,)))
print(lax.index_take(x, (jnp.array([0, 3]), jnp.array([4, 7])), (0, 1)))
print(lax.index_take(m3 := jnp.arange(24).reshape(2, 3, 4), (jnp.array([2, 0]),), (1,)).shape)

sdn = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
                                  scatter_dims_to_operand_dims=(0,))
print(sdn)
upd = jnp.ones((3, 5))
print(lax.scatter_add(x, jnp.array([[1], [1], [3]]), upd, sdn))
print(lax.scatter_sub(x, jnp.array([[0], [9], [2]]), upd * 2, sdn))
print(lax.scatter_add(x, jnp.array([[0], [9], [2]]), upd * 2, sdn, mode="clip"))
edn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                  scatter_dims_to_operand_dims=(0,))
v = jnp.array([5.0, 1.0, 4.0, 2.0])
idx = jnp.array([[1], [3], [1], [0]])
vals = jnp.array([9.0, -1.0, 7.0, 3.0])
print(lax.scatter(v, idx, vals, edn), lax.scatter_mul(v, idx, vals, edn))
print(lax.scatter_min(v, idx, vals, edn), lax.scatter_max(v, idx, vals, edn))
print(lax.scatter_add(jnp.zeros(3, jnp.int32), jnp.array([[0], [2], [0], [5]]), jnp.array([1, 2, 3, 4]), edn))
print(lax.scatter(v, jnp.array([[1], [-1]]), jnp.array([0.0, 8.0]), edn, mode="drop"))
edn2 = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0, 1),
                                   scatter_dims_to_operand_dims=(0, 1))
print(lax.scatter_max(x, pts, jnp.array([100.0, -5.0, 50.0]), edn2))


@jax.jit
def f(x, i, u):
    g = lax.gather(x, i, dn, (1, 5), mode="clip")
    s = lax.scatter_add(x, i, u, sdn)
    return g.sum(axis=1), s[1], lax.scatter(x, i, u, sdn, mode="clip")[3]


print(f(x, jnp.array([[1], [3], [1]]), upd))
print(jax.vmap(lambda r, i: lax.gather(r, i, one, (1,)))(
    x, jnp.array([[[0], [4]], [[1], [1]], [[2], [3]], [[4], [0]]])))
print(jax.vmap(lambda r, i: lax.scatter_add(r, i, jnp.ones(2), edn), (0, None))(x, jnp.array([[0], [0]])))
print(jax.grad(lambda x: (lax.gather(x, rows, dn, (1, 5)) ** 2).sum())(x))
print(jax.grad(lambda u: (lax.scatter_add(v, idx, u, edn) * jnp.arange(4.0)).sum())(vals))
print(jax.grad(lambda w: (lax.scatter_mul(w, idx, vals, edn) * jnp.arange(4.0)).sum())(v))
print(jax.grad(lambda u: lax.scatter(v, idx, u, edn).sum())(vals))
print(jax.grad(lambda u: lax.scatter_max(v, idx, u, edn).sum())(vals))

result = lax.gather(x, pts, dn2, (1, 1))
