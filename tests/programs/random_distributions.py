import jax
import jax.numpy as jnp

key = jax.random.PRNGKey(3)
ks = jax.random.split(key, 12)
outs = {
    "exponential": jax.random.exponential(ks[0], (5,)),
    "laplace": jax.random.laplace(ks[1], (2, 3)),
    "logistic": jax.random.logistic(ks[2], (4,)),
    "cauchy": jax.random.cauchy(ks[3], (4,)),
    "lognormal": jax.random.lognormal(ks[4], shape=(3,)),
    "lognormal_sigma": jax.random.lognormal(ks[4], 0.5, (3,)),
    "rayleigh": jax.random.rayleigh(ks[5], 2.0, (4,)),
    "pareto": jax.random.pareto(ks[6], jnp.array([1.0, 2.0, 3.0])),
    "weibull_min": jax.random.weibull_min(ks[7], 1.5, 2.0, (4,)),
    "maxwell": jax.random.maxwell(ks[8], (3,)),
    "double_sided_maxwell": jax.random.double_sided_maxwell(ks[9], 1.0, 2.0, (4,)),
    "rademacher": jax.random.rademacher(ks[10], (8,)),
    "wald": jax.random.wald(ks[11], 1.5, (4,)),
    "geometric": jax.random.geometric(ks[0], 0.3, (6,)),
    "triangular": jax.random.triangular(ks[1], 0.0, 1.0, 3.0, (5,)),
    "categorical": jax.random.categorical(ks[2], jnp.array([0.1, 2.0, -1.0, 0.5])),
    "categorical_batch": jax.random.categorical(ks[3], jnp.log(jnp.array([[0.2, 0.3, 0.5], [0.7, 0.2, 0.1]])), shape=(4, 2)),
    "categorical_axis0": jax.random.categorical(ks[4], jnp.zeros((5, 2)), axis=0),
    "gumbel": jax.random.gumbel(ks[5], (3,)),
}
for k, v in outs.items():
    print(k, v.dtype, v.shape, v)

# Typed keys, jit and vmap draw the same numbers.
tk = jax.random.key(3)
print(jax.random.exponential(tk, (3,)))
print(jax.jit(lambda k: jax.random.exponential(k, (3,)))(key))
print(jax.jit(lambda k: jax.random.laplace(k, (3,)))(ks[1]))
print(jax.jit(lambda k: jax.random.categorical(k, jnp.array([1.0, 2.0, 3.0]), shape=(6,)))(ks[6]))
print(jax.vmap(lambda k: jax.random.exponential(k, (2,)))(ks[:3]))
print(jax.vmap(lambda k: jax.random.logistic(k))(ks[:4]))
print(jax.vmap(lambda k: jax.random.categorical(k, jnp.array([0.0, 1.0, 0.5])))(ks[:5]))
print(jax.jit(lambda k, s: jax.random.lognormal(k, s, (2,)))(ks[7], 0.25))
result = outs
