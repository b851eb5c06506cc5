# dict.keys(), .values() and .items() are live views: they print as
# CPython prints them, see later changes, and keys/items act as sets.
import jax

params = {"w": 1.5, "b": -2, "scale": 3}
keys, values, items = params.keys(), params.values(), params.items()
print(keys)
print(values)
print(items)
params["extra"] = 0
del params["b"]
print(len(keys), "extra" in keys, "b" in keys, list(values))
print(type(keys).__name__, type(values).__name__, type(items).__name__)
print(sorted(keys & {"w", "zzz", "scale"}), sorted(keys - {"w"}), sorted(keys | ["q"]))
print(sorted({"w", "new"} ^ keys))
print(keys == {"w", "scale", "extra"}, keys == {"w"}, values == values, values == params.values())
print(("w", 1.5) in items, ("w", 2) in items, sorted(items)[0])
print(list(reversed(params.keys())), max(params.values()), sum(params.values()))
print(dict(params.items()), {k: v for k, v in zip(params.keys(), params.values())})
print(jax.tree.leaves(params.values()), jax.tree.structure(list(params.values())))
print(f"{params.keys()}")
print(str(params.items()), repr({}.keys()))
try:
    params.keys()[0]
except TypeError as e:
    print("TypeError:", e)
