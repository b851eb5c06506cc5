//! What shardlab cannot do yet fails with `NotImplementedError` naming the
//! feature at its line; what JAX itself does not have fails as in JAX.

use shardlab::program::{run, Options};

/// (type, message, line) of the error a program ends with.
fn error_of(source: &str) -> (String, String, usize) {
    let out = run(source, &Options::default());
    let e = out.error.expect("the program fails");
    (e.error.type_name().to_string(), e.error.message, e.line)
}

/// Each `head` + case program fails at `line` with
/// `NotImplementedError: not supported by shardlab yet: <what>`.
fn refused_by_name(head: &str, line: usize, cases: &[(&str, &str)]) {
    for (code, what) in cases {
        let (ty, msg, at) = error_of(&format!("{head}{code}\n"));
        assert_eq!(
            (ty.as_str(), msg.as_str(), at),
            (
                "NotImplementedError",
                format!("not supported by shardlab yet: {what}").as_str(),
                line
            ),
            "{code}"
        );
    }
}

#[test]
fn names_of_the_real_modules_are_not_implemented() {
    let (ty, msg, line) = error_of("import jax\nx = 1\ny = jax.lax.composite\n");
    assert_eq!(ty, "NotImplementedError");
    assert_eq!(msg, "not supported by shardlab yet: jax.lax.composite");
    assert_eq!(line, 3);
    let (ty, msg, _) = error_of("from flax import nnx\nnnx.vars_as\n");
    assert_eq!(
        (ty.as_str(), msg.as_str()),
        (
            "NotImplementedError",
            "not supported by shardlab yet: flax.nnx.vars_as"
        )
    );
    let (ty, msg, line) = error_of(
        "from flax import nnx\nfrom flax.nnx import bridge\nm = bridge.functional(nnx.Linear)\n",
    );
    assert_eq!(
        (ty.as_str(), msg.as_str(), line),
        (
            "NotImplementedError",
            "not supported by shardlab yet: flax.nnx.bridge.functional",
            3
        )
    );
    let (ty, msg, _) = error_of("from jax.lax import reduce_precision\n");
    assert_eq!(
        (ty.as_str(), msg.as_str()),
        (
            "NotImplementedError",
            "not supported by shardlab yet: jax.lax.reduce_precision"
        )
    );
}

/// Integer literals come from the parser as big integers: the largest
/// 64-bit one is read in every base, one more is refused at its line.
#[test]
fn integer_literals_beyond_64_bits_are_refused_at_their_line() {
    let out = run(
        "print(0x7fff_ffff_ffff_ffff, 0o777_777_777_777_777_777_777, 0b101, 9223372036854775807, -9223372036854775807)\n",
        &Options::default(),
    );
    assert!(
        out.error.is_none(),
        "{:?}",
        out.error.map(|e| e.error.message)
    );
    assert_eq!(
        out.stdout,
        "9223372036854775807 9223372036854775807 5 9223372036854775807 -9223372036854775807\n"
    );
    for source in [
        "x = 1\ny = 2\nz = 9223372036854775808\n",
        "x = 1\ny = 2\nz = 0x1_0000_0000_0000_0000\n",
    ] {
        let (ty, msg, line) = error_of(source);
        assert_eq!(
            (ty.as_str(), msg.as_str(), line),
            (
                "NotImplementedError",
                "not supported by shardlab yet: integers beyond 64 bits",
                3
            )
        );
    }
}

#[test]
fn names_no_module_has_fail_as_in_jax() {
    // JAX 0.10.2: AttributeError: module 'jax.lax' has no attribute 'scann'
    let (ty, msg, _) = error_of("import jax\njax.lax.scann\n");
    assert_eq!(
        (ty.as_str(), msg.as_str()),
        (
            "AttributeError",
            "module 'jax.lax' has no attribute 'scann'"
        )
    );
    // CPython 3.11: ImportError: cannot import name 'nope' from 'jax.lax'
    // (JAX's message adds the module's path, which shardlab has none of).
    let (ty, msg, _) = error_of("from jax.lax import nope\n");
    assert_eq!(
        (ty.as_str(), msg.as_str()),
        ("ImportError", "cannot import name 'nope' from 'jax.lax'")
    );
    let out = run(
        "try:\n    from jax.lax import nope\nexcept ImportError as e:\n    print(type(e).__name__)\n",
        &Options::default(),
    );
    assert_eq!(out.stdout, "ImportError\n");
}

#[test]
fn what_jax_and_python_have_beyond_the_public_names_is_not_implemented() {
    let cases = [
        ("import jax\njax._src.lax\n", "jax._src.lax"),
        (
            "import jax\nfrom jax.sharding import NamedSharding, PartitionSpec as P\nm = jax.make_mesh((2,), ('x',))\nNamedSharding(m, P()).update(spec=P('x'))\n",
            "NamedSharding.update",
        ),
        // A builtin base other than dict and list would bring storage and
        // methods: refused, not silently dropped.
        ("class S(str):\n    pass\n", "subclassing str"),
        ("class T(tuple):\n    pass\n", "subclassing tuple"),
        ("iter_of = dict.__iter__\n", "dict.__iter__"),
    ];
    for (source, name) in cases {
        let (ty, msg, _) = error_of(source);
        assert_eq!(
            (ty.as_str(), msg.as_str()),
            (
                "NotImplementedError",
                format!("not supported by shardlab yet: {name}").as_str()
            ),
            "{source}"
        );
    }
    // CPython 3.11: AttributeError: type object 'dict' has no attribute 'nope'
    let (ty, msg, _) = error_of("dict.nope\n");
    assert_eq!(
        (ty.as_str(), msg.as_str()),
        (
            "AttributeError",
            "type object 'dict' has no attribute 'nope'"
        )
    );
}

#[test]
fn class_keywords_are_not_dropped() {
    // A metaclass would change how the class is built: refused.
    let (ty, msg, line) =
        error_of("class Base:\n    pass\n\nclass Foo(Base, metaclass=type):\n    x = 1\n");
    assert_eq!(
        (ty.as_str(), msg.as_str(), line),
        (
            "NotImplementedError",
            "not supported by shardlab yet: the class keyword metaclass=",
            4
        )
    );
    // Other keywords go to `__init_subclass__`; `object`'s takes none.
    let (ty, msg, line) =
        error_of("class Base:\n    pass\n\nclass Foo(Base, pytree=False):\n    x = 1\n");
    assert_eq!(
        (ty.as_str(), msg.as_str(), line),
        (
            "TypeError",
            "Foo.__init_subclass__() takes no keyword arguments",
            4
        )
    );
}

#[test]
fn linear_algebra_and_statistics_not_modelled_refuse_by_name() {
    for (src, name) in [
        (
            "import jax.numpy as jnp\njnp.linalg.eig(jnp.eye(2))\n",
            "jax.numpy.linalg.eig",
        ),
        (
            "import jax.numpy as jnp\njnp.linalg.svd(jnp.eye(2), hermitian=True)\n",
            "jax.numpy.linalg.svd with hermitian=True",
        ),
        (
            "import jax.numpy as jnp\nu, s, vt = jnp.linalg.svd(jnp.eye(2))\n",
            "the singular vectors of jax.numpy.linalg.svd",
        ),
        (
            "import jax.scipy as jsp\njsp.stats.norm.cdf(0.5)\n",
            "jax.scipy.stats.norm.cdf",
        ),
        (
            "import jax.scipy as jsp\njsp.special.betainc(1.0, 2.0, 0.5)\n",
            "jax.scipy.special.betainc",
        ),
        (
            "import jax\njax.random.poisson(jax.random.PRNGKey(0), 3.0)\n",
            "jax.random.poisson",
        ),
        (
            "import jax\njax.grad(jax.scipy.special.digamma)(2.0)\n",
            "differentiation of digamma",
        ),
    ] {
        let (ty, msg, line) = error_of(src);
        assert_eq!(ty, "NotImplementedError", "{src}");
        assert_eq!(msg, format!("not supported by shardlab yet: {name}"));
        assert_eq!(line, 2);
    }
}

