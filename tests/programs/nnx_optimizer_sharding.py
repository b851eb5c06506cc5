import jax
import jax.numpy as jnp
import optax
from flax import nnx
from jax.sharding import PartitionSpec as P, AxisType, reshard

mesh = jax.make_mesh((2, 2), ("rows", "cols"), axis_types=(AxisType.Explicit, AxisType.Explicit))
jax.set_mesh(mesh)

# The optimizer's state of a parameter made with optimizer_sharding is
# placed by it; the parameter itself is not.
init = nnx.with_metadata(nnx.initializers.lecun_normal(), optimizer_sharding=P('rows', 'cols'))
model = nnx.Sequential(
    nnx.Linear(4, 6, kernel_init=init, rngs=nnx.Rngs(2)),
    nnx.Linear(6, 2, rngs=nnx.Rngs(3)))
opt = nnx.Optimizer(model, optax.adam(0.01), wrt=nnx.Param)
print(opt.opt_state)
mu = opt.opt_state[0].mu
print(jax.typeof(mu.layers[0]['kernel'][...]), jax.typeof(mu.layers[1]['kernel'][...]))
print(jax.typeof(model.layers[0].kernel[...]))
print(type(opt.opt_state[0].count).__name__, opt.opt_state[0].count[...])

x = jnp.linspace(-2.0, 2.0, 12).reshape(3, 4)
y = jnp.linspace(0.5, 1.5, 6).reshape(3, 2)

@nnx.jit
def step(model, opt):
  loss, grads = nnx.value_and_grad(lambda m: jnp.mean((m(x) - y) ** 2))(model)
  opt.update(model, grads)
  return loss

for i in range(4):
  loss = step(model, opt)
  print(i, f"{loss:.5f}", jax.typeof(model.layers[0].kernel[...]))
  # Vectors take a longer spec of None entries too.
  model = reshard(model, P(None, None))
  print(jax.typeof(model.layers[0].kernel[...]), jax.typeof(model.layers[0].bias[...]))

print(jax.typeof(opt.opt_state[0].nu.layers[0]['kernel'][...]))
print(nnx.as_pure(nnx.state(model.layers[1], nnx.Param))['bias'].shape)
result = opt.opt_state[0].mu.layers[0]['kernel'][...]
