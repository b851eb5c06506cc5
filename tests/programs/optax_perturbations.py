import jax
import jax.numpy as jnp
import optax
import optax.tree
from optax import perturbations


def hard_choice(scores):
    # A step function of its input: its gradient is zero almost everywhere.
    return jax.nn.one_hot(jnp.argmax(scores), scores.shape[0])


key = jax.random.PRNGKey(7)
scores = jnp.array([0.3, -1.2, 0.9, 0.8])

g = perturbations.Gumbel()
nz = perturbations.Normal()
print("gumbel draws", g.sample(key, (2, 3)))
print("normal draws", nz.sample(key, (4,)))
print("gumbel log_prob", g.log_prob(jnp.array([-1.0, 0.0, 2.5])))
print("normal log_prob", nz.log_prob(jnp.array([-1.0, 0.0, 2.5])))
print("jax gumbel", jax.random.gumbel(jax.random.key(3), (5,)))

smooth = perturbations.make_perturbed_fun(hard_choice, num_samples=50, sigma=0.4)
print("hard", hard_choice(scores))
print("smoothed", smooth(key, scores))

plain = perturbations.make_perturbed_fun(
    hard_choice, num_samples=30, sigma=0.25, noise=perturbations.Normal(), use_baseline=False
)
print("normal noise, no baseline", plain(key, scores))


def target_loss(s, k):
    want = jnp.array([0.1, 0.1, 0.5, 0.3])
    return jnp.sum((smooth(k, s) - want) ** 2)


print("loss", target_loss(scores, key))
print("grad", jax.grad(target_loss)(scores, key))

step = jax.grad(target_loss)
s = scores
k = key
for _ in range(5):
    k, sub = jax.random.split(k)
    s = s - 0.5 * step(s, sub)
print("after steps", s)
print("jitted value", jax.jit(smooth)(key, s))

# Pytrees in and out.
tree = {"a": jnp.array([0.2, 0.1, -0.4]), "b": (jnp.array([1.0, 1.1]),)}
tree_choice = perturbations.make_perturbed_fun(
    lambda t: jax.tree.map(hard_choice, t), num_samples=40, sigma=0.5
)
print("tree", tree_choice(key, tree))
print("add_scale", optax.tree.add_scale(tree, -0.5, tree))
print("random_like", optax.tree.random_like(key, tree))
print("random_like gumbel", optax.tree.random_like(key, tree, sampler=jax.random.gumbel))
print("split_key_like", optax.tree.split_key_like(key, tree))
result = smooth(jax.random.PRNGKey(1), scores)
