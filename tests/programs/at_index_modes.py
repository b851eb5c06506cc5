# Out-of-bounds indices in x.at[...]: gathers clamp by default and fill
# with mode='fill'; updates drop by default and clamp with mode='clip'.
import jax
import jax.numpy as jnp

x = jnp.arange(6.0)
m = jnp.arange(12).reshape(3, 4)
print(x.at[8].get(), x.at[8].get(mode="clip"), x.at[8].get(mode="fill"))
print(x.at[-7].get(mode="fill", fill_value=-1.0), x.at[-6].get(mode="fill"))
print(x.at[jnp.array([0, 6, -1, -7, 5])].get(mode="fill", fill_value=0.5))
print(x.at[jnp.array([1, 9])].get(mode="drop"))
try:
    x.at[[1, 9]].get(mode="drop")
except TypeError as e:
    print("TypeError:", e)
print(m.at[4].get(mode="fill"))
print(m.at[1, 9].get(mode="fill", fill_value=7))
print(m.at[jnp.array([[0, 3], [2, -4]])].get(mode="fill", fill_value=-5))
print(m.at[:, jnp.array([0, 4])].get(mode="fill"))
print(m.astype(jnp.uint32).at[5].get(mode="fill"))
print((m > 5).at[0, 10].get(mode="fill"))
print(x.at[2:9].get(mode="fill"))

print(x.at[6].set(100.0))
print(x.at[jnp.array([0, 6, -1, -9])].add(100.0))
print(x.at[6].set(100.0, mode="clip"))
print(x.at[jnp.array([-9, 9])].add(1.0, mode="clip"))
print(x.at[6].set(100.0, mode="drop"), x.at[6].set(100.0, mode="promise_in_bounds"))
print(m.at[1, 7].set(-1), m.at[jnp.array([0, 5])].multiply(10))
print(m.at[3].max(100, mode="fill"))


@jax.jit
def shift(v, i):
    return v.at[i].set(-1.0), v.at[i].get()


print(shift(x, 2), shift(x, 10))
try:
    x.at[1].get(mode="wrap")
except ValueError as e:
    print("ValueError:", e)
