# pmap with devices=: the mapped size may be at most the number of devices
# given (fewer positions leave devices idle); more is JAX's ValueError, with
# the words of the step that fails (splitting the axis over the devices).
import jax, jax.numpy as jnp

devs = jax.devices()
f = jax.pmap(lambda a: a * 2 + jax.lax.axis_index('i'), axis_name='i', devices=devs[:4])
print(f(jnp.arange(4.0)))
print(f(jnp.arange(2.0)))
print(jax.pmap(lambda a: jax.lax.psum(a, 'i'), axis_name='i', devices=devs[2:6])(jnp.arange(3.0)))
for n, shape in ((2, (4,)), (3, (4,)), (2, (6,)), (2, (3,)), (1, (5,)), (2, (6, 2)), (4, (6, 3))):
    try:
        print(jax.pmap(lambda a: a * 2, devices=devs[:n])(jnp.ones(shape)))
    except ValueError as e:
        print(n, shape, 'ValueError:', e)
