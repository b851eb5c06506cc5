import jax
import jax.numpy as jnp
from flax import nnx

x = jax.random.normal(jax.random.key(0), (3, 4))
act = nnx.PReLU()
print(act.negative_slope[...], act.negative_slope[...].dtype)
print(act(x))
act2 = nnx.PReLU(negative_slope_init=0.25)
print(act2(jnp.array([-4.0, -0.0, 0.0, 3.0])))
print(act2(jnp.array([-4, 2])))
print(nnx.state(act2))

def loss(m, x):
    return jnp.sum(m(x))
g = nnx.grad(loss)(act2, x)
print(g['negative_slope'][...])
model = nnx.Sequential(nnx.Linear(4, 2, rngs=nnx.Rngs(0)), nnx.PReLU(0.5))
result = model(x)
