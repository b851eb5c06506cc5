# What the vjp function of a checkpointed function keeps, by policy: the
# values its policy saves and the inputs the rest is recomputed from.
import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name
from jax.tree_util import tree_flatten, tree_unflatten

W1 = jnp.arange(12.0).reshape(4, 3) / 10.0
W2 = jnp.arange(8.0).reshape(2, 4) / 10.0
x = jnp.array([1.0, -0.5, 0.25])


def net(w1, w2, a):
    h = checkpoint_name(jnp.sin(w1 @ a), "hidden")
    return jnp.sum(jnp.tanh(w2 @ h))


policies = {
    "default": None,
    "dots": jax.checkpoint_policies.dots_saveable,
    "dots_no_batch": jax.checkpoint_policies.dots_with_no_batch_dims_saveable,
    "names": jax.checkpoint_policies.save_only_these_names("hidden"),
    "nothing": jax.checkpoint_policies.nothing_saveable,
}
for name, policy in policies.items():
    f = jax.checkpoint(net, policy=policy)
    y, f_vjp = jax.vjp(f, W1, W2, x)
    res, tree = tree_flatten(f_vjp)
    print(name, [r.shape for r in res])
    rebuilt = tree_unflatten(tree, [r for r in res])
    print(rebuilt(jnp.float32(1.0))[2])


def two_stage(a):
    a = jax.checkpoint(lambda b: jnp.sin(jnp.sin(b)))(a)
    return jnp.cos(a)


_, f_vjp = jax.vjp(two_stage, x)
print([r.shape for r in jax.tree.leaves(f_vjp)])
res, tree = tree_flatten(f_vjp)
result = jax.jit(lambda r, c: tree_unflatten(tree, r)(c))(res, jnp.ones(3))
