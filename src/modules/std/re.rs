//! `re`: regular expressions on the `regex` crate.
//!
//! A Python pattern is translated to the crate's syntax (`\Z`, escapes,
//! literal braces and brackets, verbose mode, `$` before a final newline)
//! and compiled once per (pattern, flags). What the crate cannot run
//! (backreferences, lookaround, atomic groups, possessive quantifiers) is
//! refused with `NotImplementedError` naming the pattern. Positions are
//! counted in characters, as Python counts them.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use regex::{Regex, RegexBuilder};

use crate::error::Result;
use crate::{bail, err};

use crate::modules::Builder;
use crate::python::builtins::to_int;
use crate::python::format::{repr_of, str_of, str_repr};
use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::value::{Args, Dict, Obj};

mod translate;

const IGNORECASE: i64 = 2;
const LOCALE: i64 = 4;
const MULTILINE: i64 = 8;
const DOTALL: i64 = 16;
const UNICODE: i64 = 32;
const VERBOSE: i64 = 64;
const ASCII: i64 = 256;

/// Flag names as `repr` of a compiled pattern lists them.
const FLAG_NAMES: [(i64, &str); 6] = [
    (IGNORECASE, "re.IGNORECASE"),
    (LOCALE, "re.LOCALE"),
    (MULTILINE, "re.MULTILINE"),
    (DOTALL, "re.DOTALL"),
    (VERBOSE, "re.VERBOSE"),
    (ASCII, "re.ASCII"),
];

/// The `re` module.
pub fn module() -> Obj {
    let mut b = Builder::new("re");
    for (names, v) in [
        (["I", "IGNORECASE"], IGNORECASE),
        (["L", "LOCALE"], LOCALE),
        (["M", "MULTILINE"], MULTILINE),
        (["S", "DOTALL"], DOTALL),
        (["U", "UNICODE"], UNICODE),
        (["X", "VERBOSE"], VERBOSE),
        (["A", "ASCII"], ASCII),
    ] {
        for n in names {
            b.attr(n, Obj::Int(v));
        }
    }
    b.attr("NOFLAG", Obj::Int(0));
    b.func("compile", |_, a| {
        let p = pattern_arg(&a, 0, Some(1))?;
        Ok(Obj::Lib(p))
    });
    for (name, mode) in [
        ("search", Mode::Search),
        ("match", Mode::Match),
        ("fullmatch", Mode::Full),
    ] {
        b.func(name, move |_, a| {
            let p = pattern_arg(&a, 0, Some(2))?;
            let s = string_arg(&a, 1)?;
            Ok(p.find(&p, &s, 0, None, mode))
        });
    }
    b.func("sub", |i, a| module_sub(i, a, false));
    b.func("subn", |i, a| module_sub(i, a, true));
    b.func("split", |_, a| {
        let p = pattern_arg(&a, 0, Some(3))?;
        let s = string_arg(&a, 1)?;
        let max = int_arg(&a, 2, "maxsplit")?;
        Ok(p.split(&s, max))
    });
    b.func("findall", |_, a| {
        let p = pattern_arg(&a, 0, Some(2))?;
        Ok(p.findall(&string_arg(&a, 1)?, 0, None))
    });
    b.func("finditer", |_, a| {
        let p = pattern_arg(&a, 0, Some(2))?;
        let s = string_arg(&a, 1)?;
        Ok(p.finditer(&p, &s, 0, None))
    });
    b.func("escape", |_, a| {
        Ok(Obj::str(escape(&str_of(&a.req(
            Some(0),
            "pattern",
            "escape",
        )?))))
    });
    b.func("purge", |_, _| {
        CACHE.with(|c| c.borrow_mut().clear());
        Ok(Obj::None)
    });
    b.build()
}

fn module_sub(interp: &mut Interp, a: Args, with_count: bool) -> Result<Obj> {
    let p = pattern_arg(&a, 0, Some(4))?;
    let repl = a.req(Some(1), "repl", "sub")?;
    let s = string_arg(&a, 2)?;
    let count = int_arg(&a, 3, "count")?;
    p.sub(interp, &p, &repl, &s, count, with_count)
}

