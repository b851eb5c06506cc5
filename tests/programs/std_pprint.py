# pprint of configs and shape tables: CPython's layout at width 80.
import pprint

import jax
import jax.numpy as jnp

params = {
    "dense_2": {"kernel": jnp.zeros((64, 10)), "bias": jnp.zeros(10)},
    "dense_1": {"kernel": jnp.zeros((784, 64)), "bias": jnp.zeros(64)},
}
shapes = jax.tree_util.tree_map(lambda a: a.shape, params)
pprint.pprint(shapes)
pprint.pprint({"b": 1, "a": 2})
config = {
    "model": {"layers": [784, 512, 256, 128, 64, 10], "activation": "relu", "dropout": 0.1},
    "optimizer": {"name": "adam", "learning_rate": 0.001, "betas": (0.9, 0.999)},
    "mesh": {"shape": (2, 4), "axes": ("data", "model")},
    "seed": 0,
}
pprint.pprint(config)
pprint.pprint(config, width=60)
pprint.pprint(config, depth=1)
pprint.pprint(config, sort_dicts=False)
pprint.pprint([{"name": "layer%d" % i, "shape": (i, i + 1), "params": i * 1000} for i in range(6)])
pprint.pprint(list(range(30)))
pprint.pprint(list(range(40)), compact=True)
pprint.pprint(list(range(40)), width=30, compact=True)
pprint.pprint({"a": {"b": {"c": {"d": 1}}}}, depth=2)
pprint.pprint({"k": "word " * 30})
pprint.pprint("lorem ipsum dolor sit amet " * 5)
pprint.pp({"y": 1, "x": [1] * 30})
pprint.pprint({"nested": [{"a": i, "b": [i] * 5} for i in range(4)]}, indent=4)
pprint.pprint(((1, 2, 3) * 8,), width=40)
pprint.pprint({1: "a", "b": 2, None: 3, 2.5: 4})
pprint.pprint([[], {}, (), "", [[]], (1,)])
pprint.pprint({"m": [[float(i * j) for j in range(8)] for i in range(4)]})
text = pprint.pformat({"losses": [round(1.0 / (i + 1), 4) for i in range(12)]}, width=50)
print(text)
print(pprint.pformat(12345678, underscore_numbers=True))
result = text