/// Traced keys draw what is written with `threefry2x32`; the rest refuses
/// at its line instead of drawing different numbers.
#[test]
fn traced_keys_refuse_what_is_not_written_for_them() {
    let cases = [
        (
            "import jax\nk = jax.random.PRNGKey(0)\nf = jax.jit(lambda k: jax.random.permutation(k, 5))\nf(k)\n",
            "not supported by shardlab yet: jax.random.permutation with a traced key",
        ),
        (
            "import jax\nk = jax.random.PRNGKey(0)\nf = jax.vmap(lambda k: jax.random.gamma(k, 2.0))\nf(jax.random.split(k))\n",
            "not supported by shardlab yet: jax.random.gamma with a traced key",
        ),
        (
            "import jax\nk = jax.random.PRNGKey(0)\nf = jax.jit(lambda a: jax.random.beta(k, a, 2.0))\nf(1.5)\n",
            "not supported by shardlab yet: jax.random.beta with a traced parameter (under jit, vmap or grad)",
        ),
        (
            "import jax\nk = jax.random.key(0)\njax.make_jaxpr(lambda k: jax.random.normal(k, ()))(k)\n",
            "not supported by shardlab yet: jax.make_jaxpr of a function of typed PRNG keys",
        ),
        (
            "import jax\nk = jax.random.key(0)\njax.numpy.add(k, 1)\n",
            "not supported by shardlab yet: typed PRNG keys (jax.random.key) as array values here",
        ),
    ];
    for (source, message) in cases {
        let (ty, msg, line) = error_of(source);
        assert_eq!(
            (ty.as_str(), msg.as_str()),
            ("NotImplementedError", message)
        );
        // The draw inside the function, or the call that maps the keys.
        assert!(line == 3 || line == 4, "line {line}");
    }
}

#[test]
fn nnx_variable_hooks_are_refused() {
    let hooked = "import jax\nfrom flax import nnx\ninit = nnx.with_metadata(jax.nn.initializers.zeros, on_get_value=lambda v, x: x)\n";
    let (ty, msg, line) = error_of(hooked);
    assert_eq!(
        (ty.as_str(), msg.as_str(), line),
        (
            "NotImplementedError",
            "not supported by shardlab yet: nnx.with_metadata(on_get_value=...)",
            3
        )
    );
}

#[test]
fn nnx_hijax_and_ref_variables_are_refused_by_name() {
    let pre = "import jax.numpy as jnp\nfrom flax import nnx\n";
    for (body, msg) in [
        (
            "nnx.var_defaults(hijax=True)\n",
            "not supported by shardlab yet: flax.nnx.var_defaults(hijax=True)",
        ),
        (
            "m = nnx.with_vars(nnx.Linear(2, 3, rngs=nnx.Rngs(0)), ref=True)\n",
            "not supported by shardlab yet: flax.nnx.with_vars(ref=True)",
        ),
        (
            "v = nnx.Variable(jnp.zeros(2), hijax=True)\n",
            "not supported by shardlab yet: Variable metadata hijax",
        ),
    ] {
        let (ty, got, line) = error_of(&format!("{pre}{body}"));
        assert_eq!(
            (ty.as_str(), got.as_str(), line),
            ("NotImplementedError", msg, 3)
        );
    }
}

#[test]
fn methods_of_pythons_own_types_are_not_implemented() {
    // str.casefold and int.bit_count exist in CPython 3.11 (names.json, from
    // tests/jax/gen_names.py); 'nosuch' does not.
    for (src, ty, msg, line) in [
        (
            "x = 'Abc'\ny = x.casefold()\n",
            "NotImplementedError",
            "not supported by shardlab yet: str.casefold",
            2,
        ),
        (
            "n = 6\nb = n.bit_count()\n",
            "NotImplementedError",
            "not supported by shardlab yet: int.bit_count",
            2,
        ),
        (
            "x = [1]\nx.nosuch\n",
            "AttributeError",
            "'list' object has no attribute 'nosuch'",
            2,
        ),
    ] {
        let (t, m, l) = error_of(src);
        assert_eq!((t.as_str(), m.as_str(), l), (ty, msg, line), "{src}");
    }
}

#[test]
fn keywords_a_function_ignores_are_refused() {
    // jnp.array_equal has `equal_nan` in JAX 0.10.2 (names.json's signatures,
    // from tests/jax/gen_names.py) and shardlab's does not read it: computing
    // without it would be a different answer. `bogus` is no parameter
    // of jnp.sum; a keyword at its default (keepdims=False) changes nothing.
    for (src, ty, msg, line) in [
        (
            "import jax.numpy as jnp\nx = jnp.ones(3)\ny = jnp.array_equal(x, x, equal_nan=True)\n",
            "NotImplementedError",
            "not supported by shardlab yet: jax.numpy.array_equal(equal_nan=...)",
            3,
        ),
        (
            "import jax.numpy as jnp\nx = jnp.ones(3)\ny = x.at[-1].get(wrap_negative_indices=False)\n",
            "NotImplementedError",
            "not supported by shardlab yet: x.at[...](wrap_negative_indices=False) with a traced index or mode='clip'",
            3,
        ),
        (
            "import jax.numpy as jnp\nt = jnp.promote_types(int, float)\n",
            "NotImplementedError",
            "not supported by shardlab yet: jax.numpy.promote_types(<class 'int'>, <class 'float'>), a 64-bit type",
            2,
        ),
        (
            "import jax.numpy as jnp\nx = jnp.ones(3)\n\ny = jnp.sum(x, bogus=1)\n",
            "TypeError",
            "sum() got an unexpected keyword argument 'bogus'",
            4,
        ),
    ] {
        let (t, m, l) = error_of(src);
        assert_eq!((t.as_str(), m.as_str(), l), (ty, msg, line), "{src}");
    }
    let (t, m, _) = error_of("import jax.numpy as jnp\nx = jnp.all(jnp.ones(3) > 0, where=None, keepdims=False)\nraise ValueError('ran')\n");
    assert_eq!((t.as_str(), m.as_str()), ("ValueError", "ran"));
}

