# A long-running loop of big matrix products: press Cancel to stop it.
import jax.numpy as jnp

x = jnp.ones((512, 512)) / 512
for i in range(2000):
    x = jnp.tanh(x @ x) + 1.0 / 512
result = x[0, :4]
