import jax
import jax.numpy as jnp
import optax
from flax import nnx

rngs = nnx.Rngs(3)
base = nnx.Linear(3, 4, rngs=rngs)
adapter = nnx.LoRA(3, 2, 4, base_module=base, rngs=rngs)
print(adapter.lora_a[...])
print(adapter.lora_b[...].shape, type(adapter.lora_a).__name__, isinstance(adapter.lora_a, nnx.Param))
x = jax.random.normal(jax.random.key(5), (6, 3))
print(jnp.allclose(adapter(x), base(x)))
alone = nnx.LoRA(3, 2, 4, rngs=nnx.Rngs(1), b_initializer=nnx.initializers.ones)
print(alone(x))

def add_lora(path, node):
  if isinstance(node, nnx.Linear):
    return nnx.LoRA(node.in_features, 2, node.out_features, base_module=node, rngs=rngs)
  return node

model = nnx.recursive_map(add_lora, nnx.Sequential(nnx.Linear(3, 4, rngs=rngs), nnx.Linear(4, 2, rngs=rngs)))
first = model.layers[0]
print(type(first).__name__, type(first.base_module).__name__, first.in_features, first.out_features, first.lora_param_type.__name__)
print(nnx.state(model, nnx.LoRAParam))
optimizer = nnx.Optimizer(model, optax.adam(1e-2), wrt=nnx.LoRAParam)
y = jax.random.normal(jax.random.key(6), (6, 2))
kernel_before = model.layers[1].base_module.kernel[...]

def loss_fn(model, x, y):
  return jnp.mean((model(x) - y) ** 2)

@nnx.jit
def train_step(model, optimizer, x, y):
  loss, grads = nnx.value_and_grad(loss_fn)(model, x, y)
  updates = optimizer.update(model, grads)
  return loss, updates

for _ in range(4):
  loss, updates = train_step(model, optimizer, x, y)
  print(loss)
print(jax.tree.map(jnp.shape, updates))
print(jnp.array_equal(kernel_before, model.layers[1].base_module.kernel[...]))
print(model.layers[1].lora_b[...])
result = model(x)