#[test]
fn attributes_of_the_real_types_are_not_implemented() {
    // An attribute that the real type has is a feature shardlab lacks; one
    // that it does not have is the program's mistake, as in JAX.
    let compiled = "import jax\nc = jax.jit(lambda x: x * 2).lower(1.0).compile()\n";
    let (ty, msg, line) = error_of(&format!("{compiled}m = c.runtime_executable()\n"));
    assert_eq!(
        (ty.as_str(), msg.as_str(), line),
        (
            "NotImplementedError",
            "not supported by shardlab yet: Compiled.runtime_executable",
            3
        )
    );
    let (ty, msg, _) = error_of(&format!("{compiled}c.runtime_executables\n"));
    assert_eq!(
        (ty.as_str(), msg.as_str()),
        (
            "AttributeError",
            "'Compiled' object has no attribute 'runtime_executables'"
        )
    );
    let (ty, msg, _) =
        error_of("import jax\nj = jax.make_jaxpr(lambda x: x + 1)(1.0)\nj.jaxpr.effects\n");
    assert_eq!(
        (ty.as_str(), msg.as_str()),
        (
            "NotImplementedError",
            "not supported by shardlab yet: Jaxpr.effects"
        )
    );
    let (ty, msg, _) = error_of("import jax.numpy as jnp\njnp.ones(3).on_device_size_in_bytes()\n");
    assert_eq!(
        (ty.as_str(), msg.as_str()),
        (
            "NotImplementedError",
            "not supported by shardlab yet: ArrayImpl.on_device_size_in_bytes"
        )
    );
    let (ty, msg, _) = error_of("import jax.numpy as jnp\njnp.ones(3).no_such_thing\n");
    assert_eq!(
        (ty.as_str(), msg.as_str()),
        (
            "AttributeError",
            "'ArrayImpl' object has no attribute 'no_such_thing'"
        )
    );
}

/// Array refs where shardlab would show or compute something other than
/// JAX: a printed program (JAX's state equations), a ref in a cond branch
/// or in a loop carry.
#[test]
fn array_refs_outside_what_is_discharged() {
    let (ty, msg, _) = error_of(
        "import jax\nr = jax.new_ref(1.0)\ndef f(x):\n    r[...] = x\n    return x\njax.make_jaxpr(f)(2.0)\n",
    );
    assert_eq!(ty, "NotImplementedError");
    assert_eq!(
        msg,
        "not supported by shardlab yet: jax.make_jaxpr of a function that uses array refs"
    );
    let (ty, msg, _) = error_of(
        "import jax\ndef f(x):\n    r = jax.new_ref(x)\n    return r[...]\njax.make_jaxpr(f)(2.0)\n",
    );
    assert_eq!(
        (ty.as_str(), msg.as_str()),
        (
            "NotImplementedError",
            "not supported by shardlab yet: jax.make_jaxpr of a function that uses array refs"
        )
    );
    let (ty, msg, _) = error_of(
        "import jax\nr = jax.new_ref(0.0)\ndef f(x):\n    r[...] = x\n    return x\njax.lax.cond(True, f, lambda x: x, 1.0)\n",
    );
    assert_eq!(ty, "NotImplementedError");
    assert_eq!(
        msg,
        "not supported by shardlab yet: an array ref created outside the branches of lax.cond used inside it"
    );
    let (ty, _, _) = error_of(
        "import jax\nr = jax.new_ref(0.0)\njax.lax.scan(lambda c, x: (c, x), r, None, length=2)\n",
    );
    assert_eq!(ty, "NotImplementedError");
    let (ty, msg, _) = error_of(
        "import jax\n@jax.custom_vjp\ndef f(r, x):\n    return x\nf.defvjp(lambda r, x: (x, r), lambda r, g: (None, g))\njax.grad(lambda x: f(jax.new_ref(0.0), x))(1.0)\n",
    );
    assert_eq!(ty, "NotImplementedError");
    assert!(msg.contains("an array ref passed to a custom_jvp or custom_vjp function"));
}

/// nnx features shardlab prints or runs only in part are refused by name:
/// the text of a GraphDef whose modules hold containers of data, and
/// `Module.sow` outside `nnx.capture`.
#[test]
fn nnx_graph_texts_and_sowing_refuse_what_they_cannot_do() {
    let program = "import jax.numpy as jnp\nfrom flax import nnx\nclass M(nnx.Module):\n  def __init__(self):\n    self.xs = nnx.data([jnp.ones(2)])\ng, s = nnx.split(M())\nprint(g)\n";
    let (ty, msg, line) = error_of(program);
    assert_eq!(ty, "NotImplementedError");
    assert_eq!(
        msg,
        "not supported by shardlab yet: the text of a GraphDef of a module holding a list of data"
    );
    assert_eq!(line, 7);
    let program = "import jax.numpy as jnp\nfrom flax import nnx\nm = nnx.Module()\nm.sow(nnx.Intermediate, 'y', jnp.ones(2))\n";
    let (ty, msg, line) = error_of(program);
    assert_eq!(ty, "NotImplementedError");
    assert_eq!(
        msg,
        "not supported by shardlab yet: Module.sow outside nnx.capture"
    );
    assert_eq!(line, 4);
}

/// In tree mode (`graph=False`) Flax fails on a Variable reached twice,
/// with a message shardlab does not build: nnx.vmap and nnx.scan refuse
/// it by name rather than map the Variable once as graph mode does.
#[test]
fn nnx_tree_mode_refuses_a_variable_reached_twice() {
    let head = "import jax.numpy as jnp\nfrom flax import nnx\nclass M(nnx.Module):\n  def __init__(self):\n    self.w = nnx.Param(jnp.ones(3))\nm = M()\n";
    let vmap = format!("{head}f = nnx.vmap(lambda a, b, x: a.w[...] * x, in_axes=(None, None, 0), graph=False)\nf(m, m, jnp.ones((2, 3)))\n");
    let (ty, msg, line) = error_of(&vmap);
    assert_eq!(ty, "NotImplementedError");
    assert_eq!(
        msg,
        "not supported by shardlab yet: nnx.vmap with graph=False over a Variable reached twice"
    );
    assert_eq!(line, 8);
    let scan = format!("{head}f = nnx.scan(lambda a, b, c: (c, c), in_axes=(None, None, nnx.Carry), out_axes=(nnx.Carry, 0), length=2, graph=False)\nf(m, m, 1.0)\n");
    let (ty, msg, line) = error_of(&scan);
    assert_eq!(ty, "NotImplementedError");
    assert_eq!(
        msg,
        "not supported by shardlab yet: nnx.scan with graph=False over a Variable reached twice"
    );
    assert_eq!(line, 8);
}

/// NumPy's float64 / int64 arrays are computed in 64 bits or not at all:
/// a function with no 64-bit implementation is refused by name, and a
/// uint8 array is refused where it would enter JAX.
#[test]
fn numpy_functions_without_64_bit_arithmetic_refuse_by_name() {
    let (ty, msg, line) =
        error_of("import numpy as np\na = np.array([0.1, 0.2])\nnp.linalg.norm(a)\n");
    assert_eq!(
        (ty.as_str(), msg.as_str(), line),
        (
            "NotImplementedError",
            "not supported by shardlab yet: numpy.linalg.norm on float64 arrays",
            3
        )
    );
    let (ty, msg, _) = error_of("import numpy as np\nnp.einsum(\"i,i\", np.ones(2), np.ones(2))\n");
    assert_eq!(
        (ty.as_str(), msg.as_str()),
        (
            "NotImplementedError",
            "not supported by shardlab yet: numpy.einsum on float64 arrays"
        )
    );
}

