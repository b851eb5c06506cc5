# Questions about dtypes and shapes: issubdtype against NumPy's abstract
# classes, result_type's promotion without x64, broadcast_shapes.
import jax
import jax.numpy as jnp

concrete = {"float32": jnp.float32, "float64": jnp.float64, "int32": jnp.int32,
            "int64": jnp.int64, "uint32": jnp.uint32, "bool_": jnp.bool_,
            "complex64": jnp.complex64, "float": float, "int": int, "bool": bool,
            "complex": complex}
abstract = {"floating": jnp.floating, "integer": jnp.integer, "inexact": jnp.inexact,
            "number": jnp.number, "signedinteger": jnp.signedinteger,
            "unsignedinteger": jnp.unsignedinteger, "complexfloating": jnp.complexfloating,
            "generic": jnp.generic, "bool_": jnp.bool_}
for name, d in concrete.items():
    row = [k for k, c in abstract.items() if jnp.issubdtype(d, c)]
    print(name, row)
print(jnp.issubdtype(jnp.floating, jnp.inexact), jnp.issubdtype(jnp.number, jnp.floating))
print(jnp.issubdtype(jnp.arange(3).dtype, jnp.integer), jnp.issubdtype(jnp.ones(2), jnp.floating))
print(jnp.issubdtype("float32", jnp.number), jnp.issubdtype(bool, jnp.bool_))
print(jnp.floating, jnp.integer)

for name, d in concrete.items():
    print(name, " ".join(str(jnp.result_type(d, e)) for e in concrete.values()))
print(jnp.result_type(jnp.ones(2), 1), jnp.result_type(jnp.ones(2, jnp.int32), 1.0))
print(jnp.result_type(1, 2), jnp.result_type(1.0), jnp.result_type(jnp.uint32(3), 2))
print(jnp.result_type(jnp.int32, 1.0, jnp.uint32), repr(jnp.result_type(float, jnp.float32)))

print(jnp.broadcast_shapes((2, 1), (3,)), jnp.broadcast_shapes([2, 1], (1, 4)),
      jnp.broadcast_shapes((5,), ()), jnp.broadcast_shapes(), jnp.broadcast_shapes(3, (2, 3)))


def scale(v, z):
    v, z = jnp.asarray(v), jnp.asarray(z)
    assert jnp.issubdtype(v.dtype, jnp.integer)
    z = z.astype(jnp.result_type(float, z.dtype))
    return z * v


print(jax.jit(scale)(2, jnp.arange(3)))
try:
    jnp.broadcast_shapes((2, 3), (4, 1, 2))
except ValueError as e:
    print("ValueError:", e)
try:
    jnp.result_type()
except ValueError as e:
    print("ValueError:", e)
result = [jnp.broadcast_shapes((4, 1), (1, 5)), str(jnp.result_type(jnp.bool_, 2.0))]
