"""Programs that raise: the exception type name and message are recorded."""

from fixturelib import program

MESH8 = "\n        mesh = Mesh(np.array(jax.devices()[:8]), ('data',))"
MESH24 = "\n        mesh = Mesh(np.array(jax.devices()[:8]).reshape(2, 4), ('x', 'y'))"

CASES = [
    ("unbound_axis_name_in_psum", ["x"], MESH8 + """
        x = jnp.arange(16, dtype=jnp.float32)
        f = jax.shard_map(lambda b: jax.lax.psum(jnp.sum(b), axis_name='batch'),
                          mesh=mesh, in_specs=P('data'), out_specs=P())
        result = f(x)
        """),
    ("unbound_axis_name_in_psum_check_vma_false", ["x"], MESH8 + """
        x = jnp.arange(16, dtype=jnp.float32)
        f = jax.shard_map(lambda b: jax.lax.psum(jnp.sum(b), axis_name='batch'),
                          mesh=mesh, in_specs=P('data'), out_specs=P(), check_vma=False)
        result = f(x)
        """),
    ("unbound_axis_name_outside_any_map", ["x"], """
        x = jnp.arange(4, dtype=jnp.float32)
        result = jax.lax.psum(x, 'batch')
        """),
    ("unbound_axis_name_in_jit", ["x"], """
        x = jnp.arange(4, dtype=jnp.float32)
        result = jax.jit(lambda v: jax.lax.psum(v, 'batch'))(x)
        """),
    ("unbound_axis_name_in_pmap", ["x"], """
        x = jnp.arange(8, dtype=jnp.float32)
        result = jax.pmap(lambda v: jax.lax.psum(v, 'batch'), axis_name='data')(x)
        """),
    ("shard_map_dim_not_divisible", ["x"], MESH8 + """
        x = jnp.arange(12, dtype=jnp.float32)
        f = jax.shard_map(lambda b: b * 2, mesh=mesh, in_specs=P('data'), out_specs=P('data'))
        result = f(x)
        """),
    ("device_put_dim_not_divisible", ["x"], MESH24 + """
        x = jnp.arange(12, dtype=jnp.float32).reshape(6, 2)
        result = jax.device_put(x, NamedSharding(mesh, P('y')))
        """),
    ("device_put_tuple_axes_not_divisible", ["x"], """
        mesh = Mesh(np.array(jax.devices()[:8]).reshape(2, 2, 2), ('x', 'y', 'z'))
        x = jnp.arange(32, dtype=jnp.float32).reshape(4, 4, 2)
        result = jax.device_put(x, NamedSharding(mesh, P(('z', 'x', 'y'))))
        """),
    ("mesh_axis_used_twice_in_spec", ["x"], MESH24 + """
        x = jnp.arange(32, dtype=jnp.float32).reshape(4, 8)
        result = jax.device_put(x, NamedSharding(mesh, P('x', 'x')))
        """),
    ("mesh_axis_used_twice_in_shard_map_spec", ["x"], MESH24 + """
        x = jnp.arange(32, dtype=jnp.float32).reshape(4, 8)
        f = jax.shard_map(lambda b: b, mesh=mesh, in_specs=P('y', 'y'), out_specs=P('y', 'y'))
        result = f(x)
        """),
    ("spec_rank_above_array_rank", ["x"], MESH24 + """
        x = jnp.arange(8, dtype=jnp.float32)
        f = jax.shard_map(lambda b: b, mesh=mesh, in_specs=P('x', 'y'), out_specs=P('x', 'y'))
        result = f(x)
        """),
    ("device_put_spec_rank_above_array_rank", ["x"], MESH24 + """
        x = jnp.arange(8, dtype=jnp.float32)
        result = jax.device_put(x, NamedSharding(mesh, P('x', 'y')))
        """),
    ("out_specs_omit_varying_axis", ["x"], MESH24 + """
        x = jnp.arange(32, dtype=jnp.float32).reshape(4, 8)

        def body(b):
            return jax.lax.psum(b, 'x')   # still varies over 'y'

        f = jax.shard_map(body, mesh=mesh, in_specs=P('x', 'y'), out_specs=P())
        result = f(x)
        """),
    ("all_gather_default_out_specs_replicated", ["x"], MESH8 + """
        x = jnp.arange(16, dtype=jnp.float32)
        # all_gather's result counts as varying (to='varying') unless asked otherwise
        f = jax.shard_map(lambda b: jax.lax.all_gather(b, 'data', tiled=True),
                          mesh=mesh, in_specs=P('data'), out_specs=P())
        result = f(x)
        """),
    ("elementwise_shape_mismatch", ["a", "b"], """
        a = jnp.ones(3, dtype=jnp.float32)
        b = jnp.ones(4, dtype=jnp.float32)
        result = a + b
        """),
    ("matmul_shape_mismatch", ["a", "b"], """
        a = jnp.ones((2, 3), dtype=jnp.float32)
        b = jnp.ones((2, 3), dtype=jnp.float32)
        result = a @ b
        """),
    ("psum_scatter_not_divisible", ["x"], MESH8 + """
        x = jnp.arange(24, dtype=jnp.float32)
        f = jax.shard_map(lambda b: jax.lax.psum_scatter(b, 'data', tiled=True),
                          mesh=mesh, in_specs=P('data'), out_specs=P('data'))
        result = f(x)
        """),
    ("psum_scatter_untiled_wrong_size", ["x"], MESH8 + """
        x = jnp.arange(32, dtype=jnp.float32)
        f = jax.shard_map(lambda b: jax.lax.psum_scatter(b, 'data', tiled=False),
                          mesh=mesh, in_specs=P('data'), out_specs=P('data'))
        result = f(x)
        """),
    ("ppermute_duplicate_destinations", ["x"], MESH8 + """
        x = jnp.arange(16, dtype=jnp.float32)
        f = jax.shard_map(lambda b: jax.lax.ppermute(b, 'data', [(0, 1), (2, 1)]),
                          mesh=mesh, in_specs=P('data'), out_specs=P('data'))
        result = f(x)
        """),
    ("ppermute_duplicate_sources", ["x"], MESH8 + """
        x = jnp.arange(16, dtype=jnp.float32)
        f = jax.shard_map(lambda b: jax.lax.ppermute(b, 'data', [(0, 1), (0, 2)]),
                          mesh=mesh, in_specs=P('data'), out_specs=P('data'))
        result = f(x)
        """),
    ("pmap_more_devices_than_exist", ["x"], """
        x = jnp.arange(9, dtype=jnp.float32)
        result = jax.pmap(lambda a: a * 2)(x)
        """),
    ("pmap_scalar_in_axes_0", ["w"], """
        w = jnp.ones(())
        result = jax.pmap(lambda a: a * 2)(w)
        """),
    ("grad_of_non_scalar_output", ["x"], """
        x = jnp.arange(3, dtype=jnp.float32)
        result = jax.grad(lambda x: x * 2.0)(x)
        """),
    ("grad_wrt_int_input", ["x"], """
        x = jnp.arange(3, dtype=jnp.int32)
        result = jax.grad(lambda x: jnp.sum(x * 2))(x)
        """),
    ("grad_of_pmax", ["x"], MESH8 + """
        x = jnp.arange(16, dtype=jnp.float32)
        f = jax.shard_map(lambda b: jax.lax.pmax(b, 'data'), mesh=mesh, in_specs=P('data'), out_specs=P())
        result = jax.grad(lambda x: jnp.sum(f(x)))(x)
        """),
    ("make_mesh_explicit_shard_map_unsharded_input", ["x"], """
        mesh = jax.make_mesh((8,), ('data',))
        x = jnp.arange(16, dtype=jnp.float32)
        f = jax.shard_map(lambda b: jax.lax.psum(jnp.sum(b), 'data'), mesh=mesh, in_specs=P('data'), out_specs=P())
        result = f(x)
        """),
    ("in_specs_count_mismatch", ["x"], MESH8 + """
        x = jnp.arange(16, dtype=jnp.float32)
        f = jax.shard_map(lambda a, b: a + b, mesh=mesh, in_specs=(P('data'),), out_specs=P('data'))
        result = f(x, x)
        """),
    ("unknown_mesh_axis_in_spec", ["x"], MESH8 + """
        x = jnp.arange(16, dtype=jnp.float32)
        f = jax.shard_map(lambda b: b, mesh=mesh, in_specs=P('model'), out_specs=P('model'))
        result = f(x)
        """),
    ("tree_map_removed", [], """
        result = jax.tree_map(lambda v: v * 2, {'a': jnp.ones(2)})
        """),
    ("pvary_removed", [], """
        result = jax.lax.pvary
        """),
    ("vmap_ppermute_partial_permutation", ["x"], """
        x = jnp.arange(8, dtype=jnp.float32).reshape(4, 2)
        result = jax.vmap(lambda a: jax.lax.ppermute(a, 'b', [(0, 3), (1, 0)]), axis_name='b')(x)
        """),
]


def cases():
    return [
        {"name": n, "source": program(b), "inputs": i, "expect_error": True}
        for n, i, b in CASES
    ]