/// rich's layouts shardlab does not reproduce, and the residuals JAX keeps
/// in the function `jax.vjp` returns, are refused rather than answered
/// differently.
#[test]
fn rich_layouts_and_vjp_residuals_are_refused() {
    let table = "from rich.console import Console\nfrom rich.table import Table\n\
                 t = Table()\nt.add_row('a')\nConsole().print(t)\n";
    let (ty, msg, line) = error_of(table);
    assert_eq!(
        (ty.as_str(), msg.as_str(), line),
        (
            "NotImplementedError",
            "not supported by shardlab yet: rich Table printed outside a notebook",
            5
        )
    );
    let wide = "from rich.console import Console\nConsole(width=10).print('x' * 11)\n";
    let (ty, msg, _) = error_of(wide);
    assert_eq!(
        (ty.as_str(), msg.as_str()),
        (
            "NotImplementedError",
            "not supported by shardlab yet: rich Console.print of a line wider than the console"
        )
    );
    // The vjp function's leaves are refused where they would not be JAX's.
    let vjp = "import jax\nimport jax.numpy as jnp\n\
               y, f_vjp = jax.vjp(jnp.abs, jnp.ones(3))\nleaves = jax.tree.leaves(f_vjp)\n";
    let (ty, msg, line) = error_of(vjp);
    assert_eq!(
        (ty.as_str(), msg.as_str(), line),
        (
            "NotImplementedError",
            "not supported by shardlab yet: the residuals of the function jax.vjp returns, through abs",
            4
        )
    );
    let scan = "import jax\nimport jax.numpy as jnp\n\
                f = lambda c: jax.lax.scan(lambda c, x: (jnp.sin(c * x), None), c, jnp.ones(2))[0]\n\
                y, f_vjp = jax.vjp(f, jnp.ones(3))\nleaves = jax.tree.leaves(f_vjp)\n";
    let (ty, msg, line) = error_of(scan);
    assert_eq!(
        (ty.as_str(), msg.as_str(), line),
        (
            "NotImplementedError",
            "not supported by shardlab yet: the residuals of the function jax.vjp returns, through scan",
            5
        )
    );
}

#[test]
fn optax_pieces_beyond_shardlab_are_refused_by_name() {
    for (src, name, line) in [
        ("import optax\nf = optax.microbatch\n", "optax.microbatch", 2),
        ("import optax\nf = optax.ctc_loss\n", "optax.ctc_loss", 2),
        ("import optax\nf = optax.power_iteration\n", "optax.power_iteration", 2),
        ("import optax\nf = optax.tree_map_params\n", "optax.tree_map_params", 2),
        (
            "import jax.numpy as jnp\nimport optax\nx = jnp.ones(3)\ny = optax.projections.projection_l1_ball(x)\n",
            "optax.tree.norm with ord",
            4,
        ),
        (
            "import optax\nf = lambda p, s: True\ns = optax.tree_utils.tree_set({'a': 1}, f, a=2)\n",
            "optax.tree_utils.tree_set with filtering",
            3,
        ),
    ] {
        let (ty, msg, at) = error_of(src);
        assert_eq!(
            (ty.as_str(), msg.as_str(), at),
            (
                "NotImplementedError",
                format!("not supported by shardlab yet: {name}").as_str(),
                line
            ),
            "{src}"
        );
    }
}

/// jnp functions shardlab lacks (file input and output, eigenvalue-based
/// polynomials) are refused by name, and so are
/// the arguments of implemented functions that it lacks.
#[test]
fn jnp_breadth_refusals_name_the_function() {
    for name in ["einsum_path", "save", "savez", "load", "roots"] {
        let (ty, msg, line) =
            error_of(&format!("import jax.numpy as jnp\nx = 1\nf = jnp.{name}\n"));
        assert_eq!(
            (ty.as_str(), msg.as_str(), line),
            (
                "NotImplementedError",
                format!("not supported by shardlab yet: jax.numpy.{name}").as_str(),
                3
            )
        );
    }
    let cases = [
        (
            "jnp.poly(jnp.eye(2))",
            "not supported by shardlab yet: jax.numpy.poly of a square matrix (its eigenvalues)",
        ),
        (
            "jnp.pad(jnp.ones(3), 1, mode=lambda v, w, i, k: None)",
            "not supported by shardlab yet: jax.numpy.pad with a function as mode",
        ),
        (
            "jnp.polymul(jnp.ones(2), jnp.ones(2), trim_leading_zeros=True)",
            "not supported by shardlab yet: jax.numpy.polymul with trim_leading_zeros=",
        ),
        (
            "jnp.fmod(jnp.ones(2) * 1j, 2.0)",
            "not supported by shardlab yet: complex64 in jax.numpy.fmod",
        ),
    ];
    for (call, want) in cases {
        let (ty, msg, line) = error_of(&format!("import jax.numpy as jnp\ny = {call}\n"));
        assert_eq!(
            (ty.as_str(), msg.as_str(), line),
            ("NotImplementedError", want, 2)
        );
    }
}

/// The lax functions shardlab runs only in part name what they refuse.
#[test]
fn lax_functions_refuse_what_they_do_not_compute() {
    let cases = [
        (
            "lax.reduce(jnp.ones(3), 0.0, lambda a, b: a + b, (0,))",
            "jax.lax.reduce with a computation other than lax's add, mul, max or min",
        ),
        (
            "lax.reduce_or(jnp.array([1, 2]), (0,))",
            "jax.lax.reduce_or of int32",
        ),
        (
            "lax.sort((jnp.ones(3), jnp.arange(3)), is_stable=False)",
            "jax.lax.sort with is_stable=False of several or float operands",
        ),
        (
            "lax.bitcast_convert_type(jnp.ones(2), jnp.uint8)",
            "jax.lax.bitcast_convert_type from float32 to uint8",
        ),
        (
            "lax.gather(jnp.ones(3), jnp.array([[0]]), lax.GatherDimensionNumbers((), (0,), (0,)), (1,), mode='one_hot')",
            "gather and scatter with mode='one_hot'",
        ),
        (
            "lax.scatter_max(jnp.zeros(100000), jnp.zeros((1000, 1), jnp.int32), jnp.ones(1000), lax.ScatterDimensionNumbers((), (0,), (0,)))",
            "jax.lax.scatter_max of 1000 updates into 100000 elements",
        ),
    ];
    for (call, name) in cases {
        let src = format!("import jax.numpy as jnp\nfrom jax import lax\n{call}\n");
        let (ty, msg, line) = error_of(&src);
        assert_eq!(
            (ty.as_str(), msg.as_str(), line),
            (
                "NotImplementedError",
                format!("not supported by shardlab yet: {name}").as_str(),
                3
            ),
            "{call}"
        );
    }
}

#[test]
fn names_of_the_real_submodules_are_not_implemented() {
    // optax.losses, optax.tree_utils and jax.scipy.stats have their real
    // names listed too: a missing one is shardlab's gap, a made-up one is
    // JAX's AttributeError.
    for (src, ty, msg) in [
        (
            "import optax\nf = optax.losses.dice_loss\n",
            "NotImplementedError",
            "not supported by shardlab yet: optax.losses.dice_loss",
        ),
        (
            "import optax\nf = optax.tree_utils.tree_get_all_with_path\n",
            "NotImplementedError",
            "not supported by shardlab yet: optax.tree_utils.tree_get_all_with_path",
        ),
        (
            "import jax.scipy.stats\nf = jax.scipy.stats.rankdata\n",
            "NotImplementedError",
            "not supported by shardlab yet: jax.scipy.stats.rankdata",
        ),
        (
            "import optax\nf = optax.losses.bogus_name\n",
            "AttributeError",
            "module 'optax.losses' has no attribute 'bogus_name'",
        ),
    ] {
        let (t, m, line) = error_of(src);
        assert_eq!((t.as_str(), m.as_str(), line), (ty, msg, 2), "{src}");
    }
}

