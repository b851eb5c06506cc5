# The state of NumPy's legacy generator: get_state gives MT19937's 624-word
# key (a uint32 array), the position in it and the cached normal; set_state
# puts a generator back where it was, so its draws repeat.
import jax.numpy as jnp
import numpy as np

np.random.seed(7)
state = np.random.get_state()
print(state[0], state[1].dtype, state[1].shape, state[2], state[3], state[4])
print(str(state)[:240])
first = jnp.asarray(np.random.normal(size=5))
after = np.random.get_state()
print(after[2], after[3], f"{after[4]:.12f}")
print(repr(after[1][:6]))
np.random.seed(123)
np.random.set_state(state)
print(jnp.asarray(np.random.normal(size=5)) - first)

rs = np.random.RandomState(11)
rs.standard_normal()
saved = rs.get_state()
x = [rs.standard_normal() for _ in range(3)]
rs.set_state(saved)
y = [rs.standard_normal() for _ in range(3)]
print(x == y, saved[3])
result = jnp.asarray(y)
