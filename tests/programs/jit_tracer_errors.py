import jax, numpy as np, jax.numpy as jnp
import jax.errors
x = jnp.arange(3.0)
n = jnp.int32(3)
def attempt(name, f, *args):
    try:
        f(*args)
        print(name, "ran")
    except Exception as e:
        print(name, type(e).__name__, isinstance(e, TypeError), "|", str(e).split("\n")[0])
attempt("if", jax.jit(lambda v: v if v[0] > 0 else -v), x)
attempt("while", jax.jit(lambda k: [k for _ in range(0)] if k else None), n)
attempt("and", jax.jit(lambda a, b: a and b), n, n)
attempt("not", jax.jit(lambda a: not a), n)
attempt("bool_many", jax.jit(lambda v: bool(v)), x)
attempt("zeros", jax.jit(lambda k: jnp.zeros((k,))), n)
attempt("reshape", jax.jit(lambda v: jnp.reshape(v, (v[0],))), x)
attempt("range", jax.jit(lambda k: sum(range(k))), n)
attempt("int", jax.jit(lambda k: int(k)), n)
attempt("float", jax.jit(lambda v: float(v[0])), x)
attempt("asarray", jax.jit(lambda v: np.asarray(v)), x)
attempt("index", jax.jit(lambda k: [1, 2, 3, 4][k]), n)
attempt("item", jax.jit(lambda v: v[0].item()), x)
attempt("tolist", jax.jit(lambda v: v.tolist()), x)
attempt("arange", jax.jit(lambda k: jnp.arange(k)), n)
attempt("grad_if", jax.grad(jax.jit(lambda v: v if v > 0 else -v)), 1.0)
try:
    jax.jit(lambda v: "text")(x)
except TypeError as e:
    print("str_out", type(e).__name__, "not a valid JAX type" in str(e))
try:
    jax.jit(lambda v: 1 if v[0] > 0 else 2)(x)
except jax.errors.ConcretizationTypeError as e:
    print("caught", type(e).__name__, isinstance(e, jax.errors.TracerBoolConversionError))
try:
    jax.jit(lambda k: [0][k])(n)
except jax.errors.TracerIntegerConversionError as e:
    print("caught", type(e).__name__, isinstance(e, jax.errors.ConcretizationTypeError))
try:
    jax.jit(lambda v: np.array(v))(x)
except jax.errors.TracerArrayConversionError as e:
    print("caught", type(e).__name__)
result = jax.grad(lambda v: v if v > 0 else -v)(-2.0)
