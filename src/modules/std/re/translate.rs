//! Python's regular-expression syntax in the `regex` crate's.
//!
//! The translation keeps group numbers and names, and spells out what the
//! two read differently: `\Z`, octal and `\u` escapes, braces that are not
//! repetitions, `[` `&` `~` inside classes, a leading `]` in a class, verbose
//! mode (done here, with Python's rules), ASCII mode, and `$`, which Python
//! also matches before a newline that ends the text.

use crate::error::{Error, Result};
use crate::{bail, err};

use super::{ASCII, DOTALL, IGNORECASE, LOCALE, MULTILINE, UNICODE, VERBOSE};
use crate::python::format::str_repr;

/// A translated pattern.
pub struct Translated {
    /// The pattern with `$` matching before any newline and at the end:
    /// Python's `$` whenever the text has no newline before its last
    /// character.
    pub exact: String,
    /// The pattern with `$` matching only at the end, for texts with a
    /// newline before their last character; None when the pattern has no
    /// such `$`.
    pub end_only: Option<String>,
    /// The flags, with those the pattern set at its start.
    pub flags: i64,
}

/// Translates `pattern` compiled with `flags`.
pub fn translate(pattern: &str, flags: i64) -> Result<Translated> {
    let mut t = Translator {
        source: pattern,
        chars: pattern.chars().collect(),
        i: 0,
        scopes: vec![flags],
        exact: String::new(),
        end_only: String::new(),
        dollar: false,
    };
    t.leading_flags()?;
    t.run()?;
    Ok(Translated {
        flags: t.scopes[0],
        end_only: t.dollar.then_some(t.end_only),
        exact: t.exact,
    })
}

struct Translator<'a> {
    source: &'a str,
    chars: Vec<char>,
    i: usize,
    /// The flags in force, one entry per open group.
    scopes: Vec<i64>,
    exact: String,
    end_only: String,
    dollar: bool,
}

fn flag_bit(c: char) -> Option<i64> {
    Some(match c {
        'a' => ASCII,
        'i' => IGNORECASE,
        'L' => LOCALE,
        'm' => MULTILINE,
        's' => DOTALL,
        'u' => UNICODE,
        'x' => VERBOSE,
        _ => return None,
    })
}

/// A character as the crate reads it literally, in or out of a class.
fn literal(c: char) -> String {
    if c.is_alphanumeric() || c == '_' || !c.is_ascii() {
        c.to_string()
    } else {
        format!("\\x{{{:X}}}", c as u32)
    }
}

fn ascii_class(c: char) -> &'static str {
    match c {
        'd' => "[0-9]",
        'D' => "[^0-9]",
        'w' => "[0-9A-Za-z_]",
        'W' => "[^0-9A-Za-z_]",
        's' => "[\\t\\n\\x0B\\f\\r ]",
        _ => "[^\\t\\n\\x0B\\f\\r ]",
    }
}

