import jax
import jax.numpy as jnp
from flax import nnx

scores = jax.random.normal(jax.random.key(3), (6, 3))
truth = jnp.array([0, 2, 1, 1, 0, 2])
losses = jnp.array([0.5, 1.5, 2.0, 4.0])

avg = nnx.metrics.Average()
print(avg)
print(avg.compute())
avg.update(values=losses)
avg.update(values=3)
print(avg.compute(), avg.count[...], avg.total[...])
avg.update(values=losses, mask=jnp.array([True, False, True, False]))
print(avg.compute())
avg.reset()
print(avg.compute())

acc = nnx.metrics.Accuracy()
acc.update(logits=scores, labels=truth)
print(acc.compute())
acc.update(logits=scores[:3], labels=jnp.array([1, 1, 1]), extra=5)
print(acc.compute())

binary = nnx.metrics.Accuracy(threshold=0.25)
binary.update(logits=scores[:, 0], labels=jnp.array([1, 0, 1, 0, 1, 1]))
print(binary.compute())

wf = nnx.metrics.Welford('loss')
print(wf.compute())
wf.update(loss=losses)
wf.update(loss=jnp.array([1.0, 3.0]))
print(wf.compute())
s = wf.compute()
print(s.mean, s.standard_deviation)
print(wf.count[...], wf.m2[...])

metrics = nnx.MultiMetric(accuracy=nnx.metrics.Accuracy(), loss=nnx.metrics.Average('loss'))
print(metrics)
print(metrics.compute())
metrics.update(loss=losses[0], logits=scores, labels=truth)
metrics.update(loss=losses[1], logits=scores, labels=jnp.array([2, 2, 2, 2, 2, 2]))
print(metrics.compute())
print(metrics.accuracy.compute(), metrics.loss)
metrics.reset()
print(metrics.compute())
print(isinstance(metrics, nnx.metrics.Metric), isinstance(acc, nnx.metrics.Average))
print(type(avg.total).__name__, isinstance(avg.total, nnx.Variable))
print(nnx.state(metrics, nnx.metrics.MetricState))

for bad in [
    lambda: avg.update(loss=losses),
    lambda: nnx.metrics.Accuracy(threshold=1),
    lambda: acc.update(logits=scores, labels=truth[:, None]),
    lambda: binary.update(logits=scores, labels=truth),
    lambda: acc.update(logits=scores, labels=jnp.array([0.0, 1, 1, 1, 0, 1])),
    lambda: avg.update(values=2.0, mask=jnp.array([True])),
    lambda: metrics.update(logits=scores, labels=truth),
]:
  try:
    bad()
  except (TypeError, ValueError) as e:
    print(type(e).__name__, e)

class Largest(nnx.metrics.Metric):
  def __init__(self):
    self.best = nnx.metrics.MetricState(jnp.array(-jnp.inf))

  def update(self, **kw):
    self.best[...] = jnp.maximum(self.best[...], kw['values'].max())

  def compute(self):
    return self.best[...]

big = Largest()
big.update(values=losses)
print(big.compute(), big)
try:
  big.reset()
except NotImplementedError as e:
  print(e)

import optax
model = nnx.Linear(3, 3, rngs=nnx.Rngs(0))
optimizer = nnx.Optimizer(model, optax.sgd(0.1), wrt=nnx.Param)
tracked = nnx.MultiMetric(accuracy=nnx.metrics.Accuracy(), loss=nnx.metrics.Average('loss'))

def loss_fn(model, x, y):
  logits = model(x)
  return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean(), logits

@nnx.jit
def train_step(model, optimizer, tracked, x, y):
  (loss, logits), grads = nnx.value_and_grad(loss_fn, has_aux=True)(model, x, y)
  tracked.update(loss=loss, logits=logits, labels=y)
  optimizer.update(model, grads)

for step in range(3):
  train_step(model, optimizer, tracked, scores, jnp.array([0, 1, 2, 0, 1, 2]))
  c = tracked.compute()
  print(step, c['accuracy'], c['loss'])
result = tracked.compute()
