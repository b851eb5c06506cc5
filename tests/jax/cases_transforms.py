"""pmap, vmap with axis names, vmap inside shard_map, nested vmap, jit around shard_map."""

from fixturelib import program

MESH8 = "\n        mesh = Mesh(np.array(jax.devices()[:8]), ('x',))"

CASES = [
    # ---- pmap
    ("pmap_psum", ["x"], """
        x = jnp.arange(8, dtype=jnp.float32)
        result = jax.pmap(lambda a: jax.lax.psum(a, 'i'), axis_name='i')(x)
        """),
    ("pmap_pmean_rows", ["x"], """
        x = jnp.arange(16, dtype=jnp.float32).reshape(8, 2)
        result = jax.pmap(lambda a: jax.lax.pmean(a, 'i'), axis_name='i')(x)
        """),
    ("pmap_axis_index", ["x"], """
        x = jnp.zeros(8, dtype=jnp.float32)
        result = jax.pmap(lambda a: a + jax.lax.axis_index('i'), axis_name='i')(x)
        """),
    ("pmap_in_axes_0_none", ["x", "w"], """
        x = jnp.arange(16, dtype=jnp.float32).reshape(8, 2)
        w = jnp.array([10.0, 100.0], dtype=jnp.float32)

        def f(a, w):
            return a * w + jax.lax.psum(a, 'i')

        result = jax.pmap(f, axis_name='i', in_axes=(0, None))(x, w)
        """),
    ("pmap_out_axes_1", ["x"], """
        x = jnp.arange(24, dtype=jnp.float32).reshape(8, 3)
        result = jax.pmap(lambda a: a * 2 + jax.lax.axis_index('i'), axis_name='i', out_axes=1)(x)
        """),
    ("pmap_in_axes_1", ["x"], """
        x = jnp.arange(16, dtype=jnp.float32).reshape(2, 8)
        result = jax.pmap(lambda a: a - jax.lax.pmean(a, 'i'), axis_name='i', in_axes=1)(x)
        """),
    ("pmap_4_devices_psum", ["x"], """
        x = jnp.arange(8, dtype=jnp.float32).reshape(4, 2)
        result = jax.pmap(lambda a: jax.lax.psum(a, 'i'), axis_name='i', devices=jax.devices()[:4])(x)
        """),
    ("pmap_all_gather", ["x"], """
        x = jnp.arange(8, dtype=jnp.float32)
        result = jax.pmap(lambda a: jax.lax.all_gather(a, 'i'), axis_name='i')(x)
        """),
    ("pmap_ppermute_ring", ["x"], """
        x = jnp.arange(8, dtype=jnp.float32)
        perm = [(i, (i + 1) % 8) for i in range(8)]
        result = jax.pmap(lambda a: jax.lax.ppermute(a, 'i', perm), axis_name='i')(x)
        """),
    ("pmap_pytree_in_out", ["params", "x"], """
        params = {'w': jnp.float32(2.0), 'b': jnp.float32(0.5)}
        x = jnp.arange(16, dtype=jnp.float32).reshape(8, 2)

        def f(p, a):
            y = p['w'] * a + p['b']
            return {'y': y, 'total': jax.lax.psum(jnp.sum(y), 'i')}

        result = jax.pmap(f, axis_name='i', in_axes=(None, 0))(params, x)
        """),
    # ---- vmap with axis_name
    ("vmap_psum", ["x"], """
        x = jnp.arange(12, dtype=jnp.float32).reshape(4, 3)
        result = jax.vmap(lambda a: a / jax.lax.psum(jnp.sum(a), 'b'), axis_name='b')(x)
        """),
    ("vmap_pmean_in_axes_0_none", ["x", "w"], """
        x = jnp.arange(12, dtype=jnp.float32).reshape(4, 3)
        w = jnp.array([1.0, 2.0, 3.0], dtype=jnp.float32)
        result = jax.vmap(lambda a, w: jax.lax.pmean(a * w, 'b'), in_axes=(0, None), axis_name='b')(x, w)
        """),
    ("vmap_all_gather", ["x"], """
        x = jnp.arange(8, dtype=jnp.float32).reshape(4, 2)
        result = jax.vmap(lambda a: jax.lax.all_gather(a, 'b'), axis_name='b')(x)
        """),
    ("vmap_all_gather_tiled", ["x"], """
        x = jnp.arange(8, dtype=jnp.float32).reshape(4, 2)
        result = jax.vmap(lambda a: jax.lax.all_gather(a, 'b', tiled=True), axis_name='b')(x)
        """),
    ("vmap_ppermute_ring", ["x"], """
        x = jnp.arange(8, dtype=jnp.float32).reshape(4, 2)
        result = jax.vmap(lambda a: jax.lax.ppermute(a, 'b', [(0, 1), (1, 2), (2, 3), (3, 0)]), axis_name='b')(x)
        """),
    ("vmap_ppermute_partial", ["x"], """
        x = jnp.arange(1, 9, dtype=jnp.float32).reshape(4, 2)
        result = jax.vmap(lambda a: jax.lax.ppermute(a, 'b', [(0, 3), (1, 0)]), axis_name='b')(x)
        """),
    ("vmap_axis_index_out_axes_1", ["x"], """
        x = jnp.zeros((4, 3), dtype=jnp.float32)
        result = jax.vmap(lambda a: a + jax.lax.axis_index('b'), axis_name='b', out_axes=1)(x)
        """),
    ("vmap_in_axes_1_0_psum", ["x", "y"], """
        x = jnp.arange(12, dtype=jnp.float32).reshape(3, 4)
        y = jnp.arange(12, dtype=jnp.float32).reshape(4, 3)
        result = jax.vmap(lambda a, b: jax.lax.psum(a * b, 'v'), in_axes=(1, 0), axis_name='v')(x, y)
        """),
    ("vmap_psum_scatter", ["x"], """
        x = jnp.arange(16, dtype=jnp.float32).reshape(4, 4)
        result = jax.vmap(lambda a: jax.lax.psum_scatter(a, 'b', tiled=True), axis_name='b')(x)
        """),
    ("vmap_all_to_all", ["x"], """
        x = jnp.arange(16, dtype=jnp.float32).reshape(4, 4)
        result = jax.vmap(lambda a: jax.lax.all_to_all(a, 'b', 0, 0), axis_name='b')(x)
        """),
    # ---- vmap inside shard_map (the shard_map-vs-vmap pattern)
    ("vmap_inside_shard_map_row_sumsq", ["x"], MESH8 + """
        x = jnp.arange(24, dtype=jnp.float32).reshape(8, 3)

        def per_shard(rows):
            return jax.vmap(lambda r: jnp.sum(r ** 2))(rows)

        sm = jax.shard_map(per_shard, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(x)
        vm = jax.vmap(lambda r: jnp.sum(r ** 2))(x)
        result = {'shard_map': sm, 'vmap': vm, 'stacked': jnp.stack([sm, vm], axis=0)}
        """),
    ("vmap_inside_shard_map_two_rows_per_device", ["x"], MESH8 + """
        x = jnp.arange(32, dtype=jnp.float32).reshape(16, 2)

        def per_shard(rows):
            return jax.vmap(jnp.max)(rows)

        result = jax.shard_map(per_shard, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(x)
        """),
    ("vmap_inside_shard_map_mesh_psum", ["x"], MESH8 + """
        x = jnp.arange(32, dtype=jnp.float32).reshape(16, 2)

        def per_shard(rows):
            # rows: (2, 2); psum over the mesh axis from inside the vmapped function
            return jax.vmap(lambda r: jax.lax.psum(jnp.sum(r), 'x'))(rows)

        result = jax.shard_map(per_shard, mesh=mesh, in_specs=P('x'), out_specs=P())(x)
        """),
    ("vmap_named_inside_shard_map", ["x"], MESH8 + """
        x = jnp.arange(32, dtype=jnp.float32).reshape(16, 2)

        def per_shard(rows):
            # a collective over the vmapped axis 'r' inside the shard_map body
            return jax.vmap(lambda r: r / jax.lax.psum(jnp.sum(r), 'r'), axis_name='r')(rows)

        result = jax.shard_map(per_shard, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(x)
        """),
    ("vmap_named_inside_shard_map_check_vma_false", ["x"], MESH8 + """
        x = jnp.arange(32, dtype=jnp.float32).reshape(16, 2)

        def per_shard(rows):
            local = jax.vmap(lambda r: r / jax.lax.psum(jnp.sum(r), 'r'), axis_name='r')(rows)
            return local * jax.lax.axis_index('x')

        result = jax.shard_map(per_shard, mesh=mesh, in_specs=P('x'), out_specs=P('x'), check_vma=False)(x)
        """),
    # ---- nested vmap
    ("nested_vmap_psum_both_axes", ["x"], """
        x = jnp.arange(1, 7, dtype=jnp.float32).reshape(2, 3)
        inner = jax.vmap(lambda a: a / jax.lax.psum(a, ('i', 'j')), axis_name='j')
        result = jax.vmap(inner, axis_name='i')(x)
        """),
    ("nested_vmap_psum_inner_outer", ["x"], """
        x = jnp.arange(6, dtype=jnp.float32).reshape(2, 3)
        inner = jax.vmap(lambda a: (jax.lax.psum(a, 'j'), jax.lax.psum(a, 'i')), axis_name='j')
        result = jax.vmap(inner, axis_name='i')(x)
        """),
    ("nested_vmap_outer_product", ["x", "y"], """
        x = jnp.array([1.0, 2.0, 3.0], dtype=jnp.float32)
        y = jnp.array([10.0, 20.0], dtype=jnp.float32)
        result = jax.vmap(jax.vmap(lambda a, b: a * b, in_axes=(None, 0)), in_axes=(0, None))(x, y)
        """),
    # ---- jit and shard_map
    ("jit_around_shard_map_psum", ["x"], MESH8 + """
        x = jnp.arange(16, dtype=jnp.float32)
        f = jax.shard_map(lambda b: jax.lax.psum(jnp.sum(b), 'x'), mesh=mesh, in_specs=P('x'), out_specs=P())
        result = jax.jit(f)(x)
        """),
    ("jit_shard_map_then_global_ops", ["x"], MESH8 + """
        x = jnp.arange(16, dtype=jnp.float32)

        @jax.jit
        def g(x):
            y = jax.shard_map(lambda b: b * jax.lax.axis_index('x'), mesh=mesh, in_specs=P('x'), out_specs=P('x'))(x)
            return jnp.sum(y) + y[::4]

        result = g(x)
        """),
    ("jit_shard_map_local_matmul", ["x", "w"], MESH8 + """
        x = jnp.arange(32, dtype=jnp.float32).reshape(8, 4)
        w = jnp.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, -1.0]], dtype=jnp.float32)
        f = jax.shard_map(lambda b, w: b @ w, mesh=mesh, in_specs=(P('x'), P()), out_specs=P('x'))
        result = jax.jit(f)(x, w)
        """),
    ("vmap_over_shard_map", ["x"], MESH8 + """
        x = jnp.arange(24, dtype=jnp.float32).reshape(3, 8)
        f = jax.shard_map(lambda b: jax.lax.psum(b, 'x'), mesh=mesh, in_specs=P('x'), out_specs=P())
        result = jax.vmap(f)(x)
        """),
]


# Programs that raise in this JAX version (recorded as errors).
RAISES = {
    # vmap's ppermute rule only accepts a full permutation of the axis.
    "vmap_ppermute_partial",
    # a named-axis collective of an inner vmap trips an internal assertion
    # when shard_map checks varying axes (check_vma=True); it runs with False.
    "vmap_named_inside_shard_map",
}


def cases():
    return [
        {"name": name, "source": program(body), "inputs": inputs, "expect_error": name in RAISES}
        for name, inputs, body in CASES
    ]
