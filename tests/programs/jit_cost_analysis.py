# jax.jit(f).lower(*args).cost_analysis(): XLA's flops, transcendentals and
# bytes of the lowered program, per operand index, with zero totals left
# out, for elementwise chains, scalar literals, dots, reductions, shape
# operations, nested jits and programs with several results.
import jax
import jax.numpy as jnp

x = jnp.ones((10, 100))
y = jnp.ones((100, 10))
z = jnp.ones((10, 1000))
a = jnp.ones((8, 4))
w = jnp.ones((4, 3))


def cost(f, *args):
    return jax.jit(f).lower(*args).cost_analysis()


print(cost(lambda x, y, z: (x @ y) @ z, x, y, z)["flops"])
print(cost(lambda x, y, z: x @ (y @ z), x, y, z)["flops"])
print(cost(jnp.linalg.multi_dot, [x, y, z])["flops"])
print(cost(lambda x, y, z: (x @ y) @ z, x, y, z))
print(cost(lambda a, b: jnp.sin(a) * b + 1.0, a, a))
print(cost(jnp.sum, a))
print(cost(lambda a: jnp.exp(a).sum(0), a))
print(cost(lambda a: jnp.mean(a), a))
print(cost(lambda a: a ** 2.5, a), cost(lambda a: a ** 3, a), cost(lambda a: a ** 4, a))
print(cost(lambda a: jnp.where(a > 0, a, 0.0), a))
print(cost(lambda a: a.astype(jnp.int32), a))
print(cost(lambda a: a.reshape(4, 8), a), cost(lambda a: a.T, a), cost(lambda a: a[1:3], a))
print(cost(lambda a: jnp.concatenate([a, a]), a), cost(lambda a: a[::-1], a))
print(cost(lambda w, a: jnp.tanh(a @ w).sum(), w, a))
print(cost(lambda a: jax.jit(jnp.sin)(a) * 2, a))
print(cost(lambda a: (a * 2, a.sum()), a))
print(cost(lambda a: a, a), cost(lambda a: a + 1, jnp.ones(8, jnp.int32)))
print(cost(lambda a: jnp.max(a, axis=1) / 3.0, a))
print(cost(lambda u, v: u @ v, jnp.ones(4), jnp.ones(4)))

result = cost(lambda a: -(a - a) * 0.5, a)["bytes accessed"]
