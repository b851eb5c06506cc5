# Under jax.jit, XLA's CPU backend contracts a float32 product read once
# into the add or subtract that reads it (one rounding). Eager operations
# round twice. Each line prints both so that a difference shows.
import jax
import jax.numpy as jnp

x = jax.random.normal(jax.random.key(0), (12,))
y = jax.random.uniform(jax.random.key(1), (12,), minval=-2.0, maxval=3.0)


def selu(v, alpha=1.67, lmbda=1.05):
    return lmbda * jnp.where(v > 0, v, alpha * jnp.exp(v) - alpha)


cases = {
    "product minus constant": lambda a, b: a * b - 0.3,
    "constant minus product": lambda a, b: 0.7 - a * b,
    "product minus product": lambda a, b: a * b - b * 1.3,
    "product plus product": lambda a, b: a * 1.1 + b * a,
    "sum minus product": lambda a, b: (a + b) - a * a,
    "product read twice": lambda a, b: (a * b - 0.3) * (a * b),
    "selu": lambda a, b: selu(a),
    "exp times constant minus one": lambda a, b: jnp.exp(b) * 0.37 - 1.0,
}
for name, f in cases.items():
    eager = f(x, y)
    jitted = jax.jit(f)(x, y)
    print(name)
    print(" eager ", eager)
    print(" jitted", jitted)
    print(" differ in", int(jnp.sum(eager != jitted)), "of", eager.size)

result = {
    "selu": jax.jit(selu)(x),
    "sub": jax.jit(lambda a, b: 0.7 - a * b)(x, y),
}
