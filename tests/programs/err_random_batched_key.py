import jax
keys = jax.random.split(jax.random.PRNGKey(0), 3)
print("before")
x = jax.random.normal(keys, (2,))