/// `re.escape`: a backslash before every character special in a pattern.
fn escape(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if "()[]{}?*+-|^$\\.&~# \t\n\r\u{b}\u{c}".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn int_arg(a: &Args, index: usize, name: &str) -> Result<usize> {
    match a.get(Some(index), name) {
        Some(v) => Ok(to_int(&v)?.max(0) as usize),
        None => Ok(0),
    }
}

fn string_arg(a: &Args, index: usize) -> Result<Rc<str>> {
    match a.get(Some(index), "string") {
        Some(Obj::Str(s)) => Ok(s),
        Some(other) => bail!(
            TypeError,
            "expected string or bytes-like object, got '{}'",
            other.type_name()
        ),
        None => bail!(TypeError, "missing required argument: 'string'"),
    }
}

/// The pattern argument (a string or a compiled pattern) with its flags.
fn pattern_arg(a: &Args, index: usize, flags_at: Option<usize>) -> Result<Rc<Pattern>> {
    let flags = match a.get(flags_at, "flags") {
        Some(f) => to_int(&f)?,
        None => 0,
    };
    match a.get(Some(index), "pattern") {
        Some(Obj::Str(s)) => compile(&s, flags),
        Some(o @ Obj::Lib(_)) => match o.downcast_rc::<Pattern>() {
            Some(p) if flags == 0 => Ok(p),
            Some(_) => bail!(
                ValueError,
                "cannot process flags argument with a compiled pattern"
            ),
            None => bail!(
                TypeError,
                "first argument must be string or compiled pattern"
            ),
        },
        _ => bail!(
            TypeError,
            "first argument must be string or compiled pattern"
        ),
    }
}

thread_local! {
    /// Compiled patterns, as CPython's `re` keeps them (at most 512, then
    /// emptied). Kept across runs on purpose: a pattern holds no Python
    /// object, and compiling is the costly part of a match.
    static CACHE: RefCell<HashMap<(String, i64), Rc<Pattern>>> = RefCell::new(HashMap::new());
}

/// Compiles (or finds in the cache) `pattern` with `flags`.
fn compile(pattern: &str, flags: i64) -> Result<Rc<Pattern>> {
    let key = (pattern.to_string(), flags);
    if let Some(p) = CACHE.with(|c| c.borrow().get(&key).cloned()) {
        return Ok(p);
    }
    let p = Rc::new(Pattern::new(pattern, flags)?);
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= 512 {
            c.clear();
        }
        c.insert(key, p.clone());
    });
    Ok(p)
}

/// The crate regexes for one way of reading `$`.
struct Compiled {
    /// The pattern as it is.
    search: Regex,
    /// The pattern followed by the end of the text (for `fullmatch`).
    full: Regex,
}

fn build(src: &str, flags: i64, python: &str) -> Result<Compiled> {
    let make = |s: &str| {
        RegexBuilder::new(s)
            .case_insensitive(flags & IGNORECASE != 0)
            .build()
            .map_err(|e| {
                let why = e.to_string();
                let last = why.lines().last().unwrap_or("").trim().to_string();
                err!(
                    NotImplementedError,
                    "not supported by shardlab yet: the regular expression {} ({last})",
                    str_repr(python)
                )
            })
    };
    Ok(Compiled {
        search: make(src)?,
        full: make(&format!("(?:{src})\\z"))?,
    })
}

/// `re.Pattern`: a compiled regular expression.
pub struct Pattern {
    source: String,
    flags: i64,
    /// `$` as Python reads it in a text whose only newline, if any, ends it.
    exact: Compiled,
    /// `$` as the end of the text, for texts with a newline before their
    /// end (absent when the pattern has no `$` outside multi-line mode).
    end_only: Option<Compiled>,
    groups: usize,
    names: Vec<(String, usize)>,
}

