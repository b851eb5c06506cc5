# optax.tree_utils / optax.tree: casts, the tree's dtype and size, extrema,
# where/clip/batch_shape, allclose and set on optimizer states.
import jax
import jax.numpy as jnp
import optax
import optax.tree_utils as otu

t = {'w': jnp.array([[1.5, -2.0], [0.25, 3.0]]), 'b': jnp.array([4.0, -1.0], jnp.float16)}
c = otu.tree_cast(t, jnp.bfloat16)
print(c, otu.tree_cast(t, None)['b'].dtype)
like = otu.tree_cast_like({'w': jnp.ones((2, 2)), 'b': jnp.arange(2)}, t)
print(like['b'].dtype, like['w'].dtype, like)
print(repr(otu.tree_dtype(t, 'promote')), repr(otu.tree_dtype(t, 'highest')), repr(otu.tree_dtype(t, 'lowest')))
print(repr(otu.tree_dtype({'a': jnp.ones(2), 'b': 3.0})), repr(otu.tree_dtype({})))
print(repr(otu.tree_dtype({'i': jnp.arange(2), 'u': jnp.arange(2, dtype=jnp.uint32)}, 'promote')))
for h in [None, 'highest', 'middle']:
    try:
        otu.tree_dtype({'i': jnp.arange(2), 'u': jnp.arange(2, dtype=jnp.uint32), 'f': jnp.ones(1)}, h)
    except ValueError as e:
        print('ValueError', e)
print(otu.tree_size(t), type(otu.tree_size(t)).__name__, otu.tree_size({'e': jnp.zeros((0, 3)), 's': 2.0}))
print(otu.tree_max(t), otu.tree_min(t), optax.tree.max({'i': jnp.arange(3), 'e': jnp.zeros(0)}))
print(optax.tree.min({}), otu.tree_max([]))
z = {'a': jnp.array([1 + 2j, 3 - 1j], jnp.complex64), 'r': jnp.array([2.0])}
print(otu.tree_conj(z), otu.tree_real(z))
print(otu.tree_where(jnp.array([True, False]), {'x': jnp.ones(2)}, {'x': jnp.zeros(2)}))
print(otu.tree_where(False, t, otu.tree_zeros_like(t)))
print(otu.tree_clip(t, -1.0, 2.0), optax.tree.clip(t, max_value=0.5))
bs = otu.tree_batch_shape({'a': jnp.arange(3), 'b': 2.0}, (2,))
print(jax.tree.map(jnp.shape, bs), bs)
print(otu.tree_allclose(t, t), otu.tree_allclose(t, otu.tree_scale(1.0001, t)))
print(otu.tree_allclose(t, otu.tree_scale(1.0001, t), rtol=1e-3), otu.tree_allclose({}, {}))
nan = {'n': jnp.array([jnp.nan, 1.0])}
print(otu.tree_allclose(nan, nan), optax.tree.allclose(nan, nan, equal_nan=True))

opt = optax.inject_hyperparams(optax.adam)(learning_rate=0.1, b1=0.8)
params = {'w': jnp.array([1.0, -2.0])}
state = opt.init(params)
state2 = otu.tree_set(state, learning_rate=0.01)
print(state2.hyperparams['learning_rate'], state2.hyperparams['b1'], state.hyperparams['learning_rate'])
u, _ = opt.update({'w': jnp.array([0.5, 0.5])}, state2, params)
print(u)
s3 = optax.tree.set(state2, count=jnp.asarray(5), b1=0.5)
print(s3.count, s3.hyperparams['b1'], s3.inner_state[0].count)
try:
    otu.tree_get(s3, 'count')
except KeyError as e:
    print('KeyError', e)
chain = optax.chain(optax.add_decayed_weights(0.1), optax.sgd(0.1, momentum=0.9))
cs = chain.init(params)
cs2 = otu.tree_set(cs, trace={'w': jnp.array([7.0, 8.0])})
print(cs2)
print(otu.tree_set({'a': 1, 'b': {'a': 2, 'c': 3}}, a=9))
try:
    otu.tree_set(cs, nope=1)
except KeyError as e:
    print('KeyError', e)
result = otu.tree_cast(t, jnp.float32)
