"""Runs every tests/programs/*.py in real JAX, the way `shardlab run --json`
runs it, and writes tests/fixtures/programs/NAME.json.

Each program is exec'd in a fresh namespace with stdout captured. The fixture
holds what it printed and its global `result` (arrays as nested lists, tuples
and lists as lists, dicts as objects), or the exception it raised: the class
name, the names of its base classes, the message and the line of the program
where it was raised (the innermost frame inside the program).

A program whose first line is `# run as a script` is run as `python NAME.py`
in a fresh interpreter instead, for what this harness's own frames would
change (the recursion depth a program reaches): only its stdout is kept,
and it must end without an error.

Usage, from the repository root:
    /path/to/venv/bin/python tests/jax/gen_programs.py [NAME ...]
"""

import contextlib
import io
import json
import os
import subprocess
import sys
import traceback
import warnings

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"

import jax  # noqa: E402
import numpy as np  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROGRAMS = os.path.join(ROOT, "tests", "programs")
OUT = os.path.join(ROOT, "tests", "fixtures", "programs")


def encode(v):
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        return v
    if isinstance(v, (list, tuple)):
        return [encode(x) for x in v]
    if isinstance(v, dict):
        return {str(k): encode(x) for k, x in v.items()}
    if isinstance(v, (jax.Array, np.ndarray, np.generic)):
        a = np.asarray(v)
        if a.dtype == np.bool_:
            return a.tolist()
        if np.issubdtype(a.dtype, np.integer):
            return a.astype(np.int64).tolist()
        return a.astype(np.float64).tolist()
    return str(v)


def run(name):
    path = os.path.join(PROGRAMS, name + ".py")
    with open(path) as f:
        source = f.read()
    record = {
        "name": name,
        "versions": {"jax": jax.__version__, "jaxlib": jax.lib.__version__ if hasattr(jax, "lib") else None,
                     "numpy": np.__version__, "python": sys.version.split()[0]},
    }
    if source.startswith("# run as a script\n"):
        done = subprocess.run([sys.executable, path], capture_output=True, text=True, check=True)
        record["stdout"] = done.stdout
        record["result"] = None
        write(name, record)
        return
    out = io.StringIO()
    namespace = {"__name__": "__main__"}
    try:
        code = compile(source, path, "exec")
        # Each program starts without a context mesh and leaves none behind.
        with contextlib.redirect_stdout(out), warnings.catch_warnings(), jax.set_mesh(None):
            warnings.simplefilter("ignore")
            exec(code, namespace)
        record["stdout"] = out.getvalue()
        record["result"] = encode(namespace.get("result"))
    except Exception as e:  # noqa: BLE001 - every failure is recorded
        line = None
        if isinstance(e, SyntaxError):
            line = e.lineno
        else:
            for frame in traceback.extract_tb(e.__traceback__):
                if frame.filename == path:
                    line = frame.lineno
        record["stdout"] = out.getvalue()
        record["error"] = {
            "type": type(e).__name__,
            "mro": [c.__name__ for c in type(e).__mro__],
            "message": str(e).split("\n")[0],
            "line": line,
        }
    write(name, record)


def write(name, record):
    with open(os.path.join(OUT, name + ".json"), "w") as f:
        json.dump(record, f, indent=1, sort_keys=True)
        f.write("\n")
    status = record.get("error", {}).get("type", "ok")
    print(f"{name}: {status}")


def main():
    os.makedirs(OUT, exist_ok=True)
    names = sys.argv[1:] or sorted(p[:-3] for p in os.listdir(PROGRAMS) if p.endswith(".py"))
    for n in names:
        run(n)


if __name__ == "__main__":
    main()
