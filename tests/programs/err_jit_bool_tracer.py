import jax, numpy as np, jax.numpy as jnp
@jax.jit
def clip(v, limit):
    if jnp.max(v) > limit:
        return v / jnp.max(v) * limit
    return v
print(clip.__name__ if hasattr(clip, "__name__") else "clip")
result = clip(jnp.arange(4.0), jnp.float32(2.0))