/// How a search is anchored.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Search,
    Match,
    Full,
}

/// Byte spans of the groups of one match (None: the group did not take part).
type Spans = Vec<Option<(usize, usize)>>;

/// The byte offset of character `index` of `s` (clamped to its length).
fn byte_at(s: &str, index: usize) -> usize {
    s.char_indices()
        .nth(index)
        .map(|(b, _)| b)
        .unwrap_or(s.len())
}

/// The character index of byte offset `b` of `s`.
fn char_at(s: &str, b: usize) -> usize {
    s[..b].chars().count()
}

impl Pattern {
    fn new(source: &str, flags: i64) -> Result<Pattern> {
        let t = translate::translate(source, flags)?;
        let exact = build(&t.exact, t.flags, source)?;
        let end_only = match &t.end_only {
            Some(s) => Some(build(s, t.flags, source)?),
            None => None,
        };
        let groups = exact.search.captures_len() - 1;
        let names = exact
            .search
            .capture_names()
            .enumerate()
            .filter_map(|(i, n)| n.map(|n| (n.to_string(), i)))
            .collect();
        Ok(Pattern {
            source: source.to_string(),
            flags: t.flags,
            exact,
            end_only,
            groups,
            names,
        })
    }

    /// One match starting at or after byte `at` of `hay`.
    fn spans_at(&self, hay: &str, at: usize, mode: Mode) -> Option<Spans> {
        // A newline before the last character (which may be several bytes).
        let mut before_last = hay.chars();
        before_last.next_back();
        let inner_newline = before_last.as_str().contains('\n');
        let Some(end_only) = self.end_only.as_ref().filter(|_| inner_newline) else {
            return self.captures(&self.exact, hay, at, mode);
        };
        let found = self.captures(end_only, hay, at, mode);
        // Python's `$` also matches before a newline that ends the text: a
        // match there is a match in the text without that newline.
        let Some(short) = hay
            .strip_suffix('\n')
            .filter(|s| mode != Mode::Full && at <= s.len())
        else {
            return found;
        };
        match (found, self.captures(end_only, short, at, mode)) {
            (Some(a), Some(b)) => {
                let key = |s: &Spans| s[0].map(|(st, en)| (st, std::cmp::Reverse(en)));
                Some(if key(&b) < key(&a) { b } else { a })
            }
            (a, b) => a.or(b),
        }
    }

    fn captures(&self, c: &Compiled, hay: &str, at: usize, mode: Mode) -> Option<Spans> {
        let re = if mode == Mode::Full {
            &c.full
        } else {
            &c.search
        };
        let caps = re.captures_at(hay, at)?;
        let whole = caps.get(0)?;
        if mode != Mode::Search && whole.start() != at {
            return None;
        }
        Some(
            (0..=self.groups)
                .map(|g| caps.get(g).map(|m| (m.start(), m.end())))
                .collect(),
        )
    }

    /// The part of `s` a search with `pos`/`endpos` (in characters) sees.
    fn window(s: &str, pos: usize, endpos: Option<usize>) -> (&str, usize) {
        let end = endpos.map(|e| byte_at(s, e)).unwrap_or(s.len());
        let hay = &s[..end];
        (hay, byte_at(hay, pos))
    }

    /// `search`, `match` or `fullmatch`: a Match or None.
    fn find(
        &self,
        me: &Rc<Pattern>,
        s: &Rc<str>,
        pos: usize,
        endpos: Option<usize>,
        mode: Mode,
    ) -> Obj {
        let (hay, at) = Pattern::window(s, pos, endpos);
        match self.spans_at(hay, at, mode) {
            Some(spans) => Obj::lib(Match {
                string: s.clone(),
                spans,
                pattern: me.clone(),
                pos,
                endpos: endpos.unwrap_or_else(|| s.chars().count()),
            }),
            None => Obj::None,
        }
    }

