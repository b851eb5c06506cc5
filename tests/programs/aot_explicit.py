# Ahead-of-time stages of a jitted function over explicit mesh axes, and the
# sharding rule of contractions there: which splits JAX accepts, and its
# errors for the others.
import jax
import jax.numpy as jnp

P = jax.P
jax.set_mesh(jax.make_mesh((4, 2), ('X', 'Y')))


def contract(a_shape, b_shape, sa, sb):
    a = jax.device_put(jnp.arange(float(a_shape[0] * a_shape[1])).reshape(a_shape), sa)
    b = jax.device_put(jnp.ones(b_shape) / 2, sb)
    try:
        c = a @ b
        print(sa, sb, '->', jax.typeof(c), float(c.sum()))
    except Exception as e:
        print(sa, sb, '->', type(e).__name__, str(e).split('\n')[0])


contract((8, 4), (4, 2), P('X', 'Y'), P(None, None))
contract((8, 4), (4, 2), P('X', None), P('Y', None))
contract((8, 4), (4, 2), P('X', 'Y'), P('Y', None))
contract((8, 4), (4, 2), P('X', 'Y'), P('X', None))
contract((8, 4), (4, 8), P(None, 'Y'), P(None, 'Y'))
contract((8, 4), (4, 8), P('Y', None), P(None, 'Y'))

x = jax.device_put(jnp.arange(32.0).reshape(8, 4) / 8, P('X', 'Y'))
w = jax.device_put(jnp.ones((4, 2)), P(None, None))
f = jax.jit(lambda x, w: jnp.tanh(x @ w) * 2)
print(f.trace(x, w).jaxpr)
compiled = f.lower(x, w).compile()
print(compiled.input_shardings)
print(compiled.output_shardings)
g = jax.jit(lambda x: x.sum(0))
print('all-reduce(' in g.lower(x).compile().as_text())
print(g(x), jax.typeof(g(x)))
result = g(x)
