# The warnings module seen through catch_warnings(record=True): categories,
# stacklevel, filters by message, category and line, once/module/error
# actions, and a library's deprecation warning.
import warnings
import jax.numpy as jnp
from flax import nnx


def legacy(x):
    warnings.warn(f"legacy({x}) is old", DeprecationWarning, stacklevel=2)
    return x


def show(caught):
    for w in caught:
        print(w.category.__name__, str(w.message), w.lineno, w.filename.endswith("py_warnings.py"))
    print("--", len(caught))


with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    legacy(1)
    warnings.warn("two words")
    warnings.warn(FutureWarning("from an instance"))
    warnings.warn("typed", category=RuntimeWarning)
show(caught)

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("default")
    for i in range(3):
        warnings.warn("in a loop")
    warnings.warn("in a loop")
show(caught)

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("once")
    for i in range(2):
        warnings.warn("only once")
    warnings.warn("only once")
    warnings.warn("a different text")
show(caught)

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    warnings.filterwarnings("ignore", message="quiet")
    warnings.filterwarnings("ignore", category=UserWarning, lineno=51)
    warnings.warn("Quiet please")
    warnings.warn("loud")
    warnings.warn("not on this line")
    warnings.warn("kept", FutureWarning)
show(caught)

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    p = nnx.Param(jnp.arange(3.0))
    print(p.value)
    p.value = jnp.zeros(3)
show(caught)

with warnings.catch_warnings():
    warnings.simplefilter("error")
    try:
        warnings.warn("now an error", UserWarning)
    except UserWarning as e:
        print("caught", type(e).__name__, e, isinstance(e, Warning))

print(issubclass(DeprecationWarning, Warning), issubclass(Warning, Exception))
print(issubclass(UserWarning, (ValueError, Warning)), issubclass(bool, int))
print(warnings.formatwarning("msg", UserWarning, "f.py", 3))
