"""Gradients: through shard_map (check_vma True/False), inside the body, under
pmap, through each collective, a tensor-parallel MLP, and plain jnp ops."""

from fixturelib import program

MESH8 = "\n        mesh = Mesh(np.array(jax.devices()[:8]), ('x',))"

CASES = []


def case(name, inputs, body, jaxpr=False, raises=False):
    CASES.append((name, inputs, body, jaxpr, raises))


# ---------------------------------------------------------------------------
# A loss through shard_map: replicated weight P(), sharded input P('x').
for cv in (True, False):
    tag = "check_vma_true" if cv else "check_vma_false"
    case(f"value_and_grad_shard_map_psum_loss_{tag}", ["w", "x"], MESH8 + f"""
        w = jnp.float32(2.0)
        x = jnp.arange(16, dtype=jnp.float32)

        def body(w, xb):
            return jax.lax.psum(jnp.sum((w * xb - 1.0) ** 2), 'x')

        loss_fn = jax.shard_map(body, mesh=mesh, in_specs=(P(), P('x')), out_specs=P(), check_vma={cv})
        loss, (gw, gx) = jax.value_and_grad(loss_fn, argnums=(0, 1))(w, x)
        result = {{'loss': loss, 'grads': {{'w': gw, 'x': gx}}}}
        """, jaxpr=False)
    case(f"grad_argnums0_shard_map_sum_{tag}", ["w", "x"], MESH8 + f"""
        w = jnp.float32(3.0)
        x = jnp.arange(16, dtype=jnp.float32)

        # no collective in the body: the output stays sharded, the loss sums it outside
        f = jax.shard_map(lambda w, xb: w * xb * xb, mesh=mesh, in_specs=(P(), P('x')), out_specs=P('x'), check_vma={cv})
        result = jax.grad(lambda w, x: jnp.sum(f(w, x)))(w, x)
        """)
    # The data-parallel pattern: grad of a per-shard loss taken inside the
    # body, then pmean.  Also return the raw per-device gradient.
    case(f"pmean_of_grad_inside_body_local_loss_{tag}", ["w", "x", "y"], MESH8 + f"""
        w = jnp.float32(1.0)
        x = jnp.arange(16, dtype=jnp.float32)
        y = 2.0 * x + 1.0

        def body(w, xb, yb):
            g = jax.grad(lambda w: jnp.mean((w * xb - yb) ** 2))(w)
            return jnp.reshape(g, (1,)), jax.lax.pmean(g, 'x')

        f = jax.shard_map(body, mesh=mesh, in_specs=(P(), P('x'), P('x')), out_specs=(P('x'), P()), check_vma={cv})
        raw, avg = f(w, x, y)
        result = {{'raw_per_device': raw, 'pmean': avg}}
        """)
    case(f"pmean_of_grad_inside_body_psum_loss_{tag}", ["w", "x"], MESH8 + f"""
        w = jnp.float32(2.0)
        x = jnp.arange(16, dtype=jnp.float32)

        def body(w, xb):
            g = jax.grad(lambda w: jax.lax.psum(jnp.sum(w * xb), 'x'))(w)
            return jnp.reshape(g, (1,)), jax.lax.pmean(g, 'x')

        f = jax.shard_map(body, mesh=mesh, in_specs=(P(), P('x')), out_specs=(P('x'), P()), check_vma={cv})
        raw, avg = f(w, x)
        result = {{'raw_per_device': raw, 'pmean': avg}}
        """)
    case(f"grad_psum_outside_body_{tag}", ["x"], MESH8 + f"""
        x = jnp.arange(16, dtype=jnp.float32)

        # d/dx of sum(c * psum(x_block)) with the psum'd value replicated
        f = jax.shard_map(lambda b: jax.lax.psum(b, 'x'), mesh=mesh, in_specs=P('x'), out_specs=P(), check_vma={cv})
        c = jnp.array([1.0, 10.0], dtype=jnp.float32)
        result = jax.grad(lambda x: jnp.sum(f(x) * c))(x)
        """)

