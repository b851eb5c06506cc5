# jax.numpy's scalar types are classes, not dtypes: how they print, call,
# compare with dtypes and NumPy's types, hash as dict keys and set members,
# and answer isinstance/issubclass; NumPy's types of the same names.
import copy
import jax
import jax.numpy as jnp
import numpy as np

x = jnp.ones(3)
print(repr(jnp.float32), jnp.int32, f"{jnp.bfloat16}|{jnp.uint8!r}", [jnp.bool_, jnp.complex64, jnp.int8])
print(type(jnp.float32), type(jnp.float32).__name__, jnp.float32.__name__, jnp.int16.__module__)
print(repr(jnp.float32(3)), repr(jnp.int32(2.7)), repr(jnp.bool_(1)), repr(jnp.float16([1, 2])))
print(repr(jnp.uint16(7)), repr(jnp.complex64(1 + 2j)), repr(jnp.float32(x)))

# The dtype each stands for.
print(repr(jnp.float32.dtype), jnp.int8.dtype, jnp.bfloat16.dtype, jnp.float32.dtype.itemsize)
print(repr(jnp.dtype(jnp.float32)), repr(np.dtype(jnp.int32)), repr(jnp.dtype(jnp.bfloat16)))
print(repr(x.astype(jnp.int32)), repr(jnp.zeros(2, dtype=jnp.bfloat16)), repr(jnp.asarray([1, 2], jnp.float16)))
print(repr(jnp.arange(3, dtype=jnp.uint8)), repr(jnp.result_type(jnp.float32, jnp.int32)))
print(repr(jnp.promote_types(jnp.bfloat16, jnp.float32)), jnp.iinfo(jnp.int16).max, jnp.finfo(jnp.bfloat16).bits)

# Equality with dtypes, NumPy's types and names; identity.
print(x.dtype == jnp.float32, jnp.float32 == x.dtype, x.dtype == jnp.int32, jnp.float32 != jnp.int32)
print(jnp.float32 == np.float32, np.float32 == jnp.float32, jnp.float32 == "float32", jnp.dtype("float32") == jnp.float32)
print(jnp.float32 is jnp.float32, jnp.single is jnp.float32, jnp.float32 is np.float32, jnp.bool_ is jnp.bool)
print(x.dtype.type is jnp.float32, x.dtype.type is np.float32, x.dtype.type == jnp.float32)
print(jnp.ones(2, jnp.int8).dtype.type, jnp.ones(2, jnp.bfloat16).dtype.type, jnp.ones(2, jnp.int32).dtype.type)

# As dict keys and set members they are classes, hashed apart from dtypes.
names = {jnp.float32: "f", jnp.int32: "i"}
print(names[jnp.float32], names.get(np.float32), names.get(x.dtype), x.dtype in names, jnp.int32 in names)
print(x.dtype in (jnp.float32, jnp.bfloat16), jnp.int32 in [jnp.float32], jnp.float32 in [x.dtype])
print({jnp.float32, np.float32, x.dtype}, len({jnp.int32, jnp.int32, jnp.uint32}))
by_dtype = {x.dtype: "dtype"}
print(by_dtype.get(jnp.float32), by_dtype.get(x.dtype), hash(jnp.float32) == hash(np.float32))

# isinstance and issubclass.
print(isinstance(x, jnp.float32), isinstance(np.float32(1), jnp.float32), isinstance(1.0, jnp.float32))
print(isinstance(np.int32(1), jnp.int32), isinstance(np.float32(1), (jnp.int32, jnp.float32)))
print(issubclass(jnp.float32, jnp.floating), issubclass(jnp.float32, jnp.float32), issubclass(jnp.float32, object))
print(issubclass(np.float32, np.floating), issubclass(np.int32, np.integer), issubclass(jnp.floating, jnp.inexact))
print(jnp.issubdtype(jnp.float32, jnp.floating), jnp.issubdtype(jnp.int32, jnp.integer), jnp.issubdtype(jnp.bfloat16, jnp.inexact))

# NumPy's types without host arrays print under numpy's name.
print(repr(np.complex64), repr(np.int8), repr(np.float16), np.int16 == jnp.int16, np.uint16 is jnp.uint16)

# Carried through programs: in configs, copies, closures and jit.
config = {"dtype": jnp.bfloat16, "layers": [jnp.float32, jnp.int32]}
print(config, copy.deepcopy(config)["dtype"] is jnp.bfloat16, copy.copy(config))


def cast(v, dtype=jnp.float16):
    return v.astype(dtype) * 2


print(repr(jax.jit(cast)(x)), repr(jax.jit(cast, static_argnums=1)(x, jnp.int32)))
print(repr(jnp.array([1.5, 2.5], dtype=jnp.float32).astype(jnp.int8)), jnp.dtype(jnp.float32).name)
result = float(jnp.float32(2.5) + jnp.int32(1))