/// What checkify cannot carry yet is refused by name; a check staged
/// without checkify fails as in JAX.
#[test]
fn checkify_refusals_name_what_is_missing() {
    let head = "import jax\nimport jax.numpy as jnp\nfrom jax.experimental import checkify\n";
    let cases = [
        (
            "def f(x):\n    checkify.check(x > 0, 'no')\n    return x\nx = jax.vmap(f)(jnp.ones(2))\n",
            "NotImplementedError",
            "not supported by shardlab yet: checkify.check under vmap without checkify.checkify",
            7,
        ),
        (
            "checkify.check(True, '{}', [jnp.ones(2)])\n",
            "NotImplementedError",
            "not supported by shardlab yet: checkify.check with a container of arrays as a formatting argument",
            4,
        ),
        (
            "def f(x):\n    checkify.check(x > 0, 'no')\n    return x\nf2 = jax.pmap(f, axis_name='i')\nerr, out = checkify.checkify(f2)(jnp.ones(2))\n",
            "NotImplementedError",
            "not supported by shardlab yet: checkify of xla_pmap with checks inside",
            8,
        ),
        (
            "f = checkify.checkify(lambda x: (checkify.check(x > 0, 'no'), x)[1])\n@jax.jit\ndef g(x):\n    err, out = f(x)\n    err.throw()\n    return out\ng(1.0)\n",
            "NotImplementedError",
            "not supported by shardlab yet: checkify.check_error of a traced Error",
            8,
        ),
        (
            "def f(x):\n    checkify.check(x > 0, 'no')\n    return x\njax.jit(f)(1.0)\n",
            "ValueError",
            "Cannot abstractly evaluate a checkify.check which was not functionalized. This probably means you tried to stage (jit/scan/pmap/...) a `check` without functionalizing it through `checkify.checkify`.",
            7,
        ),
    ];
    for (body, ty, msg, line) in cases {
        let got = error_of(&format!("{head}{body}"));
        assert_eq!(
            (got.0.as_str(), got.1.as_str(), got.2),
            (ty, msg, line),
            "{body}"
        );
    }
}

#[test]
fn the_spectral_estimators_of_scipy_signal_are_not_implemented() {
    for name in ["stft", "istft", "csd", "welch"] {
        let source = format!(
            "import jax.numpy as jnp\nfrom jax.scipy import signal\nx = jnp.ones(16)\nout = signal.{name}(x)\n"
        );
        let (ty, msg, line) = error_of(&source);
        assert_eq!(ty, "NotImplementedError");
        assert_eq!(
            msg,
            format!("not supported by shardlab yet: jax.scipy.signal.{name}")
        );
        assert_eq!(line, 4);
    }
    let (ty, msg, _) = error_of(
        "import jax.numpy as jnp\nfrom jax.scipy import signal\nsignal.convolve(jnp.ones(3), jnp.ones(2), precision='highest')\n",
    );
    assert_eq!(ty, "NotImplementedError");
    assert_eq!(
        msg,
        "not supported by shardlab yet: jax.scipy.signal.convolve with precision="
    );
}

#[test]
fn linen_pieces_beyond_shardlab_are_refused_by_name() {
    let head = "import jax\nimport jax.numpy as jnp\nimport flax.linen as nn\n";
    let capture = format!(
        "{head}m = nn.Dense(2)\nv = m.init(jax.random.key(0), jnp.ones(3))\nm.apply(v, jnp.ones(3), capture_intermediates=True)\n"
    );
    let (ty, msg, line) = error_of(&capture);
    assert_eq!(
        (ty.as_str(), msg.as_str(), line),
        (
            "NotImplementedError",
            "not supported by shardlab yet: capture_intermediates",
            6
        )
    );
    let half = format!(
        "{head}m = nn.LayerNorm(dtype=jnp.bfloat16)\nm.init(jax.random.key(0), jnp.ones(3))\n"
    );
    let (ty, msg, _) = error_of(&half);
    assert_eq!(
        (ty.as_str(), msg.as_str()),
        (
            "NotImplementedError",
            "not supported by shardlab yet: linen LayerNorm with a dtype other than float32"
        )
    );
    let (ty, msg, _) = error_of(&format!("{head}nn.while_loop\n"));
    assert_eq!(
        (ty.as_str(), msg.as_str()),
        (
            "NotImplementedError",
            "not supported by shardlab yet: flax.linen.while_loop"
        )
    );
    let (ty, msg, _) = error_of("from flax.core import lift\n");
    assert_eq!(
        (ty.as_str(), msg.as_str()),
        (
            "NotImplementedError",
            "not supported by shardlab yet: flax.core.lift"
        )
    );
    let filter = format!(
        "{head}m = nn.Dense(2)\nv = m.init(jax.random.key(0), jnp.ones(3))\nm.apply(v, jnp.ones(3), mutable=nn.DenyList('params'))\n"
    );
    let (ty, _, _) = error_of(&filter);
    assert_eq!(ty, "NotImplementedError");
    let bound = format!(
        "{head}m = nn.Dense(2)\nv = m.init(jax.random.key(0), jnp.ones(3))\nb = m.bind(v)\n"
    );
    let (ty, msg, line) = error_of(&bound);
    assert_eq!(
        (ty.as_str(), msg.as_str(), line),
        (
            "NotImplementedError",
            "not supported by shardlab yet: flax.linen.Module.bind",
            6
        )
    );
}

/// NumPy's arange takes scalar ends; a tuple or a longer array is
/// NumPy's TypeError, not a crash.
#[test]
fn numpy_arange_of_a_sequence_is_a_type_error() {
    for arg in ["()", "np.array([1, 2])"] {
        let (ty, msg, line) = error_of(&format!("import numpy as np\nx = np.arange({arg})\n"));
        assert_eq!(
            (ty.as_str(), msg.as_str(), line),
            (
                "TypeError",
                "arange: scalar arguments expected instead of a sequence or array",
                2
            ),
            "{arg}"
        );
    }
}

/// A shard_map manual over some mesh axes refuses an argument already split
/// over the other axes (JAX runs the body as a program partitioned over
/// them), eagerly and inside jit, and check_vma=False.
#[test]
fn partial_manual_shard_map_refusals_name_what_is_missing() {
    let head = "import jax\nimport jax.numpy as jnp\nfrom jax.sharding import NamedSharding, PartitionSpec as P\nmesh = jax.make_mesh((2, 4), ('a', 'b'))\nx = jax.device_put(jnp.ones((8, 8)), NamedSharding(mesh, P('a', 'b')))\nf = jax.shard_map(lambda v: v, mesh=mesh, in_specs=P('a'), out_specs=P('a'), axis_names={'a'}";
    let split = "not supported by shardlab yet: a shard_map manual over some mesh axes of an argument split over the others";
    for (call, msg, line) in [
        ("f(x)", split, 7),
        ("jax.jit(f)(x)", split, 7),
        ("jax.jit(lambda v: f(v * 2))(x)", split, 7),
    ] {
        let (ty, m, l) = error_of(&format!("{head})\n{call}\n"));
        assert_eq!(
            (ty.as_str(), m.as_str(), l),
            ("NotImplementedError", msg, line),
            "{call}"
        );
    }
    let (ty, m, _) = error_of(&format!("{head}, check_vma=False)\nf(jnp.ones((8, 8)))\n"));
    assert_eq!(
        (ty.as_str(), m.as_str()),
        (
            "NotImplementedError",
            "not supported by shardlab yet: a shard_map manual over some mesh axes with check_vma=False"
        )
    );
}