case("pmean_of_grad_inside_body_pmap", ["w", "x", "y"], """
        w = jnp.float32(1.0)
        x = jnp.arange(16, dtype=jnp.float32).reshape(8, 2)
        y = 2.0 * x + 1.0

        def step(w, xb, yb):
            g = jax.grad(lambda w: jnp.mean((w * xb - yb) ** 2))(w)
            return g, jax.lax.pmean(g, 'i')

        raw, avg = jax.pmap(step, axis_name='i', in_axes=(None, 0, 0))(w, x, y)
        result = {'raw_per_device': raw, 'pmean': avg}
        """)
case("grad_of_psum_loss_pmap", ["w", "x"], """
        w = jnp.float32(2.0)
        x = jnp.arange(16, dtype=jnp.float32).reshape(8, 2)

        def step(w, xb):
            g = jax.grad(lambda w: jax.lax.psum(jnp.sum(w * xb), 'i'))(w)
            return g, jax.lax.pmean(g, 'i')

        raw, avg = jax.pmap(step, axis_name='i', in_axes=(None, 0))(w, x)
        result = {'raw_per_device': raw, 'pmean': avg}
        """)
case("grad_of_psum_loss_pcast_explicit", ["w", "x"], MESH8 + """
        w = jnp.float32(2.0)
        x = jnp.arange(16, dtype=jnp.float32)

        def body(w, xb):
            # make the replicated weight explicitly varying before using it
            wv = jax.lax.pcast(w, 'x', to='varying')
            g = jax.grad(lambda wv: jnp.sum(wv * xb))(wv)
            return jnp.reshape(g, (1,))

        f = jax.shard_map(body, mesh=mesh, in_specs=(P(), P('x')), out_specs=P('x'))
        result = f(w, x)
        """)
case("jaxpr_grad_psum_loss_check_vma_true", ["w", "x"], MESH8 + """
        w = jnp.float32(2.0)
        x = jnp.arange(16, dtype=jnp.float32)

        def body(w, xb):
            return jax.lax.psum(jnp.sum(w * xb), 'x')

        loss_fn = jax.shard_map(body, mesh=mesh, in_specs=(P(), P('x')), out_specs=P())
        grad_fn = jax.grad(loss_fn, argnums=(0, 1))
        jaxpr = jax.make_jaxpr(grad_fn)(w, x)
        result = grad_fn(w, x)
        """, jaxpr=True)
case("jaxpr_grad_psum_loss_check_vma_false", ["w", "x"], MESH8 + """
        w = jnp.float32(2.0)
        x = jnp.arange(16, dtype=jnp.float32)

        def body(w, xb):
            return jax.lax.psum(jnp.sum(w * xb), 'x')

        loss_fn = jax.shard_map(body, mesh=mesh, in_specs=(P(), P('x')), out_specs=P(), check_vma=False)
        grad_fn = jax.grad(loss_fn, argnums=(0, 1))
        jaxpr = jax.make_jaxpr(grad_fn)(w, x)
        result = grad_fn(w, x)
        """, jaxpr=True)

