# Weak types of results computed from Python scalars, promotion with
# Python's types, the bfloat16 dtype's repr, .at[] with
# wrap_negative_indices=False, and NumPy arrays as collections.
from collections.abc import Iterable, Sized
import jax.numpy as jnp
import numpy as np
from flax import nnx

print(repr(jnp.reciprocal(2)), repr(jnp.reciprocal(0.)), repr(jnp.reciprocal(jnp.arange(1, 3))))
print(repr(jnp.imag(4)), repr(jnp.imag(2.5)), repr(jnp.imag(jnp.ones(2))))
print(repr(jnp.logical_not(1)), repr(jnp.logical_not(0.0)), repr(jnp.logical_not(jnp.array([0, 2]))))
print(jnp.promote_types('uint8', int), jnp.promote_types('float16', float), jnp.promote_types(int, 'int8'))
print(jnp.promote_types(float, 'bfloat16'), jnp.promote_types(complex, 'float16'), jnp.promote_types('int16', 'uint8'))
print(repr(jnp.result_type(1.0, jnp.bfloat16(2))), repr(jnp.zeros(2, jnp.bfloat16).dtype), repr(jnp.dtype('float16')))
x = jnp.arange(5.0)
print(repr(x.at[-1].set(99, wrap_negative_indices=False, mode='drop')))
print(repr(x.at[-1].set(99, mode='drop')), repr(x.at[jnp.array([-2, 1])].add(10, wrap_negative_indices=False, mode='drop')))
print(repr(x.at[-1].get(wrap_negative_indices=False, mode='fill')), repr(x.at[-1].get(wrap_negative_indices=False, mode='fill', fill_value=-7)))
print(isinstance(np.array(1.0), Iterable), isinstance(np.arange(3), Sized), isinstance(3, Iterable))
print(type(nnx.use_eager_sharding(True)))
