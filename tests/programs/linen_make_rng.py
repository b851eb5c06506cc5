import jax
import jax.numpy as jnp
import flax.linen as nn
import flax.linen.initializers


class Noisy(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.Dropout(0.5, deterministic=False)(x)


class Net(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.Dense(2)(Noisy()(x))


# A stream the module was not given falls back to "params".
v = Net().init(jax.random.key(0), jnp.ones(3))
print(v)
print(Net().apply(v, jnp.ones(3), rngs={"params": jax.random.key(3)}))
print(Noisy().apply({}, jnp.ones(4), rngs={"params": jax.random.key(3)}))
print(Noisy().apply({}, jnp.ones(4), rngs={"dropout": jax.random.key(3)}))

# Keys for several streams at init, and make_rng in a module's own body.
class Draw(nn.Module):
    @nn.compact
    def __call__(self, x):
        k = self.make_rng("noise")
        return nn.Dense(2)(x) + jax.random.normal(k, (2,))


keys = {"params": jax.random.key(1), "noise": jax.random.key(2)}
y, vd = Draw().init_with_output(keys, jnp.ones(3))
print(y)
print(Draw().apply(vd, jnp.ones(3), rngs={"noise": jax.random.key(2)}))

# Neither the stream nor params: Flax's InvalidRngError.
try:
    Net().apply(v, jnp.ones(3))
except nn.errors.InvalidRngError if hasattr(nn, "errors") else Exception as e:
    print(type(e).__name__, e)

print(flax.linen.initializers.lecun_normal()(jax.random.key(0), (2, 2)))
result = y