    /// Every match in `hay` from byte `at`, as Python finds them: an empty
    /// match moves the search on by one character.
    fn all_spans(&self, hay: &str, mut at: usize, limit: usize) -> Vec<Spans> {
        let mut out = vec![];
        while at <= hay.len() && (limit == 0 || out.len() < limit) {
            let Some(spans) = self.spans_at(hay, at, Mode::Search) else {
                break;
            };
            let (st, en) = spans[0].unwrap_or((at, at));
            out.push(spans);
            if st == en {
                match hay[en..].chars().next() {
                    Some(c) => at = en + c.len_utf8(),
                    None => break,
                }
            } else {
                at = en;
            }
        }
        out
    }

    fn group_str(hay: &str, span: Option<(usize, usize)>) -> Obj {
        match span {
            Some((a, b)) => Obj::str(&hay[a..b]),
            None => Obj::None,
        }
    }

    fn findall(&self, s: &str, pos: usize, endpos: Option<usize>) -> Obj {
        let (hay, at) = Pattern::window(s, pos, endpos);
        let text = |sp: Option<(usize, usize)>| Obj::str(sp.map(|(a, b)| &hay[a..b]).unwrap_or(""));
        let items = self
            .all_spans(hay, at, 0)
            .into_iter()
            .map(|spans| match self.groups {
                0 => text(spans[0]),
                1 => text(spans[1]),
                _ => Obj::tuple(spans[1..].iter().map(|sp| text(*sp)).collect()),
            })
            .collect();
        Obj::list(items)
    }

    fn finditer(&self, me: &Rc<Pattern>, s: &Rc<str>, pos: usize, endpos: Option<usize>) -> Obj {
        let (hay, at) = Pattern::window(s, pos, endpos);
        let end = endpos.unwrap_or_else(|| s.chars().count());
        let items = self
            .all_spans(hay, at, 0)
            .into_iter()
            .map(|spans| {
                Obj::lib(Match {
                    string: s.clone(),
                    spans,
                    pattern: me.clone(),
                    pos,
                    endpos: end,
                })
            })
            .collect();
        Obj::list(items)
    }

    fn split(&self, s: &str, maxsplit: usize) -> Obj {
        let mut out = vec![];
        let mut last = 0;
        for spans in self.all_spans(s, 0, maxsplit) {
            let (st, en) = spans[0].unwrap_or((last, last));
            out.push(Obj::str(&s[last..st]));
            out.extend(spans[1..].iter().map(|sp| Pattern::group_str(s, *sp)));
            last = en;
        }
        out.push(Obj::str(&s[last..]));
        Obj::list(out)
    }

    /// `sub`/`subn` with a template string or a function of the match.
    fn sub(
        &self,
        interp: &mut Interp,
        me: &Rc<Pattern>,
        repl: &Obj,
        s: &Rc<str>,
        count: usize,
        with_count: bool,
    ) -> Result<Obj> {
        let template = match repl {
            Obj::Str(t) => Some(parse_template(t, self)?),
            _ => None,
        };
        let mut out = String::new();
        let mut last = 0;
        let found = self.all_spans(s, 0, count);
        let n = found.len();
        for spans in found {
            let (st, en) = spans[0].unwrap_or((last, last));
            out.push_str(&s[last..st]);
            match &template {
                Some(t) => expand(t, s, &spans, &mut out),
                None => {
                    let m = Obj::lib(Match {
                        string: s.clone(),
                        spans,
                        pattern: me.clone(),
                        pos: 0,
                        endpos: s.chars().count(),
                    });
                    match interp.call(repl, Args::new(vec![m]))? {
                        Obj::Str(r) => out.push_str(&r),
                        other => bail!(
                            TypeError,
                            "expected str instance, {} found",
                            other.type_name()
                        ),
                    }
                }
            }
            last = en;
        }
        out.push_str(&s[last..]);
        Ok(if with_count {
            Obj::tuple(vec![Obj::str(out), Obj::Int(n as i64)])
        } else {
            Obj::str(out)
        })
    }

