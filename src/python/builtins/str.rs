//! The methods of `str`, and `str.format`.

use crate::err;
use crate::error::Result;

use super::super::format::{format_value, repr_of, str_of};
use super::super::value::{Args, Obj};
use super::bound;

/// `str.encode(encoding='utf-8')`: UTF-8, or ASCII for ASCII text (Python
/// raises UnicodeEncodeError otherwise, a type shardlab does not model, so
/// that is refused).
fn encode(s: &str, a: &Args) -> Result<Obj> {
    let enc = a
        .opt(Some(0), "encoding")
        .map(|e| str_of(&e).to_lowercase().replace('_', "-"))
        .unwrap_or_else(|| "utf-8".into());
    match enc.as_str() {
        "utf-8" | "utf8" => {}
        "ascii" if s.is_ascii() => {}
        other => {
            return Err(err!(
                NotImplementedError,
                "not supported by shardlab yet: str.encode with encoding {other:?}"
            ))
        }
    }
    Ok(super::super::bytes::bytes_obj(s.as_bytes().to_vec()))
}

/// The `str` method `name`, bound to `recv`.
pub fn method(recv: &Obj, name: &str) -> Option<Obj> {
    Some(match (recv, name) {
        (Obj::Str(_), "join") => bound(recv, name, |i, r, a| {
            let items = i.iterate(&a.req(Some(0), "iterable", "join")?)?;
            let parts: Vec<String> = items
                .iter()
                .map(|x| match x {
                    Obj::Str(s) => Ok(s.to_string()),
                    o => Err(err!(
                        TypeError,
                        "sequence item 0: expected str instance, {} found",
                        o.type_name()
                    )),
                })
                .collect::<Result<_>>()?;
            let sep = str_of(r);
            let total = parts.iter().map(String::len).sum::<usize>()
                + sep.len() * parts.len().saturating_sub(1);
            crate::python::budget::check_grow(total, "a joined string")?;
            Ok(Obj::str(parts.join(&sep)))
        }),
        (Obj::Str(_), "format") => bound(recv, name, |_, r, a| {
            Ok(Obj::str(str_format(&str_of(r), &a)?))
        }),
        (Obj::Str(s), "upper") => {
            let s = s.to_uppercase();
            Obj::native(name, move |_, _| Ok(Obj::str(&s)))
        }
        (Obj::Str(s), "lower") => {
            let s = s.to_lowercase();
            Obj::native(name, move |_, _| Ok(Obj::str(&s)))
        }
        (Obj::Str(_), "strip" | "lstrip" | "rstrip") => {
            let n = name.to_string();
            bound(recv, name, move |_, r, _| {
                let s = str_of(r);
                Ok(Obj::str(match n.as_str() {
                    "strip" => s.trim(),
                    "lstrip" => s.trim_start(),
                    _ => s.trim_end(),
                }))
            })
        }
        (Obj::Str(_), "split") => bound(recv, name, |_, r, a| {
            let s = str_of(r);
            let parts: Vec<Obj> = match a.opt(Some(0), "sep") {
                Some(sep) => s.split(&*str_of(&sep)).map(Obj::str).collect(),
                None => s.split_whitespace().map(Obj::str).collect(),
            };
            Ok(Obj::list(parts))
        }),
        (Obj::Str(_), "replace") => bound(recv, name, |_, r, a| {
            let from = str_of(&a.req(Some(0), "old", "replace")?);
            let to = str_of(&a.req(Some(1), "new", "replace")?);
            Ok(Obj::str(str_of(r).replace(&from, &to)))
        }),
        (Obj::Str(_), "startswith" | "endswith") => {
            let start = name == "startswith";
            bound(recv, name, move |_, r, a| {
                let p = str_of(&a.req(Some(0), "prefix", "startswith")?);
                let s = str_of(r);
                Ok(Obj::Bool(if start {
                    s.starts_with(&p)
                } else {
                    s.ends_with(&p)
                }))
            })
        }
        (Obj::Str(_), "encode") => bound(recv, name, |_, r, a| encode(&str_of(r), &a)),
        _ => return None,
    })
}

/// `"...".format(*args, **kwargs)`.
pub fn str_format(fmt: &str, a: &Args) -> Result<String> {
    let mut out = String::new();
    let mut auto = 0usize;
    let chars: Vec<char> = fmt.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '{' && chars.get(i + 1) == Some(&'{') {
            out.push('{');
            i += 2;
            continue;
        }
        if c == '}' && chars.get(i + 1) == Some(&'}') {
            out.push('}');
            i += 2;
            continue;
        }
        if c != '{' {
            out.push(c);
            i += 1;
            continue;
        }
        let end = chars[i..]
            .iter()
            .position(|&x| x == '}')
            .map(|p| p + i)
            .ok_or_else(|| err!(ValueError, "Single '{{' encountered in format string"))?;
        let field: String = chars[i + 1..end].iter().collect();
        let (name, spec) = field.split_once(':').unwrap_or((&field, ""));
        let (name, conv) = name.split_once('!').unwrap_or((name, ""));
        let v = if name.is_empty() {
            auto += 1;
            a.pos.get(auto - 1).cloned()
        } else if let Ok(n) = name.parse::<usize>() {
            a.pos.get(n).cloned()
        } else {
            a.get(None, name)
        };
        let v = v.ok_or_else(|| {
            err!(
                IndexError,
                "Replacement index {} out of range for positional args tuple",
                auto.saturating_sub(1)
            )
        })?;
        let v = if conv == "r" {
            Obj::str(repr_of(&v))
        } else {
            v
        };
        out.push_str(&format_value(&v, spec)?);
        i = end + 1;
    }
    Ok(out)
}
