import jax, jax.numpy as jnp
a = jnp.array([1.0, 2.5, -3.0, 4.0, 0.5, -1.5, 2.0])
v = jnp.array([0.25, -1.0, 2.0])
for mode in ['full', 'same', 'valid']:
    print(mode, jnp.convolve(a, v, mode=mode), jnp.correlate(a, v, mode=mode))
    print(jnp.convolve(v, a, mode=mode), jnp.correlate(v, a, mode))
print(jnp.convolve(jnp.array([1, 2, 1]), jnp.ones(10)))
print(jnp.convolve(jnp.array([1, 2, 3]), jnp.array([0, 1, 2])))
print(jnp.correlate(jnp.arange(6), jnp.array([1, -1])))
print(jnp.rot90(jnp.arange(6).reshape(2, 3)), jnp.rot90(jnp.arange(6).reshape(2, 3), k=2))
print(jnp.rot90(jnp.arange(24).reshape(2, 3, 4), k=-1, axes=(2, 1))[1])
print(jnp.rot90(jnp.arange(24).reshape(2, 3, 4), k=3, axes=(0, 2))[:, 0])
sig = jnp.sin(jnp.linspace(0.0, 20.0, 700)) + 0.1 * jnp.cos(jnp.arange(700.0) * 7.3)
sm = jnp.convolve(sig, jnp.ones(9) / 9, mode='same')
print(sm[:5], sm[-3:], sm[::97])
g = jax.grad(lambda s, k: (jnp.convolve(s, k, mode='valid') ** 2).sum(), argnums=(0, 1))(a, v)
print(g)
print(jax.jit(jnp.correlate, static_argnames='mode')(a, v, mode='full'))
result = [sm, g[0], g[1]]
