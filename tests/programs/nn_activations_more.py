import jax
import jax.numpy as jnp
from flax import nnx
import flax.linen as nn

x = jnp.array([-7.0, -3.0, -1.5, -1.0, -0.25, 0.0, 0.5, 1.0, 2.5, 6.0, 8.0])
m = jnp.array([[1.0, -2.0, 0.5, 3.0], [0.0, 4.0, -1.0, 2.0]])
outs = {
    "relu6": jax.nn.relu6(x),
    "hard_sigmoid": jax.nn.hard_sigmoid(x),
    "hard_silu": jax.nn.hard_silu(x),
    "hard_swish": jax.nn.hard_swish(x),
    "hard_tanh": jax.nn.hard_tanh(x),
    "soft_sign": jax.nn.soft_sign(x),
    "selu": jax.nn.selu(x),
    "celu": jax.nn.celu(x),
    "celu_alpha": jax.nn.celu(x, alpha=0.5),
    "elu_alpha": jax.nn.elu(x, 2.0),
    "mish": jax.nn.mish(x),
    "squareplus": jax.nn.squareplus(x),
    "squareplus_b": jax.nn.squareplus(x, b=1.0),
    "sparse_plus": jax.nn.sparse_plus(x),
    "sparse_sigmoid": jax.nn.sparse_sigmoid(x),
    "log1mexp": jax.nn.log1mexp(jnp.array([0.1, 0.5, 0.7, 2.0, 10.0])),
    "glu": jax.nn.glu(m),
    "glu0": jax.nn.glu(m, axis=0),
    "standardize": jax.nn.standardize(m),
    "standardize0": jax.nn.standardize(m, axis=0),
    "standardize_stable": jax.nn.standardize(m, axis=None, algorithm="stable"),
    "standardize_given": jax.nn.standardize(m, mean=1.0, variance=4.0),
    "logmeanexp": jax.nn.logmeanexp(m),
    "logmeanexp1": jax.nn.logmeanexp(m, axis=1, keepdims=True),
}
for k, v in outs.items():
    print(k, v.dtype, v)

# Integer and Python-scalar inputs become float32 as in JAX.
print(jax.nn.relu6(jnp.arange(-2, 9, 2)), jax.nn.hard_tanh(3))
print(jax.nn.selu(2.0), jax.nn.soft_sign(jnp.int32(3)))

# Gradients: relu6 and hard_sigmoid are 0 at the corners.
g = jax.grad(lambda v: jax.nn.relu6(v).sum())(jnp.array([-1.0, 0.0, 3.0, 6.0, 7.0]))
print("grad relu6", g)
print("grad hard_silu", jax.vmap(jax.grad(jax.nn.hard_silu))(jnp.array([-4.0, -1.0, 0.5, 3.5])))
print("grad celu", jax.vmap(jax.grad(jax.nn.celu))(jnp.array([-2.0, -0.5, 1.0])))
print("grad mish", jax.vmap(jax.grad(jax.nn.mish))(jnp.array([-2.0, 0.0, 1.5])))
print("grad selu", jax.vmap(jax.grad(jax.nn.selu))(jnp.array([-1.0, 2.0])))

# Under jit, and as Flax re-exports them.
print(jax.jit(jax.nn.glu)(m))
print(nnx.relu6(x), nnx.selu(m), nnx.hard_tanh(x))
print(nnx.standardize(m), nn.celu(x), nn.soft_sign(m))
print(hasattr(nnx, "mish"), hasattr(nn, "squareplus"), hasattr(jax.nn, "mish"))
result = outs
