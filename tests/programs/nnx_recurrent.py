import jax
import jax.numpy as jnp
from flax import nnx

x = jax.random.normal(jax.random.key(0), (2, 5, 3))

lstm = nnx.LSTMCell(3, 4, rngs=nnx.Rngs(0))
print(lstm.ii.kernel.shape, lstm.hi.kernel.shape, lstm.ii.bias, lstm.hi.bias[...])
print(lstm.hf.kernel[...])
carry = lstm.initialize_carry((2, 3), nnx.Rngs(1))
print(type(carry).__name__, carry[0].shape, carry[1].dtype)
carry, y = lstm(carry, x[:, 0])
print(y)
print(carry[0])

opt = nnx.OptimizedLSTMCell(3, 4, rngs=nnx.Rngs(0))
print(opt.dense_i.kernel.shape, opt.dense_h.kernel.shape)
print(opt.dense_h.kernel[...][:, :3])
c2, y2 = opt(opt.initialize_carry((2, 3), nnx.Rngs(1)), x[:, 0])
print(y2)

gru = nnx.GRUCell(3, 4, rngs=nnx.Rngs(2))
h = gru.initialize_carry((2, 3), rngs=nnx.Rngs(0))
h, yg = gru(h + 0.5, x[:, 1])
print(yg)
print(gru.dense_h.kernel[...][0])

simple = nnx.SimpleCell(3, 4, residual=True, rngs=nnx.Rngs(3))
hs, ys = simple(jnp.ones((2, 4)), x[:, 2])
print(ys)

rnn = nnx.RNN(nnx.LSTMCell(3, 4, rngs=nnx.Rngs(4)))
out = rnn(x)
print(out.shape)
print(out[1])
carry, out2 = rnn(x, return_carry=True, reverse=True, keep_order=True)
print(out2[0, :2], carry[1])
print(rnn(jnp.swapaxes(x, 0, 1), time_major=True)[2])

gr = nnx.RNN(nnx.GRUCell(3, 2, rngs=nnx.Rngs(5)), return_carry=True, reverse=True)
c, o = gr(x, initial_carry=jnp.full((2, 2), 0.1))
print(c, o[:, -1])

bi = nnx.Bidirectional(nnx.RNN(nnx.SimpleCell(3, 2, rngs=nnx.Rngs(6))),
                       nnx.RNN(nnx.GRUCell(3, 2, rngs=nnx.Rngs(7))))
yb = bi(x)
print(yb.shape)
print(yb[0])

# Non-zero carries draw keys from the carry stream.
rc = nnx.GRUCell(3, 2, carry_init=nnx.initializers.normal(1.0), rngs=nnx.Rngs(8))
print(rc.initialize_carry((2, 3), nnx.Rngs(carry=9)))
print(rc.initialize_carry((2, 3), nnx.Rngs(carry=9), carry_init=nnx.initializers.ones))

# A cell's parameters train like any others.
def loss(cell, xs):
    c = cell.initialize_carry(xs[:, 0].shape, nnx.Rngs(0))
    for t in range(xs.shape[1]):
        c, y = cell(c, xs[:, t])
    return jnp.mean(y ** 2)
g = nnx.grad(loss)(lstm, x)
print(g['hi']['kernel'][...][0])

rngs = nnx.Rngs(10)
nnx.LSTMCell(2, 2, rngs=rngs)
print(nnx.Linear(2, 2, rngs=rngs).kernel[...])

try:
    lstm.initialize_carry((2, 3))
except ValueError as e:
    print("ValueError:", e)
result = out
