# stdout: exact digits
import jax
import jax.numpy as jnp
import flax.linen as nn

x = jax.random.normal(jax.random.key(5), (2, 5, 3))

# A cell made outside any module becomes the RNN's child "cell".
rnn = nn.RNN(nn.LSTMCell(3))
v = rnn.init(jax.random.key(0), x)
print(jax.tree_util.tree_map(jnp.shape, v))
y = rnn.apply(v, x)
print(y.shape)
print(y)
print(jax.jit(rnn.apply)(v, x)[1])

# The final carry; reverse with and without keep_order.
gru = nn.RNN(nn.GRUCell(3), return_carry=True, reverse=True, keep_order=True)
vg = gru.init(jax.random.key(1), x)
c, yg = gru.apply(vg, x)
print(c)
print(yg)
c, yr = gru.apply(vg, x, keep_order=False)
print(yr[0])

# Sequences of different lengths: padding stays at the end when reversed
# and the carry is the one at each sequence's last step.
lengths = jnp.array([3, 5])
c, ys = gru.apply(vg, x, seq_lengths=lengths)
print(c)
print(ys[0])
c, ys = gru.apply(vg, x, seq_lengths=lengths, keep_order=False)
print(ys[0])
cl, _ = nn.RNN(nn.LSTMCell(3), return_carry=True).apply(v, x, seq_lengths=jnp.array([1, 4]))
print(cl)

# Time-major inputs, an initial carry, a carry drawn from init_key.
tm = nn.RNN(nn.SimpleCell(3), time_major=True)
vt = tm.init(jax.random.key(3), x)
print(tm.apply(vt, x, initial_carry=jnp.ones((5, 3)))[1])
drawn = nn.RNN(nn.MGUCell(3, carry_init=nn.initializers.normal(1.0)), return_carry=True)
vd = drawn.init(jax.random.key(4), x)
print(drawn.apply(vd, x)[0])
print(drawn.apply(vd, x, init_key=jax.random.key(9))[0])

# Bidirectional: the two RNNs are its children forward_rnn and backward_rnn.
bi = nn.Bidirectional(nn.RNN(nn.GRUCell(3)), nn.RNN(nn.GRUCell(3)), return_carry=True)
vb = bi.init(jax.random.key(0), x)
print(jax.tree_util.tree_map(jnp.shape, vb))
(cf, cb), yb = bi.apply(vb, x, seq_lengths=jnp.array([2, 4]))
print(cf, cb)
print(yb[1])
summed = nn.Bidirectional(nn.RNN(nn.SimpleCell(3)), nn.RNN(nn.SimpleCell(3)), merge_fn=lambda a, b: a + b)
vs = summed.init(jax.random.key(2), x)
print(summed.apply(vs, x)[0])


# Inside a compact module a cell belongs to the module that makes it.
class Stack(nn.Module):
    @nn.compact
    def __call__(self, x):
        h = nn.RNN(nn.GRUCell(3))(x)
        return nn.RNN(nn.OptimizedLSTMCell(3), name="back")(h, reverse=True)


vp = Stack().init(jax.random.key(0), x)
print(jax.tree_util.tree_map(jnp.shape, vp))
print(Stack().apply(vp, x)[1])


# A cell written in the program, with nn.nowrap's initialize_carry.
class Leaky(nn.RNNCellBase):
    features: int

    @nn.compact
    def __call__(self, carry, x):
        h = 0.5 * carry + nn.tanh(nn.Dense(self.features)(x))
        return h, 2.0 * h

    @nn.nowrap
    def initialize_carry(self, rng, input_shape):
        return jnp.zeros(input_shape[:-1] + (self.features,))

    @property
    def num_feature_axes(self):
        return 1


leaky = nn.RNN(Leaky(2), return_carry=True)
vl = leaky.init(jax.random.key(6), x)
print(jax.tree_util.tree_map(jnp.shape, vl))
cl, yl = leaky.apply(vl, x)
print(cl)
print(yl[0])

# ConvLSTM over time: the time axis is the one before the spatial axes.
xc = jax.random.normal(jax.random.key(8), (2, 3, 4, 4, 2))
cr = nn.RNN(nn.ConvLSTMCell(3, kernel_size=(2, 2)))
yc, vc = cr.init_with_output(jax.random.key(0), xc)
print(yc.shape, jax.tree_util.tree_map(jnp.shape, vc))
print(cr.apply(vc, xc)[1, 2, 0])
print(nn.RNN(nn.GRUCell(3), unroll=2))
result = y
