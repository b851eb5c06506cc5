"""Printed jaxprs (str(jax.make_jaxpr(f)(*args))) of small programs."""

from fixturelib import program

MESH8 = "\n        mesh = Mesh(np.array(jax.devices()[:8]), ('x',))"

CASES = [
    ("elementwise_and_reduce", ["x"], """
        x = jnp.arange(8, dtype=jnp.float32)

        def f(x):
            return jnp.sum(jnp.sin(x) * 2.0 + 1.0)

        jaxpr = jax.make_jaxpr(f)(x)
        result = f(x)
        """),
    ("matmul", ["a", "b"], """
        a = jnp.arange(6, dtype=jnp.float32).reshape(2, 3)
        b = jnp.arange(12, dtype=jnp.float32).reshape(3, 4)

        def f(a, b):
            return a @ b

        jaxpr = jax.make_jaxpr(f)(a, b)
        result = f(a, b)
        """),
    ("shard_map_psum", ["x"], MESH8 + """
        x = jnp.arange(16, dtype=jnp.float32)
        f = jax.shard_map(lambda b: jax.lax.psum(jnp.sum(b), 'x'), mesh=mesh, in_specs=P('x'), out_specs=P())
        jaxpr = jax.make_jaxpr(f)(x)
        result = f(x)
        """),
    ("shard_map_psum_check_vma_false", ["x"], MESH8 + """
        x = jnp.arange(16, dtype=jnp.float32)
        f = jax.shard_map(lambda b: jax.lax.psum(jnp.sum(b), 'x'), mesh=mesh, in_specs=P('x'), out_specs=P(), check_vma=False)
        jaxpr = jax.make_jaxpr(f)(x)
        result = f(x)
        """),
    ("shard_map_all_gather", ["x"], MESH8 + """
        x = jnp.arange(16, dtype=jnp.float32)
        f = jax.shard_map(lambda b: jax.lax.all_gather(b, 'x', tiled=True, to='invarying'),
                          mesh=mesh, in_specs=P('x'), out_specs=P())
        jaxpr = jax.make_jaxpr(f)(x)
        result = f(x)
        """),
    ("shard_map_replicated_weight", ["w", "x"], MESH8 + """
        w = jnp.float32(2.0)
        x = jnp.arange(16, dtype=jnp.float32)
        f = jax.shard_map(lambda w, b: w * b, mesh=mesh, in_specs=(P(), P('x')), out_specs=P('x'))
        jaxpr = jax.make_jaxpr(f)(w, x)
        result = f(w, x)
        """),
    ("grad_small_function", ["x"], """
        x = jnp.array([0.5, 1.0, 2.0], dtype=jnp.float32)

        def f(x):
            return jnp.sum(jnp.tanh(x) * x)

        jaxpr = jax.make_jaxpr(jax.grad(f))(x)
        result = jax.grad(f)(x)
        """),
    ("vmap", ["x", "w"], """
        x = jnp.arange(6, dtype=jnp.float32).reshape(2, 3)
        w = jnp.array([1.0, 2.0, 3.0], dtype=jnp.float32)
        f = jax.vmap(lambda r, w: jnp.dot(r, w), in_axes=(0, None))
        jaxpr = jax.make_jaxpr(f)(x, w)
        result = f(x, w)
        """),
    ("vmap_named_psum", ["x"], """
        x = jnp.arange(6, dtype=jnp.float32).reshape(2, 3)
        f = jax.vmap(lambda r: r / jax.lax.psum(r, 'b'), axis_name='b')
        jaxpr = jax.make_jaxpr(f)(x)
        result = f(x)
        """),
    ("pmap_psum", ["x"], """
        x = jnp.arange(8, dtype=jnp.float32)
        f = jax.pmap(lambda a: jax.lax.psum(a * 2.0, 'i'), axis_name='i')
        jaxpr = jax.make_jaxpr(f)(x)
        result = f(x)
        """),
    ("jit_nested", ["x"], """
        x = jnp.arange(4, dtype=jnp.float32)

        @jax.jit
        def inner(v):
            return v * v

        def f(v):
            return jnp.sum(inner(v) + 1.0)

        jaxpr = jax.make_jaxpr(f)(x)
        result = f(x)
        """),
]


def cases():
    return [
        {"name": n, "source": program(b), "inputs": i, "jaxpr": True}
        for n, i, b in CASES
    ]
