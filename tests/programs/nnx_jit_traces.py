# nnx.jit traces its function once per signature, as jax.jit does: Python
# side effects happen at trace time only, Python control flow on a traced
# value raises JAX's error, and the Variables the function updates are
# written back into the caller's objects.
import jax, jax.numpy as jnp, optax
from flax import nnx

model = nnx.Linear(3, 2, rngs=nnx.Rngs(1))
optimizer = nnx.Optimizer(model, optax.adam(0.05), wrt=nnx.Param)
traces = []

@nnx.jit
def train_step(model, optimizer, x, y):
    traces.append(x.shape)
    print('tracing for', x.shape)
    def loss_fn(model):
        return jnp.mean((model(x) - y) ** 2)
    loss, grads = nnx.value_and_grad(loss_fn)(model)
    optimizer.update(model, grads)
    return loss

x = jnp.linspace(-1.0, 1.0, 12).reshape(4, 3)
y = jnp.stack([x.sum(1), x[:, 0] - x[:, 2]], axis=1)
for _ in range(4):
    print(train_step(model, optimizer, x, y))
print(train_step(model, optimizer, x[:2], y[:2]))
print(traces, optimizer.step[...])
print(model.kernel[...])

@nnx.jit
def scale(m, factor):
    m.bias[...] = m.bias[...] + factor
    return m

same = scale(model, 0.5)
print(same is model, model.bias[...])

@nnx.jit(static_argnums=1)
def pick(m, whole):
    return m if whole else m.bias[...]

# Each traced signature remembers whether it hands back the argument.
print(pick(model, True) is model, pick(model, False), pick(model, True) is model)

@nnx.jit
def branch(m, x):
    if x.sum() > 0:
        return m(x)
    return -m(x)

try:
    branch(model, x)
except jax.errors.TracerBoolConversionError as e:
    print(type(e).__name__)

@nnx.jit(static_argnums=1)
def power(m, n):
    print('tracing power', n)
    return m.kernel[...][:n]

print(power(model, 2).shape, power(model, 2).shape, power(model, 3))
result = {'kernel': model.kernel[...], 'bias': model.bias[...]}
