# A scan over stacked layers whose weights are split over an explicit mesh
# axis: the body sees one layer at a time with the weights' sharding (the
# stacked dimension removed), the carry keeps its sharded type, and the
# per-step outputs are stacked along a whole leading dimension.
import jax, jax.numpy as jnp
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((2, 4), ('data', 'model'), axis_types=(AxisType.Explicit, AxisType.Explicit))


def report(name, f):
    try:
        out = f()
        for leaf in jax.tree_util.tree_leaves(out):
            print(name, jax.typeof(leaf), leaf.sharding.spec)
        return out
    except Exception as e:
        print(name, type(e).__name__, str(e).split('\n\n')[0:2])


with jax.set_mesh(mesh):
    ws = jax.device_put(jnp.arange(2 * 8 * 8.0).reshape(2, 8, 8) / 64, P(None, None, 'model'))
    x = jax.device_put(jnp.ones((4, 8)), P('data', None))

    def layer(c, w):
        print('body sees', jax.typeof(c), jax.typeof(w))
        h = jnp.dot(c, w, out_sharding=P('data', None))
        return h, h.sum()

    c, ys = report('eager', lambda: jax.lax.scan(layer, x, ws))
    print(c, ys)
    def layer2(c, w):
        print('jit body sees', jax.typeof(c), jax.typeof(w))
        h = jnp.dot(c, w, out_sharding=P('data', None))
        return h, h.sum()

    c2, ys2 = report('jit', lambda: jax.jit(lambda x, ws: jax.lax.scan(layer2, x, ws))(x, ws))
    print(bool((c2 == c).all()), ys2)

    # A pytree of stacked layers, and a per-step output keeping the weights'
    # layout: stacked, it is split as they are.
    tree = {'w': ws, 'b': jax.device_put(jnp.zeros((2, 8)), P(None, 'model'))}
    report('tree', lambda: jax.lax.scan(lambda c, l: (c + 1.0, l['w'] + l['b']), 0.0, tree))

    # A carry that comes back split another way is a different type.
    report('carry', lambda: jax.lax.scan(lambda c, w: (c @ w, None), x, ws))
    report('carry0', lambda: jax.lax.scan(lambda c, w: (w[0], None), jnp.zeros(8), ws))

    # The scanned dimension itself must not be split.
    split = jax.device_put(jnp.ones((2, 8, 8)), P('data', None, 'model'))
    report('xs', lambda: jax.lax.scan(lambda c, w: (c, w), 0.0, split))

    # Differentiating through the scan keeps the weights' layout.
    def layer3(c, w):
        h = jnp.dot(c, w, out_sharding=P('data', None))
        return h, None

    g = jax.grad(lambda ws: jax.lax.scan(layer3, x, ws)[0].sum())(ws)
    print('grad', jax.typeof(g), g.sharding.spec, g.sum())
