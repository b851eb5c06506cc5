# The limits jnp.finfo gives are NumPy scalars of the dtype (ml_dtypes'
# scalar for bfloat16): their repr, str, type, f-strings, and how they mix
# with JAX arrays and Python numbers; finfo's own repr and str; iinfo.
# stdout: exact digits
import jax.numpy as jnp
import numpy as np
from jax import dtypes

f32 = jnp.finfo(jnp.float32)
for name in ["eps", "epsneg", "tiny", "smallest_normal", "smallest_subnormal", "max", "min", "resolution"]:
    v = getattr(f32, name)
    print(name, repr(v), str(v), type(v).__name__, f"{v}", f"{v:.3e}")
print(type(f32.eps), f32.eps.dtype, f32.bits, f32.precision, f32.nmant, f32.minexp, f32.maxexp)
print(repr(f32))
print(str(f32))

# Arithmetic: with Python numbers and NumPy scalars it stays NumPy; with
# JAX arrays it is a float32 array.
eps = f32.eps
print(repr(eps * 2.0), repr(2 * eps), repr(eps + eps), repr(-eps), repr(eps + np.float32(1)))
print(repr(jnp.ones(2) * eps), repr(eps + jnp.arange(3.0)), repr(jnp.ones(2, jnp.bfloat16) + eps))
print(float(eps), eps == 2.0**-23, eps < 1e-6, f32.max / 2, repr(jnp.asarray(eps)), repr(jnp.sqrt(eps)))
print(repr(jnp.clip(jnp.array([0.0, 1.0]), eps, 1 - eps)), repr(jnp.finfo("float32").tiny))
print(repr(jnp.finfo(jnp.ones(2)).max), repr(jnp.finfo(jnp.float32).eps) == repr(np.finfo(np.float32).eps))

# The narrow floats: NumPy's float16 scalar and ml_dtypes' bfloat16 one.
for d in [jnp.float16, jnp.bfloat16]:
    fi = jnp.finfo(d)
    for name in ["eps", "epsneg", "tiny", "smallest_subnormal", "max", "min", "resolution"]:
        v = getattr(fi, name)
        print(name, repr(v), str(v), type(v).__name__, f"{v}")
    print(repr(fi), type(fi.eps), fi.eps.dtype, float(fi.eps), fi.eps == fi.eps, -fi.eps)
    print(repr(jnp.ones(2) * fi.eps), repr(fi.eps * jnp.ones(2, d)), repr(jnp.asarray(fi.max)))
    print(str(fi))

# ml_dtypes' bfloat16 type, which jax.dtypes names.
b = dtypes.bfloat16
print(repr(b), b == jnp.bfloat16, jnp.bfloat16 == b, b is jnp.bfloat16, b.__name__, repr(jnp.dtype(b)))
print(repr(b(1.5)), repr(b(0.1)), type(b(2)), isinstance(b(2), b), repr(jnp.zeros(2, dtype=b)), repr(jnp.ones(2).astype(b)))
print(repr(np.float16(0.1)), repr(np.float16(1000)), repr(np.float16(12345)), str(np.float16(100)), isinstance(np.float16(1), np.float16))
print({b: "bf16"}.get(jnp.bfloat16), {jnp.bfloat16: 1}.get(b), b == "bfloat16", b == jnp.dtype("bfloat16"))

# iinfo's limits are Python ints.
for d in [jnp.int8, jnp.uint8, jnp.int16, jnp.uint16, jnp.int32, jnp.uint32]:
    ii = jnp.iinfo(d)
    print(repr(ii), ii.min, ii.max, type(ii.max).__name__, ii.bits, ii.kind, ii.dtype)
print(str(jnp.iinfo(jnp.int32)), jnp.iinfo(jnp.int32).max + 1, jnp.ones(2, jnp.int32) * jnp.iinfo(jnp.int16).max)

# NumPy's other names of its scalar types.
print(np.half, np.int_, np.uint, np.intp, np.uintp, np.csingle, np.cdouble)
print(np.byte, np.ubyte, np.short, np.ushort, np.intc, np.uintc, np.intc is np.int32, np.int_ is np.int64)
print(hasattr(np, "bfloat16"), np.half == jnp.float16, jnp.dtype(np.intc), jnp.dtype(np.ushort))
result = float(jnp.ones(2).sum() * eps)