/// cost_analysis counts only programs whose lowering it models exactly:
/// what JAX or XLA would fold or spell differently is refused by name, and
/// so are the compiled program's costs and programs over placed arrays.
#[test]
fn cost_analysis_refuses_what_it_cannot_count_exactly() {
    let head = "import jax\nimport jax.numpy as jnp\nfrom jax.sharding import NamedSharding, PartitionSpec as P\na = jnp.ones((8, 4))\n";
    let cases = [
        ("jax.jit(lambda x: x * 1.0).lower(a).cost_analysis()", "cost_analysis of a program with multiply by the literal 1"),
        ("jax.jit(jax.nn.relu).lower(a).cost_analysis()", "cost_analysis of a program with stop_gradient"),
        ("jax.jit(jax.grad(lambda x: (x * x).sum())).lower(a).cost_analysis()", "cost_analysis of a program with a constant array"),
        ("jax.jit(lambda x: x + a).lower(a).cost_analysis()", "cost_analysis of a program that closes over arrays"),
        ("jax.jit(lambda x: jnp.cumsum(x)).lower(a).cost_analysis()", "cost_analysis of a program with cumsum"),
        ("jax.jit(jnp.sin).lower(a).compile().cost_analysis()", "Compiled.cost_analysis (the costs of XLA's optimised program)"),
        ("jax.jit(jnp.sin).lower(a).compile().memory_analysis()", "Compiled.memory_analysis (the costs of XLA's optimised program)"),
        ("jax.jit(jnp.sin).lower(jax.device_put(a, NamedSharding(jax.make_mesh((8,), ('x',)), P('x')))).cost_analysis()", "Lowered.cost_analysis of a program over placed arrays"),
    ];
    refused_by_name(head, 5, &cases);
}

/// Dtypes NumPy has and shardlab has no arrays of, structured dtypes and
/// the scalar class of a dtype are refused by name.
#[test]
fn numpy_dtypes_without_arrays_are_refused_by_name() {
    for (code, said) in [
        ("np.dtype('O')", "dtype 'O'"),
        ("jnp.dtype('<U8')", "dtype '<U8'"),
        ("np.dtype('datetime64')", "dtype 'datetime64'"),
        ("np.dtype('uint64')", "dtype 'uint64'"),
        ("np.dtype([('a', 'f4')])", "structured dtypes"),
        ("jnp.dtype('int16').type(3)", "numpy.int16 scalars"),
        ("np.float16([0.5, 1.0])", "numpy.float16 of a list"),
        (
            "jnp.ones(2, jnp.bfloat16).dtype.type(1) * 2.0",
            "arithmetic of bfloat16 scalars outside JAX arrays",
        ),
        (
            "np.float16(0.5) + np.float16(1)",
            "arithmetic of float16 scalars outside JAX arrays",
        ),
    ] {
        let (ty, msg, line) = error_of(&format!(
            "import numpy as np\nimport jax.numpy as jnp\nx = {code}\n"
        ));
        assert_eq!(
            (ty.as_str(), msg.as_str(), line),
            (
                "NotImplementedError",
                format!("not supported by shardlab yet: {said}").as_str(),
                3
            ),
            "{code}"
        );
    }
}

/// linen's convolutions and attention refuse by name what shardlab does
/// not model: a non-float32 dtype (the locally connected convolution's too), the
/// decoding cache and a custom attention function.
#[test]
fn linen_conv_and_attention_refusals() {
    let head = "import jax\nimport jax.numpy as jnp\nimport flax.linen as nn\n";
    let cases = [
        (
            "nn.ConvLocal(2, (3,), dtype=jnp.bfloat16).init(jax.random.key(0), jnp.ones((1, 5, 2)))",
            "not supported by shardlab yet: linen ConvLocal with a dtype other than float32",
        ),
        (
            "nn.Conv(2, 3, dtype=jnp.bfloat16).init(jax.random.key(0), jnp.ones((1, 5, 2)))",
            "not supported by shardlab yet: linen Conv with a dtype other than float32",
        ),
        (
            "nn.MultiHeadDotProductAttention(2, decode=True).init(jax.random.key(0), jnp.ones((1, 3, 4)))",
            "not supported by shardlab yet: linen MultiHeadDotProductAttention with decode=True",
        ),
        (
            "nn.MultiHeadDotProductAttention(2, attention_fn=lambda q, k, v, **kw: q).init(jax.random.key(0), jnp.ones((1, 3, 4)))",
            "not supported by shardlab yet: linen MultiHeadDotProductAttention with a custom attention_fn",
        ),
        (
            "nn.DenseGeneral(3, batch_dims=(0,)).init(jax.random.key(0), jnp.ones((2, 4)))",
            "not supported by shardlab yet: linen DenseGeneral with batch_dims",
        ),
    ];
    for (code, want) in cases {
        let (ty, msg, line) = error_of(&format!("{head}{code}\n"));
        assert_eq!(
            (ty.as_str(), msg.as_str(), line),
            ("NotImplementedError", want, 4),
            "{code}"
        );
    }
}

/// nnx.custom_vjp: what Flax's tree mode passes a backward rule that
/// declares `updates_g`, and `nnx.DiffState` filters, are refused by name;
/// an integer `nondiff_argnums` at a module is Flax's TypeError.
#[test]
fn nnx_custom_vjp_refusals() {
    let head = "import jax\nimport jax.numpy as jnp\nfrom flax import nnx\nm = nnx.Linear(2, 2, rngs=nnx.Rngs(0))\n";
    let updates_g = format!(
        "{head}f = nnx.custom_vjp(lambda m: m.kernel.sum(), graph=False)\nf.defvjp(lambda m: (f(m), ()), lambda res, g, *, updates_g: (m,))\nnnx.grad(f)(m)\n"
    );
    let (ty, msg, line) = error_of(&updates_g);
    assert_eq!(
        (ty.as_str(), msg.as_str(), line),
        (
            "NotImplementedError",
            "not supported by shardlab yet: nnx.custom_vjp with a bwd rule that takes updates_g",
            7
        )
    );
    let int_at_module = format!(
        "{head}f = nnx.custom_vjp(lambda m, x: x, nondiff_argnums=(0,))\nf.defvjp(lambda m, x: (x, ()), lambda m, res, g: (g,))\nf(m, 1.0)\n"
    );
    let (ty, msg, line) = error_of(&int_at_module);
    assert_eq!((ty.as_str(), line), ("TypeError", 7));
    assert!(msg.starts_with("Passing integers to nondiff_argnums for graph nodes"));
    let (ty, msg, _) = error_of(&format!(
        "{head}f = nnx.custom_vjp(lambda m: 1.0, nondiff_argnums=(nnx.DiffState(0, ...),))\n"
    ));
    assert_eq!(
        (ty.as_str(), msg.as_str()),
        (
            "NotImplementedError",
            "not supported by shardlab yet: flax.nnx.DiffState"
        )
    );
    let (ty, msg, _) = error_of(
        "import jax\nimport jax.numpy as jnp\njax.jvp(lambda x: (x, x), (1.0,), (1.0,), has_aux=True)\n",
    );
    assert_eq!(
        (ty.as_str(), msg.as_str()),
        (
            "NotImplementedError",
            "not supported by shardlab yet: jax.jvp with has_aux=True"
        )
    );
}