    /// The index of a group given by number or name.
    fn group_index(&self, g: &Obj) -> Result<usize> {
        match g {
            Obj::Str(name) => self
                .names
                .iter()
                .find(|(n, _)| **n == **name)
                .map(|(_, i)| *i)
                .ok_or_else(|| err!(IndexError, "no such group")),
            other => match to_int(other) {
                Ok(i) if i >= 0 && (i as usize) <= self.groups => Ok(i as usize),
                _ => bail!(IndexError, "no such group"),
            },
        }
    }

    fn repr(&self) -> String {
        let names: Vec<&str> = FLAG_NAMES
            .iter()
            .filter(|(bit, _)| self.flags & bit != 0)
            .map(|(_, n)| *n)
            .collect();
        if names.is_empty() {
            format!("re.compile({})", str_repr(&self.source))
        } else {
            format!(
                "re.compile({}, {})",
                str_repr(&self.source),
                names.join("|")
            )
        }
    }
}

/// A piece of a replacement template.
enum Piece {
    Text(String),
    Group(usize),
}

/// Parses a `sub` template: `\1`, `\g<1>`, `\g<name>` and the usual escapes.
fn parse_template(t: &str, p: &Pattern) -> Result<Vec<Piece>> {
    let mut out = vec![];
    let mut text = String::new();
    let chars: Vec<char> = t.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        if c != '\\' {
            text.push(c);
            continue;
        }
        let Some(&e) = chars.get(i) else {
            bail!(
                ValueError,
                "bad escape (end of pattern) at position {}",
                i - 1
            );
        };
        i += 1;
        let group = match e {
            'g' => {
                let close = chars[i..].iter().position(|&c| c == '>');
                let (Some('<'), Some(close)) = (chars.get(i), close) else {
                    bail!(ValueError, "missing < at position {}", i);
                };
                let name: String = chars[i + 1..i + close].iter().collect();
                i += close + 1;
                let g = match name.parse::<i64>() {
                    Ok(n) => Obj::Int(n),
                    Err(_) => Obj::str(&name),
                };
                Some(p.group_index(&g).map_err(|_| match g {
                    Obj::Int(n) => err!(IndexError, "invalid group reference {n}"),
                    _ => err!(IndexError, "unknown group name '{name}'"),
                })?)
            }
            '1'..='9' => {
                let mut n = e.to_digit(10).unwrap_or(0) as usize;
                if let Some(d) = chars.get(i).and_then(|c| c.to_digit(10)) {
                    n = n * 10 + d as usize;
                    i += 1;
                }
                if n > p.groups {
                    bail!(IndexError, "invalid group reference {n}");
                }
                Some(n)
            }
            _ => {
                text.push_str(&template_escape(e)?);
                None
            }
        };
        if let Some(g) = group {
            out.push(Piece::Text(std::mem::take(&mut text)));
            out.push(Piece::Group(g));
        }
    }
    out.push(Piece::Text(text));
    Ok(out)
}

fn template_escape(e: char) -> Result<String> {
    Ok(match e {
        'n' => "\n".into(),
        't' => "\t".into(),
        'r' => "\r".into(),
        'f' => "\u{c}".into(),
        'v' => "\u{b}".into(),
        'a' => "\u{7}".into(),
        'b' => "\u{8}".into(),
        '\\' => "\\".into(),
        c if c.is_ascii_alphanumeric() => bail!(ValueError, "bad escape \\{c}"),
        c => format!("\\{c}"),
    })
}

fn expand(t: &[Piece], s: &str, spans: &Spans, out: &mut String) {
    for piece in t {
        match piece {
            Piece::Text(x) => out.push_str(x),
            Piece::Group(g) => {
                if let Some(Some((a, b))) = spans.get(*g) {
                    out.push_str(&s[*a..*b]);
                }
            }
        }
    }
}

