import jax
import jax.numpy as jnp

x = jnp.array([[1.0, 2.0, 5.0], [3.0, 4.0, 0.5]])
for mode in ["edge", "reflect", "symmetric", "wrap", "linear_ramp", "maximum", "minimum", "mean", "median", "empty"]:
    print(mode, jnp.pad(x, ((1, 2), (2, 1)), mode=mode))
print(jnp.pad(x, 2, mode="reflect", reflect_type="odd"))
print(jnp.pad(x, 1, mode="symmetric", reflect_type="odd"))
print(jnp.pad(x, 1, mode="linear_ramp", end_values=((5, -1), (0, 2))))
print(jnp.pad(x, ((0, 0), (3, 3)), mode="maximum", stat_length=2))
print(jnp.pad(x, ((1, 1), (0, 0)), mode="mean", stat_length=((1, 2),)))
r = jnp.arange(3)
print(jnp.pad(r, 5, mode="wrap"), jnp.pad(r, 5, mode="reflect"), jnp.pad(r, (4, 6), mode="symmetric"))
print(jnp.pad(jnp.arange(5), 2, mode="mean"), jnp.pad(jnp.arange(5), 2, mode="median"))
print(jnp.pad(jnp.arange(4), (3, 2), mode="linear_ramp", end_values=(10, -10)))
print(jnp.pad(jnp.array([7]), 3, mode="reflect"), jnp.pad(jnp.array([7.0]), 2, mode="symmetric", reflect_type="odd"))
try:
    jnp.pad(jnp.zeros((0, 2)), 1, mode="wrap")
except ValueError as e:
    print("ValueError", e)
try:
    jnp.pad(x, 1, mode="mean", stat_length=0)
except ValueError as e:
    print("ValueError", e)
print(jax.jit(lambda v: jnp.pad(v, (2, 3), mode="reflect"))(jnp.arange(4.0)))
print(jax.grad(lambda v: (jnp.pad(v, 2, mode="edge") ** 2).sum())(jnp.array([1.0, 2.0, 3.0])))
print(jax.grad(lambda v: jnp.pad(v, 1, mode="mean").sum())(jnp.array([1.0, 2.0, 3.0])))

result = [jnp.pad(x, ((1, 2), (2, 1)), mode="reflect"), jnp.pad(x, 2, mode="reflect", reflect_type="odd")]
