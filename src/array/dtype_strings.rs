//! NumPy's spellings of a dtype as a string: names (`'float32'`, `'double'`,
//! `'intc'`), one-character codes (`'f'`, `'h'`, `'?'`) and type strings
//! with an optional byte-order prefix (`'<i2'`, `'>f4'`, `'=i4'`, `'|u1'`).
//!
//! Every spelling is reduced to NumPy's canonical name first, so the places
//! that read a dtype argument (jnp's, NumPy's host arrays, `np.dtype`) each
//! match a short list of names. A big-endian multi-byte spelling is kept
//! apart: NumPy and JAX build a byte-swapped dtype from it, which no JAX
//! array may have.

use crate::bail;
use crate::error::Result;

/// A dtype string read: NumPy's canonical name and whether it asked for the
/// non-native (big-endian) byte order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spelled {
    /// `float32`, `int16`, `bool`, ...
    pub name: &'static str,
    /// `'>f4'`: swapped on a little-endian machine.
    pub swapped: bool,
}

/// The names NumPy accepts without a prefix, with their canonical name.
const NAMES: &[(&str, &str)] = &[
    ("bool", "bool"),
    ("bool_", "bool"),
    ("int8", "int8"),
    ("byte", "int8"),
    ("uint8", "uint8"),
    ("ubyte", "uint8"),
    ("int16", "int16"),
    ("short", "int16"),
    ("uint16", "uint16"),
    ("ushort", "uint16"),
    ("int32", "int32"),
    ("intc", "int32"),
    ("uint32", "uint32"),
    ("uintc", "uint32"),
    ("int64", "int64"),
    ("int", "int64"),
    ("int_", "int64"),
    ("intp", "int64"),
    ("long", "int64"),
    ("longlong", "int64"),
    ("uint64", "uint64"),
    ("uint", "uint64"),
    ("uintp", "uint64"),
    ("ulong", "uint64"),
    ("ulonglong", "uint64"),
    ("float16", "float16"),
    ("half", "float16"),
    ("float32", "float32"),
    ("single", "float32"),
    ("float64", "float64"),
    ("float", "float64"),
    ("double", "float64"),
    ("complex64", "complex64"),
    ("csingle", "complex64"),
    ("complex128", "complex128"),
    ("complex", "complex128"),
    ("cdouble", "complex128"),
    ("bfloat16", "bfloat16"),
];

/// One-character type codes (`dtype.char`) with their canonical name.
const CODES: &[(char, &str)] = &[
    ('?', "bool"),
    ('b', "int8"),
    ('B', "uint8"),
    ('h', "int16"),
    ('H', "uint16"),
    ('i', "int32"),
    ('I', "uint32"),
    ('l', "int64"),
    ('L', "uint64"),
    ('q', "int64"),
    ('Q', "uint64"),
    ('p', "int64"),
    ('P', "uint64"),
    ('e', "float16"),
    ('f', "float32"),
    ('d', "float64"),
    ('F', "complex64"),
    ('D', "complex128"),
];

/// Dtypes NumPy knows that shardlab has no arrays of: refused by name
/// rather than reported as a misspelling.
const ABSENT: &[&str] = &[
    "O",
    "object",
    "S",
    "bytes",
    "bytes_",
    "U",
    "str",
    "str_",
    "V",
    "void",
    "M",
    "M8",
    "m",
    "m8",
    "datetime64",
    "timedelta64",
    "g",
    "G",
    "f16",
    "c32",
    "float128",
    "complex256",
    "longdouble",
    "clongdouble",
    "a",
    "c",
    "int4",
    "uint4",
    "int2",
    "uint2",
];

/// A string, bytes, void or time type of a given size (`'U8'`, `'S3'`,
/// `'M8[ns]'`).
fn sized_absent(body: &str) -> bool {
    let head = body.split(|c: char| c.is_ascii_digit() || c == '[').next();
    matches!(head, Some("O" | "S" | "U" | "V" | "M" | "m" | "a")) && head != Some(body)
}

/// The canonical name of a type string (`'i2'`, `'c16'`, `'b1'`).
fn typestr(kind: char, size: &str) -> Option<&'static str> {
    Some(match (kind, size) {
        ('b', "1") => "bool",
        ('i', "1") => "int8",
        ('i', "2") => "int16",
        ('i', "4") => "int32",
        ('i', "8") => "int64",
        ('u', "1") => "uint8",
        ('u', "2") => "uint16",
        ('u', "4") => "uint32",
        ('u', "8") => "uint64",
        ('f', "2") => "float16",
        ('f', "4") => "float32",
        ('f', "8") => "float64",
        ('c', "8") => "complex64",
        ('c', "16") => "complex128",
        _ => return None,
    })
}

/// The size in bytes of a dtype by canonical name (one byte never has a
/// byte order).
pub fn itemsize(name: &str) -> usize {
    match name {
        "bool" | "int8" | "uint8" => 1,
        "int16" | "uint16" | "float16" | "bfloat16" => 2,
        "int32" | "uint32" | "float32" => 4,
        "complex128" => 16,
        _ => 8,
    }
}

/// Reads a dtype string as NumPy does, or fails with NumPy's TypeError
/// (a misspelling) or a refusal (a dtype shardlab has no arrays of).
pub fn parse(s: &str) -> Result<Spelled> {
    if let Some((_, name)) = NAMES.iter().find(|(n, _)| *n == s) {
        return Ok(Spelled {
            name,
            swapped: false,
        });
    }
    let (order, body) = match s.chars().next() {
        Some(c @ ('<' | '>' | '=' | '|')) => (c, &s[1..]),
        _ => ('=', s),
    };
    let mut chars = body.chars();
    let name = match (chars.next(), chars.as_str()) {
        (Some(c), "") => CODES.iter().find(|(k, _)| *k == c).map(|(_, n)| *n),
        (Some(c), size) => typestr(c, size),
        (None, _) => None,
    };
    match name {
        Some(name) => Ok(Spelled {
            name,
            swapped: order == '>' && itemsize(name) > 1,
        }),
        None if ABSENT.contains(&body) || sized_absent(body) || body.starts_with("float8_") => {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: dtype '{s}'"
            )
        }
        None => bail!(TypeError, "data type '{s}' not understood"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(s: &str) -> &'static str {
        parse(s).map(|p| p.name).unwrap_or("error")
    }

    #[test]
    fn every_spelling_reaches_the_canonical_name() {
        assert_eq!(name("<i2"), "int16");
        assert_eq!(name("=i4"), "int32");
        assert_eq!(name("|u1"), "uint8");
        assert_eq!(name("f8"), "float64");
        assert_eq!(name("c16"), "complex128");
        assert_eq!(name("?"), "bool");
        assert_eq!(name("intc"), "int32");
        assert_eq!(name("<float32"), "error");
        assert_eq!(name("i3"), "error");
    }

    #[test]
    fn only_big_endian_multibyte_strings_are_swapped() {
        let swapped = |s| parse(s).map(|p| p.swapped).unwrap_or(false);
        assert!(swapped(">f4"));
        assert!(!swapped(">i1"));
        assert!(!swapped("<f4"));
        assert!(!swapped("=f4"));
    }
}
