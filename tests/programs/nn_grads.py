import jax
import jax.numpy as jnp

x = jnp.array([-1.0, 0.0, 0.5, 2.0])
g_relu = jax.grad(lambda x: jnp.sum(jax.nn.relu(x)))(x)
g_max = jax.grad(lambda x: jnp.sum(jnp.maximum(x, 0.0)))(x)
print("relu'", g_relu, "maximum'", g_max)
fs = {
    "gelu": lambda x: jnp.sum(jax.nn.gelu(x)),
    "sigmoid": lambda x: jnp.sum(jax.nn.sigmoid(x) ** 2),
    "silu": lambda x: jnp.sum(jax.nn.silu(x)),
    "tanh": lambda x: jnp.sum(jax.nn.tanh(x)),
    "softmax": lambda x: jnp.sum(jax.nn.softmax(x) * jnp.arange(4.0)),
    "log_softmax": lambda x: jax.nn.log_softmax(x)[2],
    "logsumexp": lambda x: jax.nn.logsumexp(x * 2.0),
}
grads = {}
for k, f in fs.items():
    grads[k] = jax.grad(f)(x)
    print(k, f(x), grads[k])
labels = jax.nn.one_hot(jnp.array([1, 0]), 3)
logits = jnp.array([[0.2, 1.0, -0.3], [2.0, 0.1, 0.0]])
xent = lambda l: -jnp.mean(jnp.sum(labels * jax.nn.log_softmax(l), axis=-1))
print(xent(logits), jax.grad(xent)(logits))
grads["relu"] = g_relu
grads["xent"] = jax.grad(xent)(logits)
result = grads
