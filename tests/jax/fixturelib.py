"""Running fixture programs and turning their results into JSON-ready data.

Every case is a complete Python program given as text.  It is executed in a
fresh namespace; the arrays it names as inputs, the variable ``result`` (an
array or a pytree of arrays), an optional ``jaxpr`` variable and an optional
``mesh`` variable are read back afterwards.  An exception raised by the
program is recorded instead of outputs.
"""

import contextlib
import io
import math
import re
import textwrap
import warnings

import jax
import numpy as np
from jax.sharding import Mesh

GENERATOR = "tests/jax/gen_fixtures.py"

HEADER = (
    "import jax\n"
    "import jax.numpy as jnp\n"
    "import numpy as np\n"
    "from jax.sharding import Mesh, NamedSharding, PartitionSpec as P\n"
)


def program(body, header=HEADER):
    """The full text of a program: the standard imports, then ``body``."""
    body = textwrap.dedent(body).strip("\n") + "\n"
    if header:
        return header + "\n" + body
    return body


def versions():
    import platform

    import flax
    import jaxlib
    import optax

    return {
        "jax": jax.__version__,
        "jaxlib": jaxlib.__version__,
        "flax": flax.__version__,
        "optax": optax.__version__,
        "numpy": np.__version__,
        "python": platform.python_version(),
    }


# ---------------------------------------------------------------------------
# Array encoding


def _scalar(v, kind):
    if kind == "b":
        return bool(v)
    if kind in "iu":
        return int(v)
    f = float(v)
    if math.isnan(f):
        return "NaN"
    if math.isinf(f):
        return "Infinity" if f > 0 else "-Infinity"
    return f


def encode_array(a):
    a = np.asarray(a)
    if a.dtype == jax.dtypes.float0:
        # Tangent type of integer inputs: no data, only a shape.
        return {"shape": list(a.shape), "dtype": "float0", "data": []}
    kind = a.dtype.kind
    return {
        "shape": list(a.shape),
        "dtype": str(a.dtype),
        "data": [_scalar(v, kind) for v in a.reshape(-1).tolist()],
    }


def _key_name(k):
    tu = jax.tree_util
    if isinstance(k, tu.DictKey):
        return str(k.key)
    if isinstance(k, tu.SequenceKey):
        return str(k.idx)
    if isinstance(k, tu.GetAttrKey):
        return str(k.name)
    if isinstance(k, tu.FlattenedIndexKey):
        return str(k.key)
    return str(k)


def flatten_named(tree, root, prefix=False):
    """Flatten a pytree into {"a.b.0": leaf}; a bare leaf is named ``root``.

    With ``prefix``, every name starts with ``root.``.
    """
    leaves = jax.tree_util.tree_flatten_with_path(tree)[0]
    out = {}
    for path, leaf in leaves:
        name = ".".join(_key_name(k) for k in path) if path else root
        if path and prefix:
            name = root + "." + name
        out[name] = leaf
    return out


def _index(idx, shape):
    ranges = []
    for sl, n in zip(idx, shape):
        start, stop, step = sl.indices(n)
        assert step == 1
        ranges.append([start, stop])
    return ranges


def encode_shards(arr):
    shards = sorted(arr.addressable_shards, key=lambda s: s.device.id)
    return [
        {
            "device": int(s.device.id),
            "index": _index(s.index, arr.shape),
            "data": encode_array(s.data),
        }
        for s in shards
    ]


def _is_sharded(arr):
    if not isinstance(arr, jax.Array):
        return False
    try:
        return len(arr.sharding.device_set) > 1 and not arr.sharding.is_fully_replicated
    except Exception:
        return False


def encode_mesh(mesh):
    out = {
        "shape": [int(n) for n in mesh.devices.shape],
        "axis_names": list(mesh.axis_names),
        "axis_types": [str(t).split(".")[-1] for t in mesh.axis_types],
        "device_ids": [int(d.id) for d in mesh.devices.reshape(-1)],
    }
    return out


_ADDR = re.compile(r"0x[0-9a-fA-F]+")


def clean_message(msg):
    # Object addresses differ from run to run.
    return _ADDR.sub("0x…", msg)


# ---------------------------------------------------------------------------
# Running a case


def run_case(case):
    """Execute one case dict and return its JSON record.

    case keys: name, source, inputs (list of variable names), and optional
    per_device ("auto" | "all" | "none"), jaxpr (bool), params (dict),
    expect_error (bool), note (str).
    """
    ns = {"__name__": "__fixture__"}
    out = io.StringIO()
    error = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with contextlib.redirect_stdout(out):
            try:
                exec(compile(case["source"], "<" + case["name"] + ">", "exec"), ns)
            except Exception as e:  # recorded, not raised
                error = {"type": type(e).__name__, "message": clean_message(str(e))}

    rec = {"name": case["name"]}
    if case.get("note"):
        rec["note"] = case["note"]
    rec["source"] = case["source"]
    if case.get("params"):
        rec["params"] = case["params"]
    mesh = ns.get("mesh")
    if isinstance(mesh, Mesh):
        rec["mesh"] = encode_mesh(mesh)
    inputs = {}
    for var in case.get("inputs", []):
        if var in ns:
            for k, v in flatten_named(ns[var], var, prefix=True).items():
                inputs[k] = encode_array(v)
    rec["inputs"] = inputs

    if error is None:
        if "result" not in ns:
            raise RuntimeError(case["name"] + ": program set no `result`")
        outs = flatten_named(ns["result"], "out")
        rec["outputs"] = {k: encode_array(v) for k, v in outs.items()}
        mode = case.get("per_device", "auto")
        per = {}
        for k, v in outs.items():
            if not isinstance(v, jax.Array):
                continue
            if mode == "all" or (mode == "auto" and _is_sharded(v)):
                per[k] = encode_shards(v)
        if per:
            rec["per_device"] = per
    else:
        rec["error"] = error
    if case.get("expect_error") and error is None:
        raise RuntimeError(case["name"] + ": expected an error but the program ran")
    if not case.get("expect_error") and error is not None and not case.get("may_error"):
        raise RuntimeError(case["name"] + ": unexpected error " + repr(error))
    if case.get("jaxpr"):
        if "jaxpr" not in ns:
            raise RuntimeError(case["name"] + ": program set no `jaxpr`")
        rec["jaxpr"] = str(ns["jaxpr"])
    printed = out.getvalue()
    if printed:
        rec["stdout"] = printed
    if caught:
        seen = []
        for w in caught:
            s = w.category.__name__ + ": " + str(w.message)
            if s not in seen:
                seen.append(s)
        rec["warnings"] = seen
    return rec