# ---------------------------------------------------------------------------
# Gradients through each collective: grad of sum(shard_map(f)(x) * c).
COLL = [
    ("psum", "P('x')", "P()", "jax.lax.psum(b, 'x')", 16),
    ("pmean", "P('x')", "P()", "jax.lax.pmean(b, 'x')", 16),
    ("pmax", "P('x')", "P()", "jax.lax.pmax(b, 'x')", 16),
    ("all_gather_tiled", "P('x')", "P()", "jax.lax.all_gather(b, 'x', tiled=True, to='invarying')", 16),
    ("all_gather_default", "P('x')", "P('x')", "jax.lax.all_gather(b, 'x')", 8),
    ("psum_scatter_tiled", "P('x')", "P('x')", "jax.lax.psum_scatter(b, 'x', tiled=True)", 64),
    ("ppermute_ring", "P('x')", "P('x')", "jax.lax.ppermute(b, 'x', [(i, (i + 1) % 8) for i in range(8)])", 16),
    ("all_to_all", "P('x')", "P('x')", "jax.lax.all_to_all(b, 'x', 0, 0, tiled=True)", 64),
]
for name, ins, outs, expr, n in COLL:
    for cv in (True, False) if name in ("psum", "all_gather_default") else (True,):
        tag = "" if cv else "_check_vma_false"
        case(f"grad_through_{name}{tag}", ["x", "c"], MESH8 + f"""
        x = jnp.arange({n}, dtype=jnp.float32)
        f = jax.shard_map(lambda b: {expr}, mesh=mesh, in_specs={ins}, out_specs={outs}, check_vma={cv})
        out_shape = jax.eval_shape(f, x).shape
        c = jnp.arange(1, 1 + int(np.prod(out_shape)), dtype=jnp.float32).reshape(out_shape)
        result = {{'y': f(x), 'grad': jax.grad(lambda x: jnp.sum(f(x) * c))(x)}}
        """, raises=(name == "pmax"))  # pmax has no differentiation rule

case("grad_input_sharded_over_two_axes", ["x", "c"], """
        mesh = Mesh(np.array(jax.devices()[:8]).reshape(2, 4), ('x', 'y'))
        x = jnp.arange(32, dtype=jnp.float32).reshape(4, 8) / 8.0
        c = jnp.arange(32, dtype=jnp.float32).reshape(4, 8) % 3.0

        def body(b, cb):
            return jax.lax.psum(jnp.sum(b * b * cb), ('x', 'y'))

        loss_fn = jax.shard_map(body, mesh=mesh, in_specs=(P('x', 'y'), P('x', 'y')), out_specs=P())
        loss, g = jax.value_and_grad(loss_fn)(x, c)
        result = {'loss': loss, 'grad': g}
        """)

# Two-layer tensor-parallel MLP: W1 column-sharded, W2 row-sharded, psum of
# the partial output, tanh in between; batch sharded over 'x'.
for cv in (True, False):
    tag = "check_vma_true" if cv else "check_vma_false"
    case(f"tensor_parallel_mlp_grads_{tag}", ["x", "y", "w1", "w2"], f"""
        mesh = Mesh(np.array(jax.devices()[:8]).reshape(2, 4), ('x', 'y'))
        rng = np.random.default_rng(0)
        x = jnp.asarray(np.round(rng.normal(size=(4, 3)), 2).astype(np.float32))
        y = jnp.asarray(np.round(rng.normal(size=(4, 2)), 2).astype(np.float32))
        w1 = jnp.asarray(np.round(rng.normal(size=(3, 8)) * 0.5, 2).astype(np.float32))
        w2 = jnp.asarray(np.round(rng.normal(size=(8, 2)) * 0.5, 2).astype(np.float32))

        def body(xb, yb, w1b, w2b):
            h = jnp.tanh(xb @ w1b)                      # (2, 2): local hidden columns
            out = jax.lax.psum(h @ w2b, 'y')            # (2, 2): full output rows
            return jax.lax.psum(jnp.sum((out - yb) ** 2), 'x')

        loss_fn = jax.shard_map(
            body, mesh=mesh,
            in_specs=(P('x', None), P('x', None), P(None, 'y'), P('y', None)),
            out_specs=P(), check_vma={cv})

        def reference(x, y, w1, w2):
            return jnp.sum((jnp.tanh(x @ w1) @ w2 - y) ** 2)

        loss, grads = jax.value_and_grad(loss_fn, argnums=(0, 2, 3))(x, y, w1, w2)
        ref_loss, ref_grads = jax.value_and_grad(reference, argnums=(0, 2, 3))(x, y, w1, w2)
        result = {{
            'loss': loss, 'grads': {{'x': grads[0], 'w1': grads[1], 'w2': grads[2]}},
            'reference_loss': ref_loss,
            'reference_grads': {{'x': ref_grads[0], 'w1': ref_grads[1], 'w2': ref_grads[2]}},
        }}
        """)