impl Translator<'_> {
    fn flags(&self) -> i64 {
        self.scopes.last().copied().unwrap_or(0)
    }

    fn emit(&mut self, s: &str) {
        self.exact.push_str(s);
        self.end_only.push_str(s);
    }

    fn peek(&self, k: usize) -> Option<char> {
        self.chars.get(self.i + k).copied()
    }

    fn refuse(&self, what: &str) -> Error {
        err!(
            NotImplementedError,
            "not supported by shardlab yet: {what} in the regular expression {}",
            str_repr(self.source)
        )
    }

    fn bad(&self, what: &str) -> Error {
        err!(ValueError, "{what} at position {}", self.i)
    }

    /// `(?aiLmsux)` at the very start sets flags for the whole pattern.
    fn leading_flags(&mut self) -> Result<()> {
        while self.peek(0) == Some('(') && self.peek(1) == Some('?') {
            let mut j = 2;
            let mut bits = 0;
            while let Some(b) = self.peek(j).and_then(flag_bit) {
                bits |= b;
                j += 1;
            }
            if j == 2 || self.peek(j) != Some(')') {
                break;
            }
            self.scopes[0] |= bits;
            self.i += j + 1;
        }
        Ok(())
    }

    fn run(&mut self) -> Result<()> {
        while let Some(c) = self.peek(0) {
            let verbose = self.flags() & VERBOSE != 0;
            if verbose && c.is_whitespace() {
                self.i += 1;
                continue;
            }
            if verbose && c == '#' {
                while self.peek(0).is_some_and(|c| c != '\n') {
                    self.i += 1;
                }
                continue;
            }
            match c {
                '\\' => self.escape(false)?,
                '[' => self.class()?,
                '(' => self.group()?,
                ')' => {
                    if self.scopes.len() > 1 {
                        self.scopes.pop();
                    }
                    self.emit(")");
                    self.i += 1;
                }
                '{' => self.brace()?,
                '}' => {
                    self.emit("\\}");
                    self.i += 1;
                }
                '$' => {
                    self.i += 1;
                    if self.flags() & MULTILINE != 0 {
                        self.emit("(?m:$)");
                    } else {
                        self.exact.push_str("(?m:$)");
                        self.end_only.push_str("\\z");
                        self.dollar = true;
                    }
                }
                '^' => {
                    self.i += 1;
                    let m = self.flags() & MULTILINE != 0;
                    self.emit(if m { "(?m:^)" } else { "^" });
                }
                '.' => {
                    self.i += 1;
                    let s = self.flags() & DOTALL != 0;
                    self.emit(if s { "(?s:.)" } else { "." });
                }
                '*' | '+' | '?' => {
                    self.i += 1;
                    self.emit(&c.to_string());
                    self.possessive()?;
                }
                _ => {
                    self.i += 1;
                    self.emit(&c.to_string());
                }
            }
        }
        Ok(())
    }

    /// Python 3.11's possessive quantifiers (`a*+`) have no equivalent.
    fn possessive(&self) -> Result<()> {
        if self.peek(0) == Some('+') {
            return Err(self.refuse("a possessive quantifier"));
        }
        Ok(())
    }

    /// `{m,n}` and its forms, or a literal brace.
    fn brace(&mut self) -> Result<()> {
        let digits = |t: &Self, mut j: usize| {
            let start = j;
            while t.peek(j).is_some_and(|c| c.is_ascii_digit()) {
                j += 1;
            }
            (t.chars[t.i + start..t.i + j].iter().collect::<String>(), j)
        };
        let (lo, mut j) = digits(self, 1);
        let comma = self.peek(j) == Some(',');
        let mut hi = lo.clone();
        if comma {
            (hi, j) = digits(self, j + 1);
        }
        if self.peek(j) != Some('}') || (lo.is_empty() && !comma) {
            self.emit("\\{");
            self.i += 1;
            return Ok(());
        }
        let lo = if lo.is_empty() { "0".to_string() } else { lo };
        let q = if comma {
            format!("{{{lo},{hi}}}")
        } else {
            format!("{{{lo}}}")
        };
        self.emit(&q);
        self.i += j + 1;
        self.possessive()
    }

    /// `(` and the `(?...)` extensions.
    fn group(&mut self) -> Result<()> {
        let flags = self.flags();
        if self.peek(1) != Some('?') {
            self.scopes.push(flags);
            self.emit("(");
            self.i += 1;
            return Ok(());
        }
        match self.peek(2) {
            Some(':') => {
                self.scopes.push(flags);
                self.emit("(?:");
                self.i += 3;
            }
            Some('P') => match self.peek(3) {
                Some('<') => {
                    let close = self.chars[self.i..]
                        .iter()
                        .position(|&c| c == '>')
                        .ok_or_else(|| self.bad("missing >, unterminated name"))?;
                    let name: String = self.chars[self.i + 4..self.i + close].iter().collect();
                    self.scopes.push(flags);
                    self.emit(&format!("(?P<{name}>"));
                    self.i += close + 1;
                }
                Some('=') => return Err(self.refuse("a backreference (?P=...)")),
                _ => return Err(self.bad("unknown extension ?P")),
            },
            Some('=' | '!') => return Err(self.refuse("a lookahead assertion")),
            Some('<') => return Err(self.refuse("a lookbehind assertion")),
            Some('>') => return Err(self.refuse("an atomic group")),
            Some('(') => return Err(self.refuse("a conditional group")),
            Some('#') => {
                while self.peek(0).is_some_and(|c| c != ')') {
                    self.i += 1;
                }
                self.i += 1;
            }
            _ => self.scoped_flags()?,
        }
        Ok(())
    }

    /// `(?i:...)`, `(?-i:...)`: flags for one group.
    fn scoped_flags(&mut self) -> Result<()> {
        let mut j = 2;
        let (mut on, mut off, mut neg) = (0, 0, false);
        let (mut crate_on, mut crate_off) = (String::new(), String::new());
        loop {
            let Some(c) = self.peek(j) else {
                return Err(self.bad("missing -, : or )"));
            };
            j += 1;
            match (c, flag_bit(c)) {
                ('-', _) if !neg => neg = true,
                (':', _) => break,
                (')', _) => return Err(self.bad("global flags not at the start of the expression")),
                (c, Some(b)) => {
                    let mine = if neg { &mut off } else { &mut on };
                    *mine |= b;
                    if c == 'i' || c == 's' {
                        if neg { &mut crate_off } else { &mut crate_on }.push(c);
                    }
                }
                _ => return Err(self.bad("unknown extension")),
            }
        }
        let flags = (self.flags() | on) & !off;
        self.scopes.push(flags);
        let spec = if crate_off.is_empty() {
            crate_on
        } else {
            format!("{crate_on}-{crate_off}")
        };
        self.emit(&format!("(?{spec}:"));
        self.i += j;
        Ok(())
    }

    /// `[...]`.
    fn class(&mut self) -> Result<()> {
        self.emit("[");
        self.i += 1;
        if self.peek(0) == Some('^') {
            self.emit("^");
            self.i += 1;
        }
        if self.peek(0) == Some(']') {
            self.emit("\\]");
            self.i += 1;
        }
        loop {
            let Some(c) = self.peek(0) else {
                return Err(self.bad("unterminated character set"));
            };
            match c {
                ']' => {
                    self.emit("]");
                    self.i += 1;
                    return Ok(());
                }
                '\\' => self.escape(true)?,
                '[' | '&' | '~' => {
                    self.emit(&literal(c));
                    self.i += 1;
                }
                '-' if self.i > 0 && self.chars[self.i - 1] == '-' => {
                    self.emit(&literal(c));
                    self.i += 1;
                }
                _ => {
                    self.emit(&c.to_string());
                    self.i += 1;
                }
            }
        }
    }

    /// Reads `n` hex digits after the escape letter.
    fn hex(&mut self, n: usize) -> Result<char> {
        let s: String = self
            .chars
            .get(self.i..self.i + n)
            .unwrap_or(&[])
            .iter()
            .collect();
        let v = u32::from_str_radix(&s, 16)
            .ok()
            .filter(|_| s.len() == n)
            .ok_or_else(|| self.bad("incomplete escape"))?;
        self.i += n;
        char::from_u32(v).ok_or_else(|| self.bad("bad escape"))
    }

    /// Up to `n` more octal digits after `first`.
    fn octal(&mut self, first: u32, n: usize) -> Result<char> {
        let mut v = first;
        for _ in 0..n {
            match self.peek(0).and_then(|c| c.to_digit(8)) {
                Some(d) => {
                    v = v * 8 + d;
                    self.i += 1;
                }
                None => break,
            }
        }
        char::from_u32(v).ok_or_else(|| self.bad("octal escape value outside of range 0-0o377"))
    }

    /// A backslash escape, in or out of a class.
    fn escape(&mut self, in_class: bool) -> Result<()> {
        let Some(e) = self.peek(1) else {
            bail!(
                ValueError,
                "bad escape (end of pattern) at position {}",
                self.i
            );
        };
        self.i += 2;
        let ascii = self.flags() & ASCII != 0;
        let out = match e {
            'd' | 'D' | 'w' | 'W' | 's' | 'S' if ascii => ascii_class(e).to_string(),
            'd' | 'D' | 'w' | 'W' | 's' | 'S' => format!("\\{e}"),
            'b' if in_class => literal('\u{8}'),
            'b' | 'B' if ascii => format!("(?-u:\\{e})"),
            'b' | 'B' | 'A' => format!("\\{e}"),
            'Z' => "\\z".into(),
            'n' => literal('\n'),
            't' => literal('\t'),
            'r' => literal('\r'),
            'f' => literal('\u{c}'),
            'v' => literal('\u{b}'),
            'a' => literal('\u{7}'),
            'x' => literal(self.hex(2)?),
            'u' => literal(self.hex(4)?),
            'U' => literal(self.hex(8)?),
            '0' => literal(self.octal(0, 2)?),
            '1'..='7'
                if self.peek(0).is_some_and(|c| c.is_digit(8))
                    && self.peek(1).is_some_and(|c| c.is_digit(8)) =>
            {
                literal(self.octal(e.to_digit(8).unwrap_or(0), 2)?)
            }
            '1'..='9' => return Err(self.refuse("a backreference")),
            'N' => return Err(self.refuse("a \\N{...} escape")),
            c if c.is_ascii_alphabetic() => {
                self.i -= 2;
                return Err(self.bad(&format!("bad escape \\{c}")));
            }
            c => literal(c),
        };
        self.emit(&out);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exact(p: &str) -> String {
        translate(p, 0)
            .map(|t| t.exact)
            .unwrap_or_else(|e| e.message)
    }

    #[test]
    fn python_spellings_become_the_crates() {
        assert_eq!(exact(r"a\Z"), r"a\z");
        assert_eq!(exact(r"[]a[]"), r"[\]a\x{5B}]");
        assert_eq!(exact(r"{x}a{2,}b{,3}"), r"\{x\}a{2,}b{0,3}");
        assert_eq!(exact(r"\<\-"), r"\x{3C}\x{2D}");
        assert_eq!(exact("(?x) a b # c\n d"), "abd");
        assert_eq!(exact(r"(?P<y>\d+)"), r"(?P<y>\d+)");
    }

    #[test]
    fn dollar_has_two_readings() {
        let t = translate("a$", 0).ok();
        assert_eq!(t.as_ref().map(|t| t.exact.as_str()), Some("a(?m:$)"));
        assert_eq!(t.and_then(|t| t.end_only), Some(r"a\z".to_string()));
        assert!(translate("a$", MULTILINE).is_ok_and(|t| t.end_only.is_none()));
    }

    #[test]
    fn what_the_crate_cannot_run_is_refused() {
        for p in [r"(a)\1", "(?=a)", "(?<=a)b", "(?P<x>a)(?P=x)", "a*+"] {
            let e = translate(p, 0).err().map(|e| e.kind);
            assert_eq!(e, Some(crate::error::ErrorKind::NotImplementedError), "{p}");
        }
    }
}
