# stdout: exact digits
import jax
import jax.numpy as jnp
import flax.linen as nn

x = jax.random.normal(jax.random.key(5), (2, 3))
x2 = jax.random.normal(jax.random.key(6), (2, 3))

cells = [
    nn.LSTMCell(3),
    nn.OptimizedLSTMCell(3),
    nn.GRUCell(3),
    nn.MGUCell(3),
    nn.MGUCell(3, reset_gate=False),
    nn.SimpleCell(3),
    nn.SimpleCell(3, residual=True, activation_fn=nn.relu),
    nn.LSTMCell(3, gate_fn=nn.hard_sigmoid, carry_init=nn.initializers.ones),
]
for cell in cells:
    carry = cell.initialize_carry(jax.random.key(1), x.shape)
    v = cell.init(jax.random.key(2), carry, x)
    print(type(cell).__name__, cell.num_feature_axes)
    print(jax.tree_util.tree_map(jnp.shape, v))
    c1, y1 = cell.apply(v, carry, x)
    c2, y2 = cell.apply(v, c1, x2)
    print(y1)
    print(y2)
    print(jax.tree_util.tree_map(lambda a: a[1], c2))

# The LSTM's parameters, drawn from each child's own path.
lstm = nn.LSTMCell(3)
v = lstm.init(jax.random.key(7), lstm.initialize_carry(jax.random.key(0), (2, 3)), x)
print(v["params"]["hf"]["kernel"])
print(v["params"]["if"]["kernel"])
print(v["params"]["hg"]["bias"])

# Same parameters, same numbers: OptimizedLSTMCell computes LSTMCell's cell.
opt = nn.OptimizedLSTMCell(3)
c0 = lstm.initialize_carry(jax.random.key(0), (2, 3))
print(opt.apply(v, c0, x)[1] - lstm.apply(v, c0, x)[1])

# A carry made by a random carry_init draws a key per carry array.
rnd = nn.GRUCell(4, carry_init=nn.initializers.normal(1.0))
print(rnd.initialize_carry(jax.random.key(3), (2, 5, 3)))
pair = nn.LSTMCell(2, carry_init=nn.initializers.normal(1.0))
print(pair.initialize_carry(jax.random.key(3), (3,)))

# MGU's forget gate starts with a bias of ones.
mgu = nn.MGUCell(3)
vm = mgu.init(jax.random.key(4), jnp.zeros((2, 3)), x)
print(vm["params"]["if"]["bias"], vm["params"]["in"]["bias"], sorted(vm["params"]["hn"]))

# ConvLSTMCell: Conv children ih and hh over four times the features.
xc = jax.random.normal(jax.random.key(8), (2, 4, 4, 2))
conv = nn.ConvLSTMCell(3, kernel_size=(2, 2))
cc = conv.initialize_carry(jax.random.key(1), xc.shape)
print(conv.num_feature_axes, jax.tree_util.tree_map(jnp.shape, cc))
vc = conv.init(jax.random.key(2), cc, xc)
print(jax.tree_util.tree_map(jnp.shape, vc))
(cn, hn), yc = conv.apply(vc, cc, xc)
print(yc[0, 1])
print(cn[1, 2])

# Inside jit the cell gives the same numbers.
cell = nn.GRUCell(3)
h0 = cell.initialize_carry(jax.random.key(0), x.shape)
vg = cell.init(jax.random.key(9), h0, x)
print(jax.jit(cell.apply)(vg, h0, x)[1])
print(nn.LSTMCell(5))
result = y2