fn pos_args(a: &Args) -> Result<(usize, Option<usize>)> {
    let pos = match a.get(Some(1), "pos") {
        Some(p) => to_int(&p)?.max(0) as usize,
        None => 0,
    };
    let end = match a.opt(Some(2), "endpos") {
        Some(e) => Some(to_int(&e)?.max(0) as usize),
        None => None,
    };
    Ok((pos, end))
}

impl Object for Pattern {
    fn type_name(&self) -> String {
        "Pattern".into()
    }

    fn getattr(&self, _: &mut Interp, this: &Obj, name: &str) -> Result<Option<Obj>> {
        Ok(Some(match name {
            "pattern" => Obj::str(&self.source),
            "flags" => Obj::Int(if self.flags & ASCII != 0 {
                self.flags
            } else {
                self.flags | UNICODE
            }),
            "groups" => Obj::Int(self.groups as i64),
            "groupindex" => {
                let d: Dict = self
                    .names
                    .iter()
                    .map(|(n, i)| (Obj::str(n), Obj::Int(*i as i64)))
                    .collect();
                Obj::Dict(Rc::new(RefCell::new(d)))
            }
            _ => match pattern_method(this, name) {
                Some(m) => m,
                None => return Ok(None),
            },
        }))
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        Some(self.repr())
    }

    fn eq(&self, _: &Obj, other: &Obj) -> Option<bool> {
        Some(
            other
                .downcast::<Pattern>()
                .is_some_and(|o| o.source == self.source && o.flags == self.flags),
        )
    }
}

/// A method of a compiled pattern, bound to it.
fn pattern_method(this: &Obj, name: &str) -> Option<Obj> {
    let me = this.downcast_rc::<Pattern>()?;
    let full = format!("Pattern.{name}");
    Some(match name {
        "search" | "match" | "fullmatch" => {
            let mode = match name {
                "search" => Mode::Search,
                "match" => Mode::Match,
                _ => Mode::Full,
            };
            Obj::native(full, move |_, a| {
                let s = string_arg(&a, 0)?;
                let (pos, end) = pos_args(&a)?;
                Ok(me.find(&me, &s, pos, end, mode))
            })
        }
        "findall" => Obj::native(full, move |_, a| {
            let (pos, end) = pos_args(&a)?;
            Ok(me.findall(&string_arg(&a, 0)?, pos, end))
        }),
        "finditer" => Obj::native(full, move |_, a| {
            let (pos, end) = pos_args(&a)?;
            Ok(me.finditer(&me, &string_arg(&a, 0)?, pos, end))
        }),
        "split" => Obj::native(full, move |_, a| {
            Ok(me.split(&string_arg(&a, 0)?, int_arg(&a, 1, "maxsplit")?))
        }),
        "sub" | "subn" => {
            let with_count = name == "subn";
            Obj::native(full, move |i, a| {
                let repl = a.req(Some(0), "repl", "sub")?;
                let s = string_arg(&a, 1)?;
                me.sub(i, &me, &repl, &s, int_arg(&a, 2, "count")?, with_count)
            })
        }
        _ => return None,
    })
}

/// `re.Match`: one match, with its groups.
pub struct Match {
    string: Rc<str>,
    spans: Spans,
    pattern: Rc<Pattern>,
    pos: usize,
    endpos: usize,
}

impl Match {
    fn group(&self, g: &Obj) -> Result<Obj> {
        let i = self.pattern.group_index(g)?;
        Ok(Pattern::group_str(&self.string, self.spans[i]))
    }

    /// The character span of group `g`, (-1, -1) when it did not take part.
    fn span(&self, g: Option<&Obj>) -> Result<(i64, i64)> {
        let i = match g {
            Some(g) => self.pattern.group_index(g)?,
            None => 0,
        };
        Ok(match self.spans[i] {
            Some((a, b)) => (
                char_at(&self.string, a) as i64,
                char_at(&self.string, b) as i64,
            ),
            None => (-1, -1),
        })
    }

