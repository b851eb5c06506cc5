import jax
import jax.numpy as jnp
import flax.linen as nn

x = jax.random.normal(jax.random.key(1), (4, 3))

# One Dense per row: parameters stacked along axis 0, each from its own key.
BatchDense = nn.vmap(
    nn.Dense, in_axes=0, out_axes=0, variable_axes={"params": 0}, split_rngs={"params": True}
)
m = BatchDense(2)
v = m.init(jax.random.key(0), x)
print(jax.tree_util.tree_map(jnp.shape, v))
print(v["params"]["kernel"][:, :, 0])
print(m.apply(v, x))

# One Dense shared by every row.
SharedDense = nn.vmap(
    nn.Dense, in_axes=0, out_axes=0, variable_axes={"params": None}, split_rngs={"params": False}
)
s = SharedDense(2)
vs = s.init(jax.random.key(0), x)
print(jax.tree_util.tree_map(jnp.shape, vs))
print(s.apply(vs, x))
print(jnp.allclose(s.apply(vs, x), nn.Dense(2).apply(vs, x)))


# Inside a module, mapped over axis 1 of the input with an unmapped second
# argument, per-instance dropout keys and the outputs on axis 1.
class Head(nn.Module):
    @nn.compact
    def __call__(self, x, bias):
        h = nn.Dense(3)(x) + bias
        return nn.Dropout(0.5, deterministic=False)(h)


class Heads(nn.Module):
    @nn.compact
    def __call__(self, x):
        Mapped = nn.vmap(
            Head,
            in_axes=(1, None),
            out_axes=1,
            variable_axes={"params": 0},
            split_rngs={"params": True, "dropout": True},
        )
        return Mapped(name="heads")(x, 1.0)


xh = jax.random.normal(jax.random.key(2), (2, 5, 4))
heads = Heads()
vh = heads.init({"params": jax.random.key(3), "dropout": jax.random.key(4)}, xh)
print(jax.tree_util.tree_map(jnp.shape, vh))
yh = heads.apply(vh, xh, rngs={"dropout": jax.random.key(5)})
print(yh.shape)
print(yh[:, :, 0])
print(nn.vmap(Head).__name__)
result = yh
