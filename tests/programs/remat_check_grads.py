import jax, jax.numpy as jnp
from functools import partial
from jax.ad_checkpoint import checkpoint_name
from jax.test_util import check_grads

def layer(w, x):
    return jnp.tanh(w @ x)

def net(ws, x):
    for w in ws:
        x = checkpoint_name(layer(w, x), name="h")
    return jnp.sum(x * x)

ws = [jnp.arange(9.0).reshape(3, 3) / 20.0, jnp.eye(3) * 0.5 + 0.1]
x0 = jnp.array([0.3, -0.2, 0.9])
plain = jax.grad(net)(ws, x0)
remat = jax.grad(jax.checkpoint(net))(ws, x0)
policy = jax.grad(jax.checkpoint(net, policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable))(ws, x0)
named = jax.grad(jax.remat(net, policy=jax.checkpoint_policies.save_only_these_names("h")))(ws, x0)
prevent = jax.jit(jax.grad(jax.checkpoint(net, prevent_cse=False)))(ws, x0)

@partial(jax.checkpoint, static_argnums=(1,))
def powered(x, n):
    for _ in range(n):
        x = jnp.sin(x)
    return x

pw = jax.grad(powered)(0.8, 3)
print(all(bool(jnp.allclose(a, b)) for a, b in zip(plain, remat)))
print(pw)

check_grads(lambda v: jnp.sin(v) * v, (x0,), order=2)
check_grads(net, (ws, x0), order=1, modes=["rev"])
check_grads(lambda a, b: a * jnp.exp(b), (1.5, 0.3), order=2, modes=("fwd",))
print("checks passed")

@jax.custom_jvp
def wrong(x):
    return jnp.sin(x)

wrong.defjvps(lambda t, ans, x: 3.0 * t)
try:
    check_grads(wrong, (0.5,), order=1)
except AssertionError:
    print("AssertionError raised")

result = [plain[0], plain[1], remat[0], policy[1], named[0], prevent[1], pw]
