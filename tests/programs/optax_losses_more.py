# optax's divergences, margin, cosine, log-cosh, focal, smoothing and
# contrastive losses, elementwise or per example, with their axis/where
# arguments and gradients.
import jax
import jax.numpy as jnp
import optax

logits = jnp.array([[1.2, -0.8, -0.5, 0.3], [0.9, -1.2, 1.1, -0.1], [0.0, 2.5, -1.5, 0.7]])
probs = jax.nn.softmax(jnp.array([[0.1, 0.2, -0.4, 0.0], [1.0, 0.0, 0.0, -1.0], [0.3, 0.3, 0.3, 0.3]]))
log_p = jax.nn.log_softmax(logits)
targets = probs.at[0, 2].set(0.0)

print(optax.kl_divergence(log_p, targets))
print(optax.losses.kl_divergence(log_p, probs, axis=0))
print(optax.kl_divergence(log_p, probs, where=jnp.array([True, False, True, True])))
print(optax.losses.kl_divergence_with_log_targets(log_p, jnp.log(probs)))
print(optax.generalized_kl_divergence(log_p, 2.0 * probs))
print(optax.convex_kl_divergence(log_p, 2.0 * probs))

scores = jnp.array([0.8, -0.3, 2.0, -1.5, 0.1])
signs = jnp.array([1.0, 1.0, -1.0, -1.0, 1.0])
print(optax.hinge_loss(scores, signs), optax.losses.perceptron_loss(scores, signs))
labels = jnp.array([0, 2, 1])
print(optax.losses.multiclass_hinge_loss(logits, labels))
print(optax.losses.multiclass_perceptron_loss(logits, labels))

a = jnp.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0], [-1.0, 0.5, 2.0]])
b = jnp.array([[2.0, 1.0, 0.0], [1.0, 1.0, 1.0], [-2.0, 1.0, 4.0]])
print(optax.cosine_similarity(a, b))
print(optax.cosine_similarity(a, b, epsilon=1e-8), optax.cosine_distance(a, b, epsilon=0.1))
print(optax.losses.cosine_similarity(a, b, axis=0))
print(optax.cosine_distance(a, b, where=jnp.array([True, True, False])))

print(optax.log_cosh(jnp.array([0.0, 0.5, -3.0, 20.0])))
print(optax.log_cosh(jnp.array([1.5, 2.0]), jnp.array([1.0, -1.0])))

bin_logits = jnp.array([2.0, -1.0, 0.5, -3.0, 0.0])
bin_labels = jnp.array([1.0, 0.0, 1.0, 1.0, 0.3])
print(optax.sigmoid_focal_loss(bin_logits, bin_labels))
print(optax.sigmoid_focal_loss(bin_logits, bin_labels, alpha=0.25, gamma=1.5))
print(optax.losses.sigmoid_focal_loss(bin_logits, jnp.array([1, 0, 1, 1, 0]), gamma=0.0))

onehot = jax.nn.one_hot(labels, 4)
print(optax.smooth_labels(onehot, 0.1))
print(optax.losses.smooth_labels(onehot, 0.2, axis=0))

masked = logits.at[0, 1].set(-jnp.inf)
print(optax.safe_softmax_cross_entropy(masked, onehot))
print(optax.safe_softmax_cross_entropy(logits, probs))
print(optax.losses.poly_loss_cross_entropy(logits, onehot))
print(optax.losses.poly_loss_cross_entropy(logits, probs, epsilon=-1.0, axis=0))

emb = jnp.array([[1.0, 0.0, 0.5], [0.9, 0.1, 0.4], [-0.5, 1.0, 0.0], [-0.4, 0.8, 0.2]])
print(optax.ntxent(emb, jnp.array([0, 0, 1, 1])))
print(optax.losses.ntxent(emb, jnp.array([0, 1, 0, 1]), temperature=0.5))
anc, pos, neg = emb[:2], emb[2:], emb[::-1][:2]
print(optax.losses.triplet_margin_loss(anc, pos, neg))
print(optax.losses.triplet_margin_loss(anc, pos, neg, norm_degree=1, margin=0.5))

g_kl = jax.grad(lambda z: optax.kl_divergence(jax.nn.log_softmax(z), probs).sum())(logits)
g_cos = jax.grad(lambda z: optax.cosine_distance(z, b).mean())(a + 1.0)
g_focal = jax.grad(lambda z: optax.sigmoid_focal_loss(z, bin_labels, alpha=0.25).sum())(bin_logits)
print(g_kl, g_cos, g_focal, sep="\n")

for bad in [lambda: optax.kl_divergence(jnp.array([1, 2]), probs[0, :2]),
            lambda: optax.losses.perceptron_loss(scores, signs[:3]),
            lambda: optax.ntxent(emb, jnp.array([0, 1])),
            lambda: optax.cosine_similarity(jnp.array([1, 2]), jnp.array([1.0, 2.0]))]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)

result = [optax.kl_divergence(log_p, targets), optax.sigmoid_focal_loss(bin_logits, bin_labels, alpha=0.25),
          optax.ntxent(emb, jnp.array([0, 0, 1, 1])), g_kl, g_focal]
