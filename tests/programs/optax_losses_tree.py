import jax
import jax.numpy as jnp
import optax
import optax.tree

logits = jnp.array([[1.5, -0.3, 0.2], [0.1, 2.0, -1.0]])
onehot = jnp.array([[0.0, 1.0, 0.0], [0.2, 0.7, 0.1]])
labels = jnp.array([2, 1])
pred = jnp.array([0.5, -1.5, 3.0, 0.1])
tgt = jnp.array([0.0, 0.0, 1.0, 0.3])
losses = {
    "sce": optax.softmax_cross_entropy(logits, onehot),
    "sce_int": optax.softmax_cross_entropy_with_integer_labels(logits, labels),
    "sigmoid": optax.sigmoid_binary_cross_entropy(logits, onehot),
    "l2": optax.l2_loss(pred, tgt),
    "sq": optax.squared_error(pred),
    "huber": optax.huber_loss(pred, tgt, delta=0.5),
    "losses_mod": optax.losses.huber_loss(pred),
}
for k, v in losses.items():
    print(k, [round(x, 5) for x in jnp.ravel(v).tolist()])

a = {"x": jnp.array([1.0, 2.0]), "y": (jnp.array([[3.0]]), jnp.array([-1.0]))}
b = {"x": jnp.array([0.5, 0.5]), "y": (jnp.array([[2.0]]), jnp.array([4.0]))}
print(optax.tree.add(a, b))
print(optax.tree.sub(a, b))
print(optax.tree.scale(2.0, a))
print(optax.tree.vdot(a, b))
print(optax.tree.norm(a))
print(optax.tree.sum(b))
print(optax.tree.zeros_like(a))
print(optax.tree_utils.tree_norm(b))
state = optax.adam(0.1).init(a)
print(optax.tree.get(state, "count"))
print(optax.tree.get(state, "missing", 7))

m = jnp.arange(6.0).reshape(2, 3)
n = jnp.arange(12.0).reshape(3, 4)
print(jnp.inner(m, m))
print(jnp.inner(jnp.array([1.0, 2.0]), jnp.array([3.0, -1.0])))
print(jnp.tensordot(m, n, axes=1))
print(jnp.tensordot(m, m, axes=([0, 1], [0, 1])))
print(jnp.tensordot(m.reshape(3, 2), n, axes=[[0], [0]]))
print(jnp.outer(jnp.array([1.0, 2.0]), jnp.array([3.0, 4.0, 5.0])))
result = losses
