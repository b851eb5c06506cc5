# Draws from a key that is a constant of a jitted function are part of the
# program: jit gives the eager draw's bits, make_jaxpr shows equations that
# compute it, and eval_shape only the shapes.
import jax
import jax.numpy as jnp

key = jax.random.key(42)
legacy = jax.random.PRNGKey(7)


def draws():
    k1, k2 = jax.random.split(jax.random.fold_in(key, 3))
    return {
        "normal": jax.random.normal(k1, (4, 5)),
        "uniform": jax.random.uniform(k2, (6,), minval=0.3, maxval=1.7),
        "unit": jax.random.uniform(key, (3, 3)),
        "truncated": jax.random.truncated_normal(k2, -2.0, 2.0, (300,)),
        "bernoulli": jax.random.bernoulli(legacy, 0.3, (12,)),
        "randint": jax.random.randint(legacy, (10,), -5, 17),
        "bits": jax.random.bits(k1, (5,)),
        "split": jax.random.key_data(jax.random.split(k1, 3)),
        "legacy_split": jax.random.split(legacy, 2),
        "fold_in": jax.random.key_data(jax.random.fold_in(k2, 2**31 + 5)),
    }


eager = draws()
jitted = jax.jit(draws)()
for name in eager:
    same = bool(jnp.all(eager[name] == jitted[name]))
    print(name, jitted[name].dtype, jitted[name].shape, same)
print(jitted["normal"])
print(jitted["uniform"])
print(jitted["truncated"][:6], float(jitted["truncated"].min()), float(jitted["truncated"].max()))

# The same draws from a key that the jitted function is given.
traced = jax.jit(lambda k: jax.random.truncated_normal(k, -2.0, 2.0, (50,)))(key)
print(bool(jnp.all(traced == jax.random.truncated_normal(key, -2.0, 2.0, (50,)))))


def sample():
    return jax.random.normal(jax.random.key(0), (2, 3))


closed = jax.make_jaxpr(sample)()
print("erf_inv" in str(closed), "threefry2x32" in str(closed) or "random_bits" in str(closed))
print(jax.eval_shape(draws)["truncated"], jax.eval_shape(sample))
print(jax.jit(sample)())
result = jitted
