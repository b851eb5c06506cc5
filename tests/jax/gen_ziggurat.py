"""Writes src/modules/numpy/ziggurat_f64.rs: the tables of NumPy's float64
normal ziggurat (`standard_normal`, `normal` of `numpy.random.Generator`).

NumPy ships these 3 x 256 numbers as constants rather than computing them
when it runs, and double-precision arithmetic does not rebuild them to the
bit, so shardlab carries NumPy's. They are read from NumPy's compiled
`_generator` module, located by their first entries (which are known: the
layer bound 0x000EF33D8025EF6A and 0, the width 8.68362706080130616677e-16,
the heights 1 and 0.977101701267671596263), and each table is checked for
its shape (heights decreasing, widths increasing past the base layer,
bounds under 2**52) before it is written.

Usage, from the repository root:
    /path/to/venv/bin/python tests/jax/gen_ziggurat.py
"""

import glob
import os
import struct

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "src", "modules", "numpy", "ziggurat_f64.rs")


def find(blob, head, fmt):
    at = blob.find(head)
    if at < 0 or blob.find(head, at + 1) >= 0:
        raise SystemExit(f"expected one table starting {head.hex()}")
    return list(struct.unpack("<256" + fmt, blob[at:at + 2048]))


def main():
    (path,) = glob.glob(os.path.join(os.path.dirname(np.random.__file__), "_generator*.so"))
    blob = open(path, "rb").read()
    ki = find(blob, struct.pack("<QQ", 0x000EF33D8025EF6A, 0), "Q")
    wi = find(blob, struct.pack("<dd", 8.68362706080130616677e-16, 4.77933017572773682428e-17), "d")
    fi = find(blob, struct.pack("<dd", 1.0, 0.977101701267671596263), "d")
    assert all(fi[i] > fi[i + 1] for i in range(255)), "heights"
    assert all(wi[i] < wi[i + 1] for i in range(1, 255)), "widths"
    assert all(0 <= k < 2**52 for k in ki) and ki[1] == 0, "bounds"
    bits = lambda x: struct.unpack("<Q", struct.pack("<d", x))[0]
    rows = lambda xs: "\n".join(
        "    " + ", ".join(f"0x{x:016x}" for x in xs[i:i + 4]) + "," for i in range(0, 256, 4))
    with open(OUT, "w") as f:
        f.write(
            "//! The tables of NumPy's float64 normal ziggurat, as NumPy "
            f"{np.__version__} ships them\n"
            "//! (written by tests/jax/gen_ziggurat.py): for each of the 256 layers, the\n"
            "//! bound below which a position is inside it (`KI`), the width of one\n"
            "//! step of position (`WI`) and the height of the curve at its edge\n"
            "//! (`FI`), the last two as the bits of doubles. Computing them in double\n"
            "//! precision misses NumPy's in the last bits of most entries, and every\n"
            "//! draw shows it.\n\n"
            f"pub(super) const KI: [u64; 256] = [\n{rows(ki)}\n];\n\n"
            f"pub(super) const WI: [u64; 256] = [\n{rows([bits(x) for x in wi])}\n];\n\n"
            f"pub(super) const FI: [u64; 256] = [\n{rows([bits(x) for x in fi])}\n];\n")
    print(f"wrote {OUT}")


main()
