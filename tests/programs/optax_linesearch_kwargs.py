# A backtracking line search whose objective takes data besides the
# parameters: the update's extra keyword arguments that name a parameter of
# value_fn reach it (any other is a TypeError), with and without store_grad.
import jax
import jax.numpy as jnp
import optax


def loss(params, x, y):
    return 0.5 * jnp.sum((x @ params['w'] + params['b'] - y) ** 2)


x = jnp.array([[1.0, 2.0], [0.5, -1.0], [3.0, 0.25]])
y = jnp.array([1.0, -2.0, 0.5])
params = {'w': jnp.array([0.1, -0.3]), 'b': jnp.array(0.2)}
for store in [False, True]:
    opt = optax.chain(optax.sgd(1.0), optax.scale_by_backtracking_linesearch(max_backtracking_steps=15, store_grad=store))
    p, st = params, opt.init(params)
    for _ in range(3):
        value, grad = jax.value_and_grad(loss)(p, x, y)
        u, st = opt.update(grad, st, p, value=value, grad=grad, value_fn=loss, x=x, y=y)
        p = optax.apply_updates(p, u)
        print(value, st[1].learning_rate, st[1].info.num_linesearch_steps)
    print(p)

try:
    opt.update(grad, st, p, value=value, grad=grad, value_fn=loss, x=x, y=y, zeta=1, extra=2)
except TypeError as e:
    print('TypeError', e)

vg = optax.value_and_grad_from_state(loss)
opt = optax.lbfgs(linesearch=optax.scale_by_backtracking_linesearch(max_backtracking_steps=20, store_grad=True))
p, st = params, opt.init(params)
for _ in range(3):
    value, grad = vg(p, x, y, state=st)
    u, st = opt.update(grad, st, p, value=value, grad=grad, value_fn=loss, x=x, y=y)
    p = optax.apply_updates(p, u)
    print(value)
result = p
