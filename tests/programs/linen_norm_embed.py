# linen LayerNorm, RMSNorm, BatchNorm (running statistics in 'batch_stats',
# updated by apply(..., mutable=['batch_stats']) and left alone at init),
# Embed (lookup and attend) and Sequential: parameter names, shapes and the
# values of a forward pass, bit for bit with Flax for one seed.
import jax
import jax.numpy as jnp
import flax.linen as nn


class Net(nn.Module):
    @nn.compact
    def __call__(self, tokens, train):
        h = nn.Embed(10, 6)(tokens)
        h = nn.LayerNorm()(h)
        h = nn.Dense(5)(h)
        h = nn.BatchNorm(use_running_average=not train, momentum=0.9)(h)
        h = nn.RMSNorm(epsilon=1e-5)(h)
        return nn.LayerNorm(use_bias=False, reduction_axes=(-2, -1), feature_axes=-1)(h)


tokens = jnp.array([[1, 2, 3], [4, 5, 9]])
net = Net()
variables = net.init(jax.random.key(0), tokens, train=False)
print(jax.tree.map(jnp.shape, variables))
print(variables['params']['Embed_0']['embedding'][:2])
print(variables['batch_stats']['BatchNorm_0']['var'])
y = net.apply(variables, tokens, train=False)
print(y[0])
y, updates = net.apply(variables, tokens, train=True, mutable=['batch_stats'])
print(y[1])
print(updates['batch_stats']['BatchNorm_0']['mean'], updates['batch_stats']['BatchNorm_0']['var'])
try:
    net.apply(variables, tokens, train=True)
except Exception as e:
    print(type(e).__name__)

emb = nn.Embed(4, 3)
ev = emb.init(jax.random.key(1), jnp.array([0, 3]))
print(ev['params']['embedding'])
print(emb.apply(ev, jnp.ones((2, 3)), method=emb.attend))
try:
    emb.apply(ev, jnp.ones(2))
except ValueError as e:
    print('ValueError:', e)

seq = nn.Sequential([nn.Dense(4), nn.relu, nn.LayerNorm(), nn.Dense(2)])
x = jnp.linspace(-1.0, 1.0, 6).reshape(2, 3)
sv = seq.init(jax.random.key(2), x)
print(jax.tree.map(jnp.shape, sv))
print(seq.apply(sv, x))
ln = nn.LayerNorm()
print(ln.apply(ln.init(jax.random.key(3), x), x))
bn = nn.BatchNorm()
try:
    bn.init(jax.random.key(0), x)
except ValueError as e:
    print('ValueError:', e)
result = float(jnp.sum(y))
