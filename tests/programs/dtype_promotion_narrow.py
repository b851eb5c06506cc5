import jax.numpy as jnp

names = [jnp.bool_, jnp.uint8, jnp.uint16, jnp.uint32, jnp.int8, jnp.int16,
         jnp.int32, jnp.bfloat16, jnp.float16, jnp.float32]
for a in names:
    print(" ".join(jnp.promote_types(a, b).name for b in names))
for d in names[1:]:
    x = jnp.ones(2, d)
    print(d.__name__ if hasattr(d, "__name__") else d, (x + 1).dtype, (x + 1.5).dtype,
          (x * jnp.int32(2)).dtype)