    /// The group that closed last (the outer one of nested groups ending together).
    fn lastindex(&self) -> Option<usize> {
        let mut best: Option<(usize, usize)> = None;
        for (i, sp) in self.spans.iter().enumerate().skip(1) {
            if let Some((_, end)) = sp {
                if best.is_none_or(|(_, e)| *end > e) {
                    best = Some((i, *end));
                }
            }
        }
        best.map(|(i, _)| i)
    }

    fn groups_with(&self, default: &Obj) -> Vec<Obj> {
        self.spans[1..]
            .iter()
            .map(|sp| match sp {
                Some(_) => Pattern::group_str(&self.string, *sp),
                None => default.clone(),
            })
            .collect()
    }
}

impl Object for Match {
    fn type_name(&self) -> String {
        "Match".into()
    }

    fn getattr(&self, _: &mut Interp, this: &Obj, name: &str) -> Result<Option<Obj>> {
        Ok(Some(match name {
            "string" => Obj::Str(self.string.clone()),
            "re" => Obj::Lib(self.pattern.clone()),
            "pos" => Obj::Int(self.pos as i64),
            "endpos" => Obj::Int(self.endpos as i64),
            "lastindex" => self
                .lastindex()
                .map(|i| Obj::Int(i as i64))
                .unwrap_or(Obj::None),
            "lastgroup" => self
                .lastindex()
                .and_then(|i| self.pattern.names.iter().find(|(_, j)| *j == i))
                .map(|(n, _)| Obj::str(n))
                .unwrap_or(Obj::None),
            _ => match match_method(this, name) {
                Some(m) => m,
                None => return Ok(None),
            },
        }))
    }

    fn repr(&self, _: &Obj) -> Option<String> {
        let (a, b) = self.span(None).unwrap_or((0, 0));
        let text = Pattern::group_str(&self.string, self.spans[0]);
        Some(format!(
            "<re.Match object; span=({a}, {b}), match={}>",
            repr_of(&text)
        ))
    }

    fn getitem(&self, _: &mut Interp, _: &Obj, key: &Obj) -> Option<Result<Obj>> {
        Some(self.group(key))
    }
}

/// A method of a match, bound to it.
fn match_method(this: &Obj, name: &str) -> Option<Obj> {
    let me = this.downcast_rc::<Match>()?;
    let full = format!("Match.{name}");
    Some(match name {
        "group" => Obj::native(full, move |_, a| match a.pos.len() {
            0 => me.group(&Obj::Int(0)),
            1 => me.group(&a.pos[0]),
            _ => Ok(Obj::tuple(
                a.pos.iter().map(|g| me.group(g)).collect::<Result<_>>()?,
            )),
        }),
        "groups" => Obj::native(full, move |_, a| {
            let default = a.get(Some(0), "default").unwrap_or(Obj::None);
            Ok(Obj::tuple(me.groups_with(&default)))
        }),
        "groupdict" => Obj::native(full, move |_, a| {
            let default = a.get(Some(0), "default").unwrap_or(Obj::None);
            let values = me.groups_with(&default);
            let d: Dict = me
                .pattern
                .names
                .iter()
                .map(|(n, i)| (Obj::str(n), values[i - 1].clone()))
                .collect();
            Ok(Obj::Dict(Rc::new(RefCell::new(d))))
        }),
        "start" | "end" | "span" => {
            let which = name.to_string();
            Obj::native(full, move |_, a| {
                let (s, e) = me.span(a.pos.first())?;
                Ok(match which.as_str() {
                    "start" => Obj::Int(s),
                    "end" => Obj::Int(e),
                    _ => Obj::tuple(vec![Obj::Int(s), Obj::Int(e)]),
                })
            })
        }
        "expand" => Obj::native(full, move |_, a| {
            let t = str_of(&a.req(Some(0), "template", "expand")?);
            let pieces = parse_template(&t, &me.pattern)?;
            let mut out = String::new();
            expand(&pieces, &me.string, &me.spans, &mut out);
            Ok(Obj::str(out))
        }),
        _ => return None,
    })
}
