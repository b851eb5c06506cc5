# type(x).__name__, __qualname__, __module__ and repr(type(x)) for the
# objects JAX, Flax, Optax and NumPy programs hold, and for the program's
# own classes and Python's types; nnx.List as a class.
import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import nnx
from flax.core import FrozenDict
from jax.sharding import NamedSharding, PartitionSpec as P


class Local:
    pass


def describe(label, x):
    t = type(x)
    print(label, t.__name__, t.__qualname__, t.__module__, repr(t))


mesh = jax.make_mesh((2, 4), ("data", "model"))
model = nnx.Linear(2, 3, rngs=nnx.Rngs(0))
graphdef, state = nnx.split(model)
for label, x in [
    ("mesh", mesh),
    ("spec", P("data")),
    ("named", NamedSharding(mesh, P("data"))),
    ("device", jax.devices()[0]),
    ("array", jnp.ones(2)),
    ("raw key", jax.random.PRNGKey(0)),
    ("typed key", jax.random.key(0)),
    ("nnx list", nnx.List([1, 2])),
    ("param", nnx.Param(jnp.ones(2))),
    ("batch stat", nnx.BatchStat(jnp.zeros(2))),
    ("linear", model),
    ("norm", nnx.LayerNorm(3, rngs=nnx.Rngs(0))),
    ("dropout", nnx.Dropout(0.5)),
    ("rngs", nnx.Rngs(0)),
    ("state", state),
    ("graphdef", graphdef),
    ("frozen", FrozenDict({"a": 1})),
    ("transform", optax.adam(1e-3)),
    ("adam state", optax.adam(1e-3).init(jnp.ones(2))[0]),
    ("empty state", optax.sgd(1e-3).init(jnp.ones(2))),
    ("np array", np.ones(2)),
    ("np scalar", np.float32(1)),
    ("float32 dtype", jnp.ones(2).dtype),
    ("int8 dtype", jnp.ones(2, jnp.int8).dtype),
    ("uint32 dtype", jnp.ones(2, jnp.uint32).dtype),
    ("bool dtype", jnp.ones(2, bool).dtype),
    ("bfloat16 dtype", jnp.ones(2, jnp.bfloat16).dtype),
    ("local", Local()),
    ("int", 3),
    ("list", [1]),
    ("tuple", ()),
    ("none", None),
]:
    describe(label, x)

# nnx.List is a class: type() gives it back, calling it makes a list.
layers = nnx.List([nnx.Linear(2, 2, rngs=nnx.Rngs(1))])
print(type(layers) is nnx.List, type(layers) == nnx.List, isinstance(layers, nnx.List), isinstance([1], nnx.List))
again = type(layers)([3, 4])
print(type(again).__name__, list(again), len(again), repr(nnx.List))
print(type(jnp.ones(2).dtype) == type(jnp.zeros(3).dtype), type(jnp.ones(2).dtype) == type(jnp.ones(2, jnp.int32).dtype))
print(type(P("x")) is P, isinstance(P("x"), type(P())), jnp.float32.__qualname__, np.float64.__qualname__)
print(Local.__module__, Local.__qualname__, nnx.Module.__module__, nnx.Linear.__module__, nnx.Rngs.__name__)
result = len(layers)
