import jax
import jax.numpy as jnp

x = jnp.array([-2.5, -1.0, -0.5, 0.0, 0.25, 1.0, 3.0])
print(jnp.sinc(x), jnp.sinc(0), jnp.sinc(jnp.arange(3)).dtype)
ds = jax.grad(jnp.sinc)
print(ds(0.0), ds(0.5), jax.grad(ds)(0.0), jax.grad(jax.grad(ds))(0.0))
print(jax.vmap(jax.grad(jnp.sinc))(jnp.array([-2.5, -1.0, -0.5, 0.0, 1.0, 3.0])))
print(jnp.copysign(x, -1.0), jnp.copysign(3, jnp.array([-0.0, 0.0, -2.0])))
print(jnp.copysign(jnp.arange(3), 1).dtype)
print(jnp.fmod(jnp.array([-7.5, -3.0, 2.0, 7.5, 1e-10]), jnp.array([2.0, 3.0, -0.75, -2.0, 1.0])))
print(jnp.fmod(jnp.array([-7, 7, -7, 7, 5]), jnp.array([2, 2, -2, -2, 0])))
print(jnp.fmod(jnp.array([1.0, -1.0, jnp.inf]), 0.0), jnp.fmod(-0.0, 2.0), jnp.fmod(5.0, jnp.inf))
print(jax.grad(lambda t: jnp.fmod(t, 2.5))(-7.0))
print(jnp.gcd(jnp.array([12, -18, 0, 7, 0]), jnp.array([8, 24, 5, 13, 0])))
print(jnp.lcm(jnp.array([4, -6, 0, 21]), jnp.array([6, 8, 3, 6])), jnp.gcd(12, 18), jnp.lcm(jnp.arange(1, 5), 6))
try:
    jnp.gcd(1.5, 2)
except ValueError as e:
    print("ValueError", e)
print(jax.jit(jnp.gcd)(jnp.array([100, 81]), jnp.array([75, 27])))
print(jnp.nextafter(jnp.array([1.0, -1.0, 3.0]), jnp.array([2.0, 0.0, -jnp.inf])) - jnp.array([1.0, -1.0, 3.0]))
print(jnp.nextafter(1, 2).dtype, jnp.pow(jnp.arange(4), 2), jnp.pow(2.0, 0.5))

result = [jnp.sinc(x), jnp.gcd(jnp.array([12, -18]), jnp.array([8, 24]))]
