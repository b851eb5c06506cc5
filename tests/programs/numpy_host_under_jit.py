# NumPy computes on the host even while a function is traced: NumPy of
# concrete values (a shape's product) is a number that may size an array,
# and a float32 scalar made from a constant enters a traced program as a
# float32 literal.
import jax
import jax.numpy as jnp
import numpy as np

@jax.jit
def flatten(x):
    n = np.prod(x.shape)
    print("n =", n)
    return x.reshape((n,))

print(flatten(jnp.ones((2, 3))))
print(jax.make_jaxpr(lambda x: x * jnp.float32(1.67))(1.0))
result = flatten(jnp.arange(6.0).reshape(2, 3))
