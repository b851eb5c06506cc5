"""Writes src/ir/unprintable.rs: the code points CPython 3.11's
str.isprintable() rejects, as ranges (what repr() escapes).

Run with the Python shardlab follows (3.11, Unicode 14.0):
    /work/venv/bin/python tests/jax/gen_unprintable.py
"""
import pathlib
import sys
import unicodedata

ranges = []
start = None
for c in range(0x110000):
    bad = not chr(c).isprintable()
    if bad and start is None:
        start = c
    if not bad and start is not None:
        ranges.append((start, c - 1))
        start = None
if start is not None:
    ranges.append((start, 0x10FFFF))

out = pathlib.Path(__file__).resolve().parents[2] / "src/ir/unprintable.rs"
lines = [
    "//! The characters CPython's `repr` of a str escapes: those",
    "//! `str.isprintable()` rejects (control, format, separator but the space,",
    "//! surrogate, private-use and unassigned code points), as sorted inclusive",
    f"//! ranges, from CPython {sys.version.split()[0]} (Unicode {unicodedata.unidata_version}).",
    "//! Written by `tests/jax/gen_unprintable.py`.",
    "",
    "/// Sorted, disjoint, inclusive ranges of the code points Python does not",
    "/// print as themselves.",
    "const RANGES: &[(u32, u32)] = &[",
]
lines += [f"    (0x{a:X}, 0x{b:X})," for a, b in ranges]
lines += [
    "];",
    "",
    "/// Whether Python's `repr` writes `c` as itself.",
    "pub fn is_printable(c: char) -> bool {",
    "    let c = c as u32;",
    "    RANGES",
    "        .binary_search_by(|&(lo, hi)| {",
    "            if hi < c {",
    "                std::cmp::Ordering::Less",
    "            } else if lo > c {",
    "                std::cmp::Ordering::Greater",
    "            } else {",
    "                std::cmp::Ordering::Equal",
    "            }",
    "        })",
    "        .is_err()",
    "}",
    "",
]
out.write_text("\n".join(lines))
print(f"{len(ranges)} ranges written to {out}")
