"""Generate tests/fixtures/*.json from real JAX.

Run from the repository root:

    /path/to/venv/bin/python tests/jax/gen_fixtures.py            # write all files
    /path/to/venv/bin/python tests/jax/gen_fixtures.py collectives # some groups
    /path/to/venv/bin/python tests/jax/gen_fixtures.py --out DIR  # elsewhere
    /path/to/venv/bin/python tests/jax/gen_fixtures.py --check    # versions only

The programs need 8 CPU devices; XLA_FLAGS is set here before JAX is imported.
"""

import os
import sys

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
os.environ.setdefault("JAX_PLATFORMS", "cpu")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import json  # noqa: E402

import fixturelib  # noqa: E402

GROUPS = [
    "collectives",
    "collectives_per_device",
    "sharding",
    "transforms",
    "grads",
    "seeds",
    "errors",
    "jaxpr",
]


def _dump(obj, indent=0):
    """JSON text with one line per array of scalars (stable and diff-friendly)."""
    pad = " " * indent
    if isinstance(obj, dict):
        if not obj:
            return "{}"
        items = [
            pad + " " + json.dumps(k, ensure_ascii=False) + ": " + _dump(v, indent + 1)
            for k, v in obj.items()
        ]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(obj, list):
        if all(not isinstance(v, (dict, list)) for v in obj) or all(
            isinstance(v, list) and all(not isinstance(w, (dict, list)) for w in v) for v in obj
        ):
            return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
        items = [pad + " " + _dump(v, indent + 1) for v in obj]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    return json.dumps(obj, ensure_ascii=False)


def build_group(group):
    mod = __import__("cases_" + group)
    cases = mod.cases()
    names = [c["name"] for c in cases]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise RuntimeError("duplicate case names in " + group + ": " + ", ".join(sorted(dup)))
    records = []
    for c in cases:
        records.append(fixturelib.run_case(c))
    return {
        "generator": fixturelib.GENERATOR,
        "versions": fixturelib.versions(),
        "cases": records,
    }


def check_versions(fixture_dir):
    installed = fixturelib.versions()
    bad = 0
    for group in GROUPS:
        path = os.path.join(fixture_dir, group + ".json")
        if not os.path.exists(path):
            print("missing", path)
            bad += 1
            continue
        with open(path) as f:
            recorded = json.load(f)["versions"]
        for k, v in recorded.items():
            if installed.get(k) != v:
                print(f"{group}.json: {k} recorded {v}, installed {installed.get(k)}")
                bad += 1
    if bad:
        print("version check failed")
        return 1
    print("versions match:", ", ".join(f"{k} {v}" for k, v in installed.items()))
    return 0


def main(argv):
    out_dir = os.path.join(ROOT, "tests", "fixtures")
    groups = []
    check = False
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--out":
            out_dir = argv[i + 1]
            i += 2
            continue
        if a == "--check":
            check = True
        elif a in GROUPS:
            groups.append(a)
        else:
            raise SystemExit("unknown argument: " + a)
        i += 1
    if check:
        return check_versions(out_dir)
    os.makedirs(out_dir, exist_ok=True)
    for group in groups or GROUPS:
        data = build_group(group)
        path = os.path.join(out_dir, group + ".json")
        with open(path, "w", encoding="utf-8") as f:
            f.write(_dump(data) + "\n")
        print(f"{path}: {len(data['cases'])} cases")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