# value_and_grad / vjp / jvp variants through shard_map.
case("value_and_grad_has_aux_shard_map", ["w", "x"], MESH8 + """
        w = jnp.float32(0.5)
        x = jnp.arange(16, dtype=jnp.float32)

        f = jax.shard_map(lambda w, b: jax.lax.psum(jnp.sum(jnp.tanh(w * b)), 'x'),
                          mesh=mesh, in_specs=(P(), P('x')), out_specs=P())

        def loss(w, x):
            v = f(w, x)
            return v * v, {'v': v}

        (l, aux), (gw, gx) = jax.value_and_grad(loss, argnums=(0, 1), has_aux=True)(w, x)
        result = {'loss': l, 'aux': aux, 'grads': {'w': gw, 'x': gx}}
        """)
case("vjp_shard_map_ppermute", ["x", "ct"], MESH8 + """
        x = jnp.arange(16, dtype=jnp.float32)
        ct = jnp.arange(16, dtype=jnp.float32) * 10.0
        f = jax.shard_map(lambda b: jax.lax.ppermute(b * b, 'x', [(i, (i + 1) % 8) for i in range(8)]),
                          mesh=mesh, in_specs=P('x'), out_specs=P('x'))
        y, pullback = jax.vjp(f, x)
        (gx,) = pullback(ct)
        result = {'y': y, 'x_bar': gx}
        """)
case("jvp_shard_map_psum", ["x", "t"], MESH8 + """
        x = jnp.arange(16, dtype=jnp.float32)
        t = jnp.ones(16, dtype=jnp.float32)
        f = jax.shard_map(lambda b: jax.lax.psum(b * b, 'x'), mesh=mesh, in_specs=P('x'), out_specs=P())
        y, y_dot = jax.jvp(f, (x,), (t,))
        result = {'y': y, 'y_dot': y_dot}
        """)
case("jvp_vjp_plain", ["x", "t"], """
        x = jnp.array([0.5, -1.0, 2.0], dtype=jnp.float32)
        t = jnp.array([1.0, 0.0, -1.0], dtype=jnp.float32)

        def f(x):
            return jnp.sin(x) * x

        y, y_dot = jax.jvp(f, (x,), (t,))
        _, pullback = jax.vjp(f, x)
        result = {'y': y, 'jvp': y_dot, 'vjp': pullback(t)[0]}
        """)

