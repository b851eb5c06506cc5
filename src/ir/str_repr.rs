//! `repr` and `ascii` of a str as CPython writes them: single quotes unless
//! the text holds a single quote and no double one, backslash escapes for
//! the backslash, the chosen quote, `\t`, `\n`, `\r`, and for every
//! character Python does not print as itself (`\x00`, `\x7f`, `\xa0`,
//! `\u2028`, `\U000e0001`); `ascii` escapes every non-ASCII character of a
//! repr. The jaxpr printer writes string parameters with it too, which is
//! why it sits in the engine's `ir` rather than the front end.

use super::unprintable::is_printable;

/// Python's `repr(s)`.
pub fn str_repr(s: &str) -> String {
    quoted(s)
}

/// Python's `ascii(x)` given `repr(x)`: every non-ASCII character escaped.
pub fn to_ascii(repr: &str) -> String {
    let mut out = String::with_capacity(repr.len());
    for c in repr.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            out.push_str(&escape(c));
        }
    }
    out
}

fn quoted(s: &str) -> String {
    let q = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(q);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c == q => {
                out.push('\\');
                out.push(c);
            }
            ' '..='~' => out.push(c),
            c if is_printable(c) => out.push(c),
            c => out.push_str(&escape(c)),
        }
    }
    out.push(q);
    out
}

/// The shortest of Python's escapes that holds `c`.
fn escape(c: char) -> String {
    let n = c as u32;
    if n < 0x100 {
        format!("\\x{n:02x}")
    } else if n < 0x10000 {
        format!("\\u{n:04x}")
    } else {
        format!("\\U{n:08x}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_what_python_does_not_print() {
        assert_eq!(str_repr("a\u{0}b\u{7f}"), "'a\\x00b\\x7f'");
        assert_eq!(str_repr("\u{2028}é"), "'\\u2028é'");
        assert_eq!(str_repr("it's"), "\"it's\"");
        assert_eq!(str_repr("'\""), "'\\'\"'");
        assert_eq!(to_ascii(&str_repr("é\u{1F600}")), "'\\xe9\\U0001f600'");
    }
}
