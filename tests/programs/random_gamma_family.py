import jax
import jax.numpy as jnp

key = jax.random.PRNGKey(11)
ks = jax.random.split(key, 10)
outs = {
    "gamma": jax.random.gamma(ks[0], 2.5, (6,)),
    "gamma_small": jax.random.gamma(ks[1], jnp.array([0.1, 0.5, 0.9, 1.0, 4.0, 30.0])),
    "loggamma": jax.random.loggamma(ks[2], jnp.array([0.05, 0.5, 3.0])),
    "beta": jax.random.beta(ks[3], 2.0, 5.0, (5,)),
    "beta_arrays": jax.random.beta(ks[4], jnp.array([0.5, 1.0, 3.0]), jnp.array([[1.0], [2.0]])),
    "dirichlet": jax.random.dirichlet(ks[5], jnp.array([1.0, 2.0, 3.0])),
    "dirichlet_batch": jax.random.dirichlet(ks[6], jnp.array([0.3, 0.3]), (4,)),
    "t": jax.random.t(ks[7], 3.0, (5,)),
    "chisquare": jax.random.chisquare(ks[8], 4.0, (4,)),
    "f": jax.random.f(ks[9], 3.0, 7.0, (4,)),
    "generalized_normal": jax.random.generalized_normal(ks[0], 1.5, (5,)),
    "ball": jax.random.ball(ks[1], 3, shape=(2,)),
    "ball_p1": jax.random.ball(ks[2], 2, p=1.0),
}
for k, v in outs.items():
    print(k, v.dtype, v.shape, v)
print(jax.random.gamma(jax.random.key(0), 1.0, (3,)))
print(jax.random.gamma(key, jnp.ones((2, 2)) * 0.7).sum())
result = outs