/// linen's RNN computes Flax's scan only for its default scan settings and
/// for cells that make nothing but parameters; the cells model float32.
#[test]
fn linen_rnn_refusals() {
    let head = "import jax\nimport jax.numpy as jnp\nimport flax.linen as nn\n";
    let x = "jnp.ones((2, 4, 3))";
    let cases = [
        (
            format!("{head}r = nn.RNN(nn.GRUCell(3), variable_axes={{'params': 0}})\nr.init(jax.random.key(0), {x})\n"),
            "not supported by shardlab yet: linen RNN with variable_axes other than its default",
            5,
        ),
        (
            format!("{head}r = nn.RNN(nn.GRUCell(3), split_rngs={{'params': True}})\nr.init(jax.random.key(0), {x})\n"),
            "not supported by shardlab yet: linen RNN with split_rngs other than its default",
            5,
        ),
        (
            format!("{head}c = nn.GRUCell(3, dtype=jnp.bfloat16)\nc.init(jax.random.key(0), jnp.ones((2, 3)), jnp.ones((2, 3)))\n"),
            "not supported by shardlab yet: linen GRUCell with a dtype other than float32",
            5,
        ),
        (
            format!(
                "{head}class Drop(nn.RNNCellBase):\n    @nn.compact\n    def __call__(self, c, x):\n        h = nn.Dropout(0.5, deterministic=False)(x) + c\n        return h, h\n    @nn.nowrap\n    def initialize_carry(self, rng, shape):\n        return jnp.zeros(shape)\n    num_feature_axes = 1\nr = nn.RNN(Drop())\nr.init({{'params': jax.random.key(0), 'dropout': jax.random.key(1)}}, {x})\n"
            ),
            "not supported by shardlab yet: linen RNN over a cell that draws keys or makes variables beyond params",
            14,
        ),
    ];
    for (program, message, line) in cases {
        let (ty, msg, at) = error_of(&program);
        assert_eq!(
            (ty.as_str(), msg.as_str(), at),
            ("NotImplementedError", message, line)
        );
    }
    for name in ["jit", "map_variables"] {
        let (ty, msg, _) = error_of(&format!("{head}nn.{name}\n"));
        assert_eq!(
            (ty.as_str(), msg),
            (
                "NotImplementedError",
                format!("not supported by shardlab yet: flax.linen.{name}")
            )
        );
    }
}

/// optax's Hungarian algorithms replay their loops on the cost matrix's
/// values: under `jit` the matrix is traced and that is refused by name,
/// as is a matrix whose search JAX would loop on forever.
#[test]
fn optax_assignment_of_a_traced_or_infinite_matrix_is_refused() {
    refused_by_name(
        "import jax\nimport jax.numpy as jnp\nimport optax\n",
        4,
        &[
            (
                "jax.jit(optax.assignment.hungarian_algorithm)(jnp.ones((2, 2)))",
                "optax.assignment.hungarian_algorithm of a traced array",
            ),
            (
                "optax.assignment.base_hungarian_algorithm(jnp.full((2, 2), jnp.inf))",
                "optax.assignment.base_hungarian_algorithm of a matrix with no finite assignment (JAX's loop does not end)",
            ),
        ],
    );
}

/// `jax.scipy.stats.mode` counts values on the host, so a traced array is
/// refused by name; so is `sem` of a narrow float, whose jitted rounding
/// shardlab does not follow; `assert_raises` as a context manager, and the
/// `array` typecodes and `frombuffer` dtypes shardlab has no arrays of.
#[test]
fn scipy_stats_testing_and_buffer_refusals() {
    refused_by_name(
        "import array\nimport jax\nimport jax.numpy as jnp\nimport numpy as np\n",
        5,
        &[
            (
                "jax.jit(jax.scipy.stats.mode)(jnp.ones(3))",
                "jax.scipy.stats.mode of a traced array",
            ),
            (
                "jax.scipy.stats.sem(jnp.ones(3, jnp.bfloat16))",
                "jax.scipy.stats.sem of bfloat16 arrays",
            ),
            (
                "np.testing.assert_raises(ValueError)",
                "numpy.testing.assert_raises as a context manager",
            ),
            ("array.array('h', [1])", "array.array with typecode 'h'"),
            (
                "jnp.frombuffer(b'ab', dtype=jnp.float16)",
                "jax.numpy.frombuffer with dtype float16",
            ),
        ],
    );
}

/// Under an explicit mesh: `out_sharding` naming mesh axes on a
/// function that is not a draw inside a traced function (JAX types its
/// result, which shardlab does not stage), and a draw resharded over an
/// `Auto` axis inside one.
#[test]
fn explicit_sharding_under_vmap_refusals() {
    refused_by_name(
        "import jax\nimport jax.numpy as jnp\nfrom jax.sharding import AxisType, PartitionSpec as P\nmesh = jax.make_mesh((2, 4), ('data', 'model'), axis_types=(AxisType.Explicit, AxisType.Auto))\njax.set_mesh(mesh)\na = jax.device_put(jnp.ones((2, 4)), P('data', None))\nb = jax.device_put(jnp.ones((4, 2)), P(None, 'data'))\nk = jax.random.split(jax.random.key(0), 2)\n",
        9,
        &[
            (
                "jax.jit(lambda: jnp.zeros((8,), out_sharding=P('data')))()",
                "out_sharding inside a transformation, except for dot, matmul and einsum of 2-D operands and the draws of jax.random",
            ),
            (
                "jax.vmap(lambda k: jax.random.normal(k, (4,), out_sharding=P('model')))(k)",
                "out_sharding over the Auto mesh axis 'model' inside a transformation (a draw can be resharded over explicit axes only)",
            ),
        ],
    );
    // JAX's own error for a vmap whose operands split the mapped dimension
    // differently.
    let (ty, msg, line) = error_of(
        "import jax\nimport jax.numpy as jnp\nfrom jax.sharding import AxisType, PartitionSpec as P\njax.set_mesh(jax.make_mesh((2, 4), ('data', 'model'), axis_types=(AxisType.Explicit,) * 2))\na = jax.device_put(jnp.ones((4, 4)), P('data', None))\njax.vmap(lambda x, y: x + y)(a, jnp.ones((4, 4)))\n",
    );
    assert_eq!(
        (ty.as_str(), msg.as_str(), line),
        (
            "ValueError",
            "Mapped away dimension of inputs passed to vmap should be sharded the same. Got inconsistent axis specs: data vs None",
            6
        )
    );
    let (ty, msg, line) = error_of(
        "import jax\nfrom jax.sharding import PartitionSpec as P\njax.set_mesh(jax.make_mesh((8,), ('x',)))\njax.nn.initializers.orthogonal()(jax.random.key(0), (8, 8), out_sharding=P('x'))\n",
    );
    assert_eq!((ty.as_str(), line), ("NotImplementedError", 4));
    assert!(
        msg.starts_with("jax.nn.initializers.orthogonal takes no out_sharding in JAX"),
        "{msg}"
    );
}

