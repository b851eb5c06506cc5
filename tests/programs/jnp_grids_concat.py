import jax
import jax.numpy as jnp

g = jnp.mgrid[0:3, 0:2]
print(g, g.dtype, g.shape)
print(jnp.mgrid[0:1:5j], jnp.mgrid[-1:1:0.5])
print(jnp.mgrid[0:4:2, 0.0:1.0:3j])
print(jnp.ogrid[0:3, 0:2], jnp.ogrid[1:4])
print(jnp.ogrid[0:2, 0.0:1.0:3j])
print(jnp.r_[jnp.array([1, 2, 3]), 0, 0, jnp.array([4, 5])])
print(jnp.r_[-1:1:5j, 0.5], jnp.r_[0:6:2])
print(jnp.r_["0,2", jnp.array([1, 2]), jnp.array([3, 4])])
print(jnp.r_["1,2,0", jnp.array([1, 2]), jnp.array([3, 4])])
print(jnp.r_["r", jnp.array([1, 2, 3])], jnp.r_["c", jnp.array([1, 2, 3])].shape)
print(jnp.r_[jnp.ones((2, 2)), jnp.zeros((1, 2))])
print(jnp.c_[jnp.array([1, 2, 3]), jnp.array([4, 5, 6])])
print(jnp.c_[jnp.ones((2, 2)), jnp.array([[7], [8]])], jnp.c_[0:3])
try:
    jnp.r_[jnp.array([1]), "r"]
except ValueError as e:
    print("ValueError", e)
try:
    jnp.r_["x,y", jnp.array([1])]
except ValueError as e:
    print("ValueError", e)

# The other names of the scalar types.
print(jnp.float_, jnp.int_, jnp.double, jnp.uint, jnp.cdouble, jnp.complex_)
print(jnp.float_ is jnp.float64, jnp.single is jnp.float32, jnp.csingle is jnp.complex64, jnp.uint is jnp.uint64)
print(jnp.zeros(2, jnp.single).dtype, jnp.single(2), jnp.csingle(1).dtype, jnp.euler_gamma)

result = [jnp.mgrid[0:3, 0:2], jnp.r_[jnp.array([1, 2, 3]), 0, 0, jnp.array([4, 5])], jnp.c_[jnp.array([1, 2, 3]), jnp.array([4, 5, 6])]]
