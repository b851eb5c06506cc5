# Inside jit: keys split and folded from a constant key stay usable for the
# draws computed on the host (permutation, choice), also of traced arrays.
import jax, jax.numpy as jnp
@jax.jit
def f(x):
    k = jax.random.key(0)
    k1, k2 = jax.random.split(k)
    return jax.random.permutation(k1, x), jax.random.choice(jax.random.fold_in(k2, 3), x, (2,)), jax.random.normal(k2, (2,))
print(f(jnp.arange(5)))
g = jax.jit(lambda k, x: (jax.random.permutation(jax.random.key(3), x), jax.random.choice(jax.random.key(4), x, (3,), replace=False)))
print(g(0, jnp.arange(12.0).reshape(6, 2)))
ks = jax.random.split(jax.random.key(5), 4)
print(jax.jit(lambda: [jax.random.normal(k, (2,)) for k in ks[1:3]])())
