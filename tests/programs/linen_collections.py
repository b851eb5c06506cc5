# linen variable collections: a running count in 'batch_stats' made with
# self.variable, updated only when apply is told the collection is mutable
# (then apply returns (out, updates)); sow into 'intermediates'; has_variable,
# is_mutable_collection and the module path; Flax's errors for an immutable
# write and a missing collection.
import jax
import jax.numpy as jnp
import flax.linen as nn
from flax import errors


class Counter(nn.Module):
    features: int

    @nn.compact
    def __call__(self, x):
        count = self.variable('batch_stats', 'count', lambda s: jnp.zeros(s), (self.features,))
        mean = self.variable('batch_stats', 'mean', jnp.zeros, (x.shape[-1],))
        y = nn.Dense(self.features)(x)
        self.sow('intermediates', 'pre', y)
        if self.is_mutable_collection('batch_stats'):
            count.value = count.value + 1
            mean.value = 0.5 * mean.value + 0.5 * x.mean(axis=0)
        self.sow('intermediates', 'post', y * 2)
        print('path', self.path, self.has_variable('batch_stats', 'count'),
              self.has_variable('params', 'nothing'), self.is_initializing())
        return y + count.value


class Outer(nn.Module):
    @nn.compact
    def __call__(self, x):
        return Counter(3)(x) + Counter(3, name='second')(x)


x = jnp.arange(8.0).reshape(2, 4) / 8
m = Outer()
variables = m.init(jax.random.key(0), x)
print(jax.tree.map(jnp.shape, variables))
print(variables['batch_stats']['Counter_0']['count'])
y = m.apply(variables, x)
print(y)
y, updates = m.apply(variables, x, mutable=['batch_stats'])
print(list(updates), updates['batch_stats']['second']['count'], updates['batch_stats']['second']['mean'])
y2, more = m.apply({**variables, **updates}, x, mutable='batch_stats')
print(more['batch_stats']['Counter_0']['count'])
_, inter = m.apply(variables, x, mutable=['intermediates'])
print(jax.tree.map(jnp.shape, inter))
print(inter['intermediates']['Counter_0']['pre'][0])
_, everything = m.apply(variables, x, mutable=True)
print(sorted(everything), sorted(everything['intermediates']['second']))
try:
    Counter(3).apply({'params': variables['params']['Counter_0'],
                      'batch_stats': variables['batch_stats']['Counter_0']}, x, mutable=['intermediates'])
    Counter(3).apply({'params': variables['params']['Counter_0']}, x)
except errors.ScopeCollectionNotFound as e:
    print('ScopeCollectionNotFound:', e)


class Writer(nn.Module):
    @nn.compact
    def __call__(self, x):
        v = self.variable('state', 'v', jnp.zeros, ())
        v.value = v.value + x
        return v.value


w = Writer()
wv = w.init(jax.random.key(1), 1.0)
print(wv)
try:
    w.apply(wv, 2.0)
except errors.ModifyScopeVariableError as e:
    print('ModifyScopeVariableError:', e)
out, st = w.apply(wv, 2.0, mutable=['state'])
print(out, st)


class Putter(nn.Module):
    @nn.compact
    def __call__(self, x):
        old = self.get_variable('cache', 'last', jnp.zeros(()))
        if self.is_mutable_collection('cache'):
            self.put_variable('cache', 'last', old + x)
        return old


pm = Putter()
pv = pm.init(jax.random.key(2), 4.0)
print(pv, pm.apply(pv, 1.0), pm.apply(pv, 1.0, mutable='cache'))
result = float(jnp.sum(y2))
