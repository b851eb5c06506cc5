import jax
import jax.numpy as jnp
import numpy as np

# NumPy's scalars are Python's numbers and strings and NumPy's scalar
# objects; jnp's also every array of rank 0.
cases = [1, 2.5, 1 + 2j, True, "s", b"b", None, [1], (), slice(3),
         np.float32(1), np.int64(2), np.array(1.0), np.array([1]),
         jnp.array(1), jnp.int32(4), jnp.array([1.0]), jnp.zeros((2, 2))]
print([np.isscalar(c) for c in cases])
print([jnp.isscalar(c) for c in cases])
print(jax.jit(jnp.isscalar)(1.0), jax.jit(lambda x: jnp.isscalar(x))(jnp.ones(2)))

# iterable: whether iter() takes it.
print([np.iterable(c) for c in [[1], (), "ab", 3, 2.0, None, np.array(1.0),
                                np.arange(3), jnp.array(2), jnp.arange(2), {"a": 1}, range(2)]])
print(jnp.iterable(jnp.ones((2, 2))), jnp.iterable(jnp.float32(1)))

# s_ gives the key itself, index_exp always a tuple.
print(np.s_[2::2], np.index_exp[2::2], jnp.s_[1, ..., None], jnp.index_exp[:3, 4])
print(np.s_[5], np.index_exp[5], np.s_[()], np.index_exp[::-1, 0])
x = jnp.arange(20).reshape(4, 5)
print(x[jnp.s_[1:3, ::2]], x[jnp.index_exp[-1]], np.arange(6)[np.s_[::3]])

result = [jnp.isscalar(c) for c in cases]