# ---------------------------------------------------------------------------
# Plain jnp ops common in training, outside any map.
OPS = [
    ("mean_of_squares", ["x"], "x = jnp.array([1.0, -2.0, 3.0, 0.5], dtype=jnp.float32)",
     "jax.value_and_grad(lambda x: jnp.mean(x ** 2))(x)"),
    ("matmul", ["a", "b"], "a = jnp.arange(6, dtype=jnp.float32).reshape(2, 3)\n"
     "        b = jnp.arange(12, dtype=jnp.float32).reshape(3, 4) / 4.0",
     "jax.grad(lambda a, b: jnp.sum((a @ b) ** 2), argnums=(0, 1))(a, b)"),
    ("tanh", ["x"], "x = jnp.array([-1.0, 0.0, 0.5, 2.0], dtype=jnp.float32)",
     "jax.grad(lambda x: jnp.sum(jnp.tanh(x)))(x)"),
    ("exp_log", ["x"], "x = jnp.array([0.5, 1.0, 2.0, 4.0], dtype=jnp.float32)",
     "jax.grad(lambda x: jnp.sum(jnp.exp(x) + jnp.log(x)))(x)"),
    ("relu_maximum", ["x"], "x = jnp.array([-2.0, -0.0, 0.0, 1.5, 3.0], dtype=jnp.float32)",
     "jax.grad(lambda x: jnp.sum(jnp.maximum(x, 0.0) * jnp.arange(1.0, 6.0)))(x)"),
    ("relu_nn", ["x"], "x = jnp.array([-2.0, 0.0, 1.5], dtype=jnp.float32)",
     "jax.grad(lambda x: jnp.sum(jax.nn.relu(x)))(x)"),
    ("logsumexp", ["x"], "x = jnp.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]], dtype=jnp.float32)",
     "jax.value_and_grad(lambda x: jnp.sum(jax.nn.logsumexp(x, axis=-1)))(x)"),
    ("softmax_cross_entropy", ["logits", "labels"],
     "logits = jnp.array([[2.0, 1.0, 0.1], [0.5, 2.5, 0.0]], dtype=jnp.float32)\n"
     "        labels = jnp.array([0, 1], dtype=jnp.int32)",
     "jax.value_and_grad(lambda z: -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(z), labels[:, None], axis=1)))(logits)"),
    ("where", ["x"], "x = jnp.array([-1.0, 2.0, -3.0, 4.0], dtype=jnp.float32)",
     "jax.grad(lambda x: jnp.sum(jnp.where(x > 0, x ** 2, 3.0 * x)))(x)"),
    ("indexing", ["x"], "x = jnp.arange(8, dtype=jnp.float32).reshape(2, 4)",
     "jax.grad(lambda x: x[1, 2] * 3.0 + jnp.sum(x[:, ::2]) + jnp.sum(x[0, jnp.array([1, 1, 3])]))(x)"),
    ("concatenate", ["a", "b"], "a = jnp.array([1.0, 2.0], dtype=jnp.float32)\n"
     "        b = jnp.array([3.0, 4.0, 5.0], dtype=jnp.float32)",
     "jax.grad(lambda a, b: jnp.sum(jnp.concatenate([a, b]) * jnp.arange(1.0, 6.0)), argnums=(0, 1))(a, b)"),
    ("reshape_transpose", ["x"], "x = jnp.arange(6, dtype=jnp.float32).reshape(2, 3)",
     "jax.grad(lambda x: jnp.sum(x.T.reshape(6) * jnp.arange(6.0)))(x)"),
    ("broadcasting", ["x", "b"], "x = jnp.arange(6, dtype=jnp.float32).reshape(2, 3)\n"
     "        b = jnp.array([1.0, -1.0, 2.0], dtype=jnp.float32)",
     "jax.grad(lambda x, b: jnp.sum((x + b) ** 2), argnums=(0, 1))(x, b)"),
    ("sum_axis_keepdims_division", ["x"], "x = jnp.array([[1.0, 2.0], [3.0, 5.0]], dtype=jnp.float32)",
     "jax.grad(lambda x: jnp.sum(x / jnp.sum(x, axis=1, keepdims=True) * jnp.array([1.0, 2.0])))(x)"),
    ("sqrt_abs", ["x"], "x = jnp.array([-4.0, 1.0, 9.0], dtype=jnp.float32)",
     "jax.grad(lambda x: jnp.sum(jnp.sqrt(jnp.abs(x))))(x)"),
    ("linear_layer_mse_argnums_0_1", ["w", "b", "x", "y"],
     "w = jnp.array([[0.5, -1.0], [1.0, 2.0], [0.0, 1.0]], dtype=jnp.float32)\n"
     "        b = jnp.array([0.1, -0.2], dtype=jnp.float32)\n"
     "        x = jnp.arange(6, dtype=jnp.float32).reshape(2, 3)\n"
     "        y = jnp.array([[1.0, 0.0], [0.0, 1.0]], dtype=jnp.float32)",
     "jax.value_and_grad(lambda w, b: jnp.mean((x @ w + b - y) ** 2), argnums=(0, 1))(w, b)"),
]
for name, inputs, setup, call in OPS:
    case(f"jnp_grad_{name}", inputs, f"""
        {setup}
        result = {call}
        """)


def cases():
    return [
        {"name": n, "source": program(b), "inputs": i, "jaxpr": j, "expect_error": r}
        for n, i, b, j, r in CASES
    ]
