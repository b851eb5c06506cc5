//! Python's `bytes`: an immutable sequence of byte values, as `str.encode`,
//! `b'...'` literals and `hashlib` digests make them. Indexing gives ints,
//! slicing gives bytes, `+` concatenates, `repr` escapes as CPython does,
//! and `hex()`, `decode()` and `int.from_bytes` read them.

use std::rc::Rc;

use rustpython_parser::ast::Operator;

use crate::error::Result;
use crate::{bail, err};

use super::format::str_of;
use super::interp::Interp;
use super::object::Object;
use super::ops::slice_indices;
use super::value::{Args, Obj};

/// A `bytes` object.
pub struct Bytes(pub Vec<u8>);

/// A new `bytes` object.
pub fn bytes_obj(data: Vec<u8>) -> Obj {
    Obj::Lib(Rc::new(Bytes(data)))
}

/// The bytes `o` holds, if it is a `bytes` object.
pub fn as_bytes(o: &Obj) -> Option<Vec<u8>> {
    o.downcast::<Bytes>().map(|b| b.0.clone())
}

/// `repr(b)` as CPython writes it: single quotes unless the data holds a
/// single quote and no double quote; `\t`, `\n`, `\r` and `\\` escaped,
/// other bytes outside printable ASCII as `\xNN`.
fn bytes_repr(data: &[u8]) -> String {
    let quote = if data.contains(&b'\'') && !data.contains(&b'"') {
        '"'
    } else {
        '\''
    };
    let mut s = format!("b{quote}");
    for &c in data {
        match c {
            b'\t' => s.push_str("\\t"),
            b'\n' => s.push_str("\\n"),
            b'\r' => s.push_str("\\r"),
            b'\\' => s.push_str("\\\\"),
            c if c as char == quote => {
                s.push('\\');
                s.push(quote);
            }
            0x20..=0x7e => s.push(c as char),
            c => s.push_str(&format!("\\x{c:02x}")),
        }
    }
    s.push(quote);
    s
}

/// `bytes.decode(encoding='utf-8')`: UTF-8 (or ASCII) only.
fn decode(data: &[u8], a: &Args) -> Result<Obj> {
    let enc = a
        .opt(Some(0), "encoding")
        .map(|e| str_of(&e).to_lowercase().replace('_', "-"))
        .unwrap_or_else(|| "utf-8".into());
    match enc.as_str() {
        // Python raises UnicodeDecodeError for bad data, a type shardlab
        // does not model: such data is refused.
        "utf-8" | "utf8" => match std::str::from_utf8(data) {
            Ok(s) => Ok(Obj::str(s)),
            Err(_) => bail!(
                NotImplementedError,
                "not supported by shardlab yet: bytes.decode of bytes that are not valid UTF-8"
            ),
        },
        "ascii" if data.is_ascii() => Ok(Obj::str(String::from_utf8_lossy(data))),
        other => bail!(
            NotImplementedError,
            "not supported by shardlab yet: bytes.decode with encoding {other:?}"
        ),
    }
}

impl Object for Bytes {
    fn type_name(&self) -> String {
        "bytes".into()
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some(bytes_repr(&self.0))
    }

    fn items(&self, _: &Obj) -> Option<Result<Vec<Obj>>> {
        Some(Ok(self.0.iter().map(|&c| Obj::Int(c as i64)).collect()))
    }

    fn getitem(&self, _: &mut Interp, _: &Obj, key: &Obj) -> Option<Result<Obj>> {
        Some(match key {
            Obj::Int(i) => {
                let n = self.0.len() as i64;
                let j = if *i < 0 { i + n } else { *i };
                if j < 0 || j >= n {
                    Err(err!(IndexError, "index out of range"))
                } else {
                    Ok(Obj::Int(self.0[j as usize] as i64))
                }
            }
            Obj::Slice(s) => slice_indices(s, self.0.len()).map(|(start, stop, step)| {
                let mut out = vec![];
                let mut i = start;
                while (step > 0 && i < stop) || (step < 0 && i > stop) {
                    out.push(self.0[i as usize]);
                    i += step;
                }
                bytes_obj(out)
            }),
            other => Err(err!(
                TypeError,
                "byte indices must be integers or slices, not {}",
                other.type_name()
            )),
        })
    }

    fn eq(&self, _: &Obj, other: &Obj) -> Option<bool> {
        Some(as_bytes(other).is_some_and(|o| o == self.0))
    }

    fn binop(
        &self,
        _: &mut Interp,
        _: &Obj,
        op: &Operator,
        other: &Obj,
        left: bool,
        _: bool,
    ) -> Option<Result<Obj>> {
        let o = as_bytes(other)?;
        if !matches!(op, Operator::Add) {
            return None;
        }
        let mut out = if left { self.0.clone() } else { o.clone() };
        out.extend(if left { o } else { self.0.clone() });
        Some(Ok(bytes_obj(out)))
    }

    fn getattr(&self, _: &mut Interp, _: &Obj, name: &str) -> Result<Option<Obj>> {
        let data = self.0.clone();
        Ok(Some(match name {
            "hex" => Obj::native("hex", move |_, _| {
                Ok(Obj::str(
                    data.iter().map(|c| format!("{c:02x}")).collect::<String>(),
                ))
            }),
            "decode" => Obj::native("decode", move |_, a| decode(&data, &a)),
            _ => return Ok(None),
        }))
    }
}

/// `int.from_bytes(bytes, byteorder='big', *, signed=False)`, for values
/// that fit shardlab's 64-bit ints.
pub fn int_from_bytes(_: &mut Interp, a: Args) -> Result<Obj> {
    let src = a.req(Some(0), "bytes", "from_bytes")?;
    let mut data = match as_bytes(&src) {
        Some(d) => d,
        None => match &src {
            Obj::List(_) | Obj::Tuple(_) => {
                let mut v = vec![];
                for x in super::ops::iterate(&src)? {
                    match x {
                        Obj::Int(i @ 0..=255) => v.push(i as u8),
                        _ => bail!(ValueError, "bytes must be in range(0, 256)"),
                    }
                }
                v
            }
            other => bail!(
                TypeError,
                "cannot convert '{}' object to bytes",
                other.type_name()
            ),
        },
    };
    let order = a
        .opt(Some(1), "byteorder")
        .map(|o| str_of(&o).to_string())
        .unwrap_or_else(|| "big".into());
    match order.as_str() {
        "big" => {}
        "little" => data.reverse(),
        _ => bail!(ValueError, "byteorder must be either 'little' or 'big'"),
    }
    let signed = match a.opt(None, "signed") {
        Some(s) => super::ops::truthy(&s, "signed")?,
        None => false,
    };
    let significant: Vec<u8> = data.iter().copied().skip_while(|&c| c == 0).collect();
    let fits =
        significant.len() < 8 || (significant.len() == 8 && (signed || significant[0] < 0x80));
    if !fits {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: integers beyond 64 bits"
        );
    }
    let mut v: u64 = 0;
    for &c in &significant {
        v = (v << 8) | c as u64;
    }
    let bits = data.len() * 8;
    let negative = signed && data.first().is_some_and(|&c| c >= 0x80);
    Ok(Obj::Int(match negative {
        true if bits < 64 => v as i64 - (1i64 << bits),
        _ => v as i64,
    }))
}
