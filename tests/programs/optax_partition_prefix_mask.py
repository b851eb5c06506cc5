import jax
import jax.numpy as jnp
import optax
from flax import nnx

# Labels that are a prefix of the parameters' tree (one label per
# variable) select whole subtrees.
model = nnx.Linear(3, 2, rngs=nnx.Rngs(4))
labels = nnx.map_state(lambda p, v: 'slow' if p[-1] == 'kernel' else 'fast', nnx.state(model, nnx.Param))
tx = optax.partition({'slow': optax.adam(0.001), 'fast': optax.sgd(0.1)}, labels)
opt = nnx.Optimizer(model, tx, wrt=nnx.Param)
inner = opt.opt_state.inner_states
print(inner['slow'].inner_state[0].mu['kernel'])
print(jax.tree.structure(inner['fast']))

x = jnp.arange(6.0).reshape(2, 3) / 6
for i in range(3):
  loss, grads = nnx.value_and_grad(lambda m: jnp.sum(m(x) ** 2))(model)
  opt.update(model, grads)
  print(i, f"{loss:.5f}")
print(inner['slow'].inner_state[0].count)

# The same prefix labels on a plain dict of arrays.
params = {'w': jnp.ones((2, 2)), 'b': {'c': jnp.ones(2), 'd': jnp.zeros(3)}}
tx2 = optax.partition({'x': optax.sgd(1.0), 'y': optax.sgd(0.5)}, {'w': 'x', 'b': 'y'})
st = tx2.init(params)
upd, st = tx2.update(jax.tree.map(jnp.ones_like, params), st, params)
print(upd)
result = upd['b']['d']
