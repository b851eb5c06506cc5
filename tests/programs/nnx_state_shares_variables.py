# The states split, state, variables, pop, State.filter/split/merge and
# merge_state give hold the module's own Variable objects; merge(copy=True),
# clone and jax.tree.map make new ones; nnx.vmap writes back into a State's
# variables.
import jax
import jax.numpy as jnp
from flax import nnx

class Tower(nnx.Module):
  def __init__(self, rngs):
    self.dense = nnx.Linear(3, 2, rngs=rngs)
    self.steps = nnx.BatchStat(jnp.array(0.0))
    self.trace = nnx.Intermediate(jnp.arange(3.0))

tower = Tower(nnx.Rngs(7))
gdef, whole = nnx.split(tower)
print(whole['dense']['kernel'] is tower.dense.kernel, whole.steps is tower.steps)
whole['dense']['bias'].value = jnp.array([0.25, -0.5])
whole.steps[...] = 3.0
print(tower.dense.bias[...], tower.steps[...])

params, stats = nnx.state(tower, nnx.Param, nnx.BatchStat)
params.dense.kernel[...] = jnp.full((3, 2), 0.5)
print(tower.dense.kernel[...].sum(), stats['steps'] is tower.steps)
print(nnx.variables(tower, nnx.Intermediate)['trace'] is tower.trace)
g, p3, rest = nnx.split(tower, nnx.Param, ...)
print(p3['dense']['bias'] is tower.dense.bias, rest['trace'] is tower.trace)

# A state written after it was taken shows the module's later values too.
snap = nnx.state(tower)
tower.steps[...] = 9.0
print(snap['steps'][...])

shared = nnx.merge(gdef, whole)
print(shared.dense.kernel is tower.dense.kernel)
shared.steps[...] = 4.0
print(tower.steps[...])
copied = nnx.merge(gdef, whole, copy=True)
print(copied.dense.kernel is tower.dense.kernel)
copied.steps[...] = 100.0
print(tower.steps[...], copied.steps[...])
twin = nnx.clone(tower)
print(twin.steps is tower.steps, twin.steps[...])

only = whole.filter(nnx.Param)
print(only['dense']['kernel'] is tower.dense.kernel)
a, b = whole.split(nnx.Param, ...)
print(a['dense']['bias'] is tower.dense.bias, b['trace'] is tower.trace)
joined = nnx.merge_state(a, b)
print(joined['steps'] is tower.steps)
print(nnx.State.merge(b)['trace'] is tower.trace)

doubled = jax.tree.map(lambda v: v * 2, whole)
print(doubled['steps'] is tower.steps, doubled['steps'][...], tower.steps[...])

before = tower.steps
nnx.update(tower, nnx.State({'steps': nnx.BatchStat(jnp.array(-1.0))}))
print(tower.steps is before, tower.steps[...])

trace = tower.trace
taken = nnx.pop(tower, nnx.Intermediate)
print(taken['trace'] is trace, taken['trace'][...], hasattr(tower, 'trace'))

# nnx.vmap over a State: the function's writes reach the caller's variable.
class Probe(nnx.Module):
  def __init__(self):
    self.seen = nnx.Intermediate({})

probe = Probe()
pdef, pstate = nnx.split(probe)

def record(state, x):
  inner = nnx.merge(pdef, state)
  inner.seen.value = {'twice': x * 2}
  return x.sum()

out = nnx.vmap(record, in_axes=(0, 0))(pstate, jnp.arange(6.0).reshape(3, 2))
print(out)
print(probe.seen.get_value()['twice'])

counter = nnx.State({'n': nnx.Variable(jnp.zeros(2))})
def bump(state):
  state['n'][...] = state['n'][...] + 5
nnx.vmap(bump)(counter)
print(counter['n'][...])
result = tower.dense.kernel[...]
