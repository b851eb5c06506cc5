import jax, numpy as np, jax.numpy as jnp
def repeat_rows(v, times):
    rows = []
    for _ in range(int(times)):
        rows.append(v)
    return jnp.stack(rows)
print(repeat_rows(jnp.ones(2), 3))
result = jax.jit(repeat_rows)(jnp.ones(2), jnp.int32(3))
