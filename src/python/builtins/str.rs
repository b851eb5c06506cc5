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

/// `s.strip(chars)`, `lstrip` or `rstrip`: whitespace, or any of `chars`.
fn strip(s: &str, name: &str, a: &Args) -> Result<Obj> {
    let chars = match a.opt(Some(0), "chars") {
        None | Some(Obj::None) => None,
        Some(Obj::Str(c)) => Some(c.chars().collect::<Vec<char>>()),
        Some(_) => return Err(err!(TypeError, "{name} arg must be None or str")),
    };
    let drop = |c: char| match &chars {
        None => c.is_whitespace(),
        Some(set) => set.contains(&c),
    };
    Ok(Obj::str(match name {
        "strip" => s.trim_matches(drop),
        "lstrip" => s.trim_start_matches(drop),
        _ => s.trim_end_matches(drop),
    }))
}

/// `s.split(sep, maxsplit)` or `s.rsplit(...)` (`right`), as Python splits:
/// without `sep` on runs of whitespace, ignoring it at the ends; at most
/// `maxsplit` splits when it is not negative.
fn split(s: &str, right: bool, a: &Args) -> Result<Obj> {
    let max = match a.opt(Some(1), "maxsplit") {
        Some(m) => super::to_int(&m)?,
        None => -1,
    };
    let limit = usize::try_from(max).ok();
    let parts: Vec<String> = match a.opt(Some(0), "sep") {
        None | Some(Obj::None) => split_whitespace(s, right, limit),
        Some(sep) => {
            let sep = str_of(&sep);
            if sep.is_empty() {
                return Err(err!(ValueError, "empty separator"));
            }
            let n = limit.map_or(usize::MAX, |m| m.saturating_add(1));
            let mut v: Vec<String> = match right {
                true => s.rsplitn(n, &*sep).map(String::from).collect(),
                false => s.splitn(n, &*sep).map(String::from).collect(),
            };
            if right {
                v.reverse();
            }
            v
        }
    };
    Ok(Obj::list(parts.into_iter().map(|p| Obj::str(&p)).collect()))
}

/// Splitting on runs of whitespace, at most `limit` times: the part left
/// over keeps its whitespace except where the splits stopped.
fn split_whitespace(s: &str, right: bool, limit: Option<usize>) -> Vec<String> {
    let mut parts: Vec<String> = Vec::new();
    let mut rest: &str = if right { s.trim_end() } else { s.trim_start() };
    while !rest.is_empty() {
        if limit.is_some_and(|m| parts.len() >= m) {
            parts.push(rest.to_string());
            break;
        }
        let found = match right {
            true => rest.rfind(char::is_whitespace),
            false => rest.find(char::is_whitespace),
        };
        let Some(at) = found else {
            parts.push(rest.to_string());
            break;
        };
        let ws = rest[at..].chars().next().map_or(1, char::len_utf8);
        if right {
            parts.push(rest[at + ws..].to_string());
            rest = rest[..at].trim_end();
        } else {
            parts.push(rest[..at].to_string());
            rest = rest[at + ws..].trim_start();
        }
    }
    if right {
        parts.reverse();
    }
    parts
}

/// `s.splitlines(keepends)`: at every line boundary Python knows (`\n`,
/// `\r\n`, `\r`, `\v`, `\f`, `\x1c`-`\x1e`, `\x85`, `\u2028`, `\u2029`).
fn splitlines(s: &str, keep: bool) -> Vec<Obj> {
    let is_break = |c: char| {
        matches!(
            c,
            '\n' | '\r'
                | '\x0b'
                | '\x0c'
                | '\x1c'
                | '\x1d'
                | '\x1e'
                | '\u{85}'
                | '\u{2028}'
                | '\u{2029}'
        )
    };
    let mut lines = Vec::new();
    let mut start = 0;
    let mut chars = s.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if !is_break(c) {
            continue;
        }
        let mut end = i + c.len_utf8();
        if c == '\r' && chars.peek().is_some_and(|&(_, d)| d == '\n') {
            chars.next();
            end += 1;
        }
        lines.push(Obj::str(if keep { &s[start..end] } else { &s[start..i] }));
        start = end;
    }
    if start < s.len() {
        lines.push(Obj::str(&s[start..]));
    }
    lines
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
            bound(recv, name, move |_, r, a| strip(&str_of(r), &n, &a))
        }
        (Obj::Str(_), "split" | "rsplit") => {
            let right = name == "rsplit";
            bound(recv, name, move |_, r, a| split(&str_of(r), right, &a))
        }
        (Obj::Str(_), "splitlines") => bound(recv, name, |i, r, a| {
            let keep = match a.opt(Some(0), "keepends") {
                Some(k) => i.truth(&k, "splitlines")?,
                None => false,
            };
            Ok(Obj::list(splitlines(&str_of(r), keep)))
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