/// Donation is modelled for arrays on one device called from Python: a
/// donated array split over a mesh, and lowering a function with donated
/// arguments ahead of time, are refused by name.
#[test]
fn donation_refusals() {
    refused_by_name(
        "import jax\nimport jax.numpy as jnp\nmesh = jax.make_mesh((8,), ('x',))\n\
         xs = jax.device_put(jnp.ones(8), jax.NamedSharding(mesh, jax.P('x')))\n",
        5,
        &[
            (
                "jax.jit(lambda x: x + 1, donate_argnums=0)(xs)",
                "donate_argnums with arrays split over several devices",
            ),
            (
                "jax.jit(lambda x: x + 1, donate_argnums=0).lower(jnp.ones(2))",
                "lower with donated arguments",
            ),
        ],
    );
}

/// NumPy's Generator refuses what it would not draw exactly: `out=`, array
/// parameters and bounds, bounds the host arrays cannot hold exactly, and
/// RandomState's 8-bit draws.
#[test]
fn numpy_generator_refusals() {
    refused_by_name(
        "import numpy as np\nrng = np.random.default_rng(0)\n",
        3,
        &[
            (
                "rng.random(2, out=[0.0, 0.0])",
                "numpy.random.Generator.random with out",
            ),
            (
                "rng.normal([0.0, 1.0])",
                "numpy.random.Generator.normal with loc of type list",
            ),
            (
                "rng.integers(0, 2**60)",
                "numpy.random.Generator.integers with a bound beyond 2**53",
            ),
            (
                "rng.integers([1, 2])",
                "numpy.random.Generator.integers with a bound of type list",
            ),
            (
                "np.random.RandomState(0).randint(5, dtype=np.uint8)",
                "randint with dtype uint8",
            ),
        ],
    );
}

/// `Rotation.mean` takes an eigenvector from `eigh`, whose float32 digits
/// shardlab matches only to a few ulps, so it is refused by name.
#[test]
fn rotation_mean_is_refused() {
    refused_by_name(
        "import jax.numpy as jnp\nfrom jax.scipy.spatial.transform import Rotation\nr = Rotation.from_rotvec(jnp.ones((2, 3)))\n",
        4,
        &[("r.mean()", "jax.scipy.spatial.transform.Rotation.mean")],
    );
}

/// `jnp.unique` of a traced array with `size=` follows JAX's steps, except
/// on an empty array and on complex numbers, which are refused by name.
#[test]
fn traced_unique_refusals() {
    refused_by_name(
        "import jax\nimport jax.numpy as jnp\n",
        3,
        &[
            (
                "jax.jit(lambda x: jnp.unique(x, size=2, fill_value=0))(jnp.ones(0))",
                "jax.numpy.unique of a traced empty array",
            ),
            (
                "jax.jit(lambda x: jnp.unique(x, size=2))(jnp.ones(3, jnp.complex64))",
                "jax.numpy.unique of a traced complex64 array",
            ),
        ],
    );
}

/// linen's `nn.scan` lifts collections by name into a stacked axis or a
/// broadcast; carried variables, data transforms and a body that changes a
/// collection it does not lift are refused by name, as are `nn.checkpoint`
/// narrowed to some variables or streams and `nn.vmap` over a mesh axis.
#[test]
fn linen_lifted_transform_refusals() {
    let imports = "import jax\nimport jax.numpy as jnp\nimport flax.linen as nn\n";
    let block = "class B(nn.Module):\n    @nn.compact\n    def __call__(self, c, x):\n        self.sow('intermediates', 'h', x)\n        return c, nn.Dense(2)(x)\n";
    let head = format!("{imports}{block}");
    let sow = "nn.scan(B, variable_broadcast='params', split_rngs={'params': False})().init(jax.random.key(0), jnp.zeros(2), jnp.ones((3, 2)), mutable=True)";
    refused_by_name(
        &head,
        9,
        &[
            (
                "nn.scan(nn.Dense, variable_carry='batch_stats')",
                "flax.linen.scan with variable_carry",
            ),
            (
                "nn.scan(nn.Dense, data_transform=lambda v, r: (v, r))",
                "flax.linen.scan with data_transform",
            ),
            (
                "nn.scan(nn.Dense, variable_axes={'params': nn.broadcast})",
                "flax.linen.scan with variable_axes other than integer axes",
            ),
            (
                sow,
                "flax.linen.scan over a module that changes a collection outside variable_axes and variable_broadcast",
            ),
            (
                "nn.checkpoint(nn.Dense, rngs=False)",
                "flax.linen.checkpoint with rngs other than True",
            ),
            (
                "nn.vmap(nn.Dense, spmd_axis_name='data')",
                "flax.linen.vmap with spmd_axis_name",
            ),
            (
                "nn.vmap(nn.Dense, variable_axes={'params': nn.broadcast})",
                "flax.linen.vmap with variable_axes other than integers and None",
            ),
        ],
    );
}

/// The parts of `jax.experimental.sparse` shardlab lacks (other formats,
/// batched products, sparse-sparse products, operations `sparsify` has no
/// rule for) are refused by name.
#[test]
fn sparse_refusals() {
    refused_by_name(
        "import jax\nimport jax.numpy as jnp\nfrom jax.experimental import sparse\nM = sparse.BCOO.fromdense(jnp.eye(3))\nB = sparse.BCOO.fromdense(jnp.ones((2, 3, 3)), n_batch=1)\n",
        6,
        &[
            ("sparse.BCSR", "jax.experimental.sparse.BCSR"),
            ("sparse.random_bcoo", "jax.experimental.sparse.random_bcoo"),
            ("M.reshape(9)", "BCOO.reshape"),
            ("M.update_layout(n_batch=1)", "BCOO.update_layout"),
            ("M @ M", "the product of two BCOO arrays"),
            ("M * M", "the elementwise product of two BCOO arrays"),
            ("B @ jnp.ones(3)", "matmul of a BCOO array with more than two dimensions or none"),
            ("M.sum(0)", "BCOO.sum with axis or other arguments"),
            (
                "sparse.sparsify(lambda m: jnp.cos(m))(M)",
                "sparsify of jax.numpy.cos with these arguments",
            ),
            ("sparse.sparsify(jnp.sin, use_tracer=True)", "sparsify with use_tracer=True"),
            ("sparse.eye(3, sparse_format='bcsr')", "sparse arrays of format 'bcsr'"),
            ("B.sort_indices()", "sort_indices of a BCOO with batch dimensions or no sparse dimensions"),
        ],
    );
}

#[test]
fn sharded_shape_structs_refuse_what_they_cannot_carry() {
    let head = "import jax, jax.numpy as jnp\n";
    refused_by_name(
        head,
        2,
        &[
            (
                "s = jax.ShapeDtypeStruct((2,), jnp.float32, sharding=jax.sharding.SingleDeviceSharding(jax.devices()[0]))",
                "jax.ShapeDtypeStruct(sharding=) given a SingleDeviceSharding",
            ),
            (
                "s = jax.jit(lambda n, x: x * n, static_argnums=0).eval_shape(2, jnp.ones(3))",
                "eval_shape of a jitted function with static arguments",
            ),
        ],
    );
}

#[test]
fn a_shape_struct_spec_needs_a_context_mesh() {
    let (ty, msg, line) = error_of(
        "import jax, jax.numpy as jnp\ns = jax.ShapeDtypeStruct((2,), jnp.float32, sharding=jax.sharding.PartitionSpec('x'))\n",
    );
    assert_eq!(
        (ty.as_str(), msg.as_str(), line),
        (
            "TypeError",
            "When specifying PartitionSpec to `ShapeDtypeStruct`, the context mesh cannot be empty. Please use `jax.set_mesh` to set the mesh context.",
            2
        )
    );
}
