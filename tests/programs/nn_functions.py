import jax
import jax.numpy as jnp
from jax.scipy.special import logsumexp

x = jnp.array([-2.0, -0.5, 0.0, 0.5, 3.0])
m = jnp.array([[1.0, 2.0, 3.0], [-1.0, 0.0, 4.0]])
outs = {
    "relu": jax.nn.relu(x),
    "gelu": jax.nn.gelu(x),
    "gelu_exact": jax.nn.gelu(x, approximate=False),
    "sigmoid": jax.nn.sigmoid(x),
    "tanh": jax.nn.tanh(x),
    "silu": jax.nn.silu(x),
    "softplus": jax.nn.softplus(x),
    "leaky_relu": jax.nn.leaky_relu(x),
    "softmax": jax.nn.softmax(m),
    "softmax0": jax.nn.softmax(m, axis=0),
    "log_softmax": jax.nn.log_softmax(m),
    "logsumexp": jax.nn.logsumexp(m),
    "logsumexp1": logsumexp(m, axis=1),
    "logsumexp_keep": logsumexp(m, axis=0, keepdims=True),
    "one_hot": jax.nn.one_hot(jnp.array([0, 2, 1]), 3),
}
for k, v in outs.items():
    print(k, v)
result = outs
