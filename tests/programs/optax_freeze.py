# Freezing parameters: optax.freeze zeroes the updates a mask selects, and
# optax.transforms.selective_transform routes frozen leaves to set_to_zero
# and the others to the optimizer, with a partition's state.
import jax
import jax.numpy as jnp
import optax
from optax import transforms

params = {"encoder": jnp.array([1.0, -2.0]), "head": jnp.array([[0.5], [3.0]])}
grads = {"encoder": jnp.array([0.3, 0.1]), "head": jnp.array([[-1.0], [2.0]])}
mask = {"encoder": True, "head": False}

frozen = optax.chain(optax.adam(0.1), transforms.freeze(mask))
state = frozen.init(params)
updates, state = frozen.update(grads, state, params)
print(updates)
print(optax.apply_updates(params, updates))

selective = transforms.selective_transform(optax.sgd(0.5), freeze_mask=mask)
sstate = selective.init(params)
print(sstate)
p = params
for _ in range(2):
    u, sstate = selective.update(grads, sstate, p)
    p = optax.apply_updates(p, u)
print(p)
print(optax.selective_transform is transforms.selective_transform, optax.freeze is transforms.freeze)

result = {"updates": u, "params": p}
