//! The `pprint` module: `pprint`, `pformat` and `pp`, laid out exactly as
//! CPython 3.11's `PrettyPrinter` lays them out: dicts sorted by key (unless
//! `sort_dicts=False`), and a container whose repr does not fit in `width`
//! split one item per line (or several with `compact=True`), strings split
//! at spaces, `depth` eliding deeper levels as `...`.

use std::collections::HashSet;

use crate::bail;
use crate::error::Result;
use crate::python::format::{repr_of, str_repr};
use crate::python::interp::Interp;
use crate::python::ops::{getattr, py_cmp};
use crate::python::value::{Args, Dict, Obj};

use super::super::Builder;

/// The `pprint` module.
pub fn module() -> Obj {
    let mut b = Builder::new("pprint");
    b.func("pformat", |_, a| {
        let p = Printer::from_args(&a, 1, true)?;
        Ok(Obj::str(p.pformat(&a.req(Some(0), "object", "pformat")?)))
    })
    .func("pprint", |i, a| print(i, a, true))
    .func("pp", |i, a| print(i, a, false));
    b.build()
}

/// `pprint(object, stream=None, indent=1, width=80, depth=None, ...)`, and
/// `pp` (the same with `sort_dicts=False` by default).
fn print(interp: &mut Interp, a: Args, sort_dicts: bool) -> Result<Obj> {
    let p = Printer::from_args(&a, 2, sort_dicts)?;
    let text = format!("{}\n", p.pformat(&a.req(Some(0), "object", "pprint")?));
    match a.opt(Some(1), "stream") {
        None => {
            if interp.out.len() + text.len() > 64 << 20 {
                bail!(RuntimeError, "program exceeded the output limit of 64 MiB");
            }
            interp.out.push_str(&text);
        }
        Some(stream) => {
            let write = getattr(interp, &stream, "write")?;
            interp.call(&write, Args::new(vec![Obj::str(text)]))?;
        }
    }
    Ok(Obj::None)
}

/// A `PrettyPrinter`'s settings.
struct Printer {
    indent: i64,
    width: i64,
    depth: Option<usize>,
    compact: bool,
    sort_dicts: bool,
    underscore_numbers: bool,
}

fn chars(s: &str) -> i64 {
    s.chars().count() as i64
}

impl Printer {
    /// The settings from `pformat`/`pprint` arguments; `first` is the
    /// position of `indent`.
    fn from_args(a: &Args, first: usize, sort_dicts: bool) -> Result<Printer> {
        use crate::python::builtins::to_int;
        use crate::python::ops::truthy;
        let int = |i: usize, name: &str, default: i64| -> Result<i64> {
            a.opt(Some(i), name)
                .map(|v| to_int(&v))
                .transpose()
                .map(|v| v.unwrap_or(default))
        };
        let flag = |name: &str, default: bool| -> Result<bool> {
            a.get(None, name)
                .map(|v| truthy(&v, name))
                .transpose()
                .map(|v| v.unwrap_or(default))
        };
        let indent = int(first, "indent", 1)?;
        let width = int(first + 1, "width", 80)?;
        let depth = a
            .opt(Some(first + 2), "depth")
            .map(|v| to_int(&v))
            .transpose()?;
        if indent < 0 {
            bail!(ValueError, "indent must be >= 0");
        }
        if depth.is_some_and(|d| d <= 0) {
            bail!(ValueError, "depth must be > 0");
        }
        if width == 0 {
            bail!(ValueError, "width must be != 0");
        }
        Ok(Printer {
            indent,
            width,
            depth: depth.map(|d| d as usize),
            compact: flag("compact", false)?,
            sort_dicts: flag("sort_dicts", sort_dicts)?,
            underscore_numbers: flag("underscore_numbers", false)?,
        })
    }

    fn pformat(&self, o: &Obj) -> String {
        let mut out = String::new();
        self.format(o, &mut out, 0, 0, 0, &mut HashSet::new());
        out
    }

    /// The dict's items, sorted by key when the printer sorts.
    fn items(&self, d: &Dict) -> Vec<(Obj, Obj)> {
        let mut items = d.items.clone();
        if self.sort_dicts {
            insertion_sort(&mut items, |a, b| safe_less(&a.0, &b.0));
        }
        items
    }

    /// CPython's `_safe_repr`: the one-line repr, with sorted dicts and
    /// `...` below the depth limit.
    fn repr(&self, o: &Obj, level: usize, seen: &mut HashSet<usize>) -> String {
        let limited = self.depth.is_some_and(|d| level >= d);
        match o {
            Obj::Int(i) if self.underscore_numbers => underscored(*i),
            Obj::Dict(d) if d.borrow().default_factory.is_none() => {
                if d.borrow().is_empty() {
                    return "{}".into();
                }
                if limited {
                    return "{...}".into();
                }
                let id = std::rc::Rc::as_ptr(d) as usize;
                if !seen.insert(id) {
                    return format!("<Recursion on dict with id={id}>");
                }
                let items = self.items(&d.borrow());
                let parts: Vec<String> = items
                    .iter()
                    .map(|(k, v)| {
                        let k = self.repr(k, level + 1, seen);
                        format!("{k}: {}", self.repr(v, level + 1, seen))
                    })
                    .collect();
                seen.remove(&id);
                format!("{{{}}}", parts.join(", "))
            }
            Obj::List(_) | Obj::Tuple(_) => self.seq_repr(o, limited, level, seen),
            other => repr_of(other),
        }
    }

    fn seq_repr(&self, o: &Obj, limited: bool, level: usize, seen: &mut HashSet<usize>) -> String {
        let (items, id, list) = match o {
            Obj::List(l) => (l.borrow().clone(), std::rc::Rc::as_ptr(l) as usize, true),
            Obj::Tuple(t) => (t.to_vec(), std::rc::Rc::as_ptr(t) as usize, false),
            _ => return repr_of(o),
        };
        let wrap = |body: &str| match (list, items.len()) {
            (true, _) => format!("[{body}]"),
            (false, 1) => format!("({body},)"),
            (false, _) => format!("({body})"),
        };
        if items.is_empty() {
            return wrap("");
        }
        if limited {
            return wrap("...");
        }
        if !seen.insert(id) {
            return format!("<Recursion on {} with id={id}>", o.type_name());
        }
        let parts: Vec<String> = items
            .iter()
            .map(|x| self.repr(x, level + 1, seen))
            .collect();
        seen.remove(&id);
        wrap(&parts.join(", "))
    }

    /// CPython's `_format`: the repr when it fits, else the type's layout.
    fn format(
        &self,
        o: &Obj,
        out: &mut String,
        indent: i64,
        allowance: i64,
        level: usize,
        seen: &mut HashSet<usize>,
    ) {
        let rep = self.repr(o, level, seen);
        if chars(&rep) <= self.width - indent - allowance {
            out.push_str(&rep);
            return;
        }
        match o {
            Obj::Dict(d) if d.borrow().default_factory.is_some() => {
                self.default_dict(o, out, indent, allowance, level + 1, seen)
            }
            Obj::Dict(d) => {
                let items = self.items(&d.borrow());
                self.dict(&items, out, indent, allowance, level + 1, seen)
            }
            Obj::List(l) => {
                let items = l.borrow().clone();
                out.push('[');
                self.format_items(&items, out, indent, allowance + 1, level + 1, seen);
                out.push(']');
            }
            Obj::Tuple(t) => {
                let end = if t.len() == 1 { ",)" } else { ")" };
                out.push('(');
                self.format_items(
                    t,
                    out,
                    indent,
                    allowance + end.len() as i64,
                    level + 1,
                    seen,
                );
                out.push_str(end);
            }
            Obj::Str(s) => self.string(s, out, indent, allowance, level + 1),
            _ => out.push_str(&rep),
        }
    }

    fn dict(
        &self,
        items: &[(Obj, Obj)],
        out: &mut String,
        indent: i64,
        allowance: i64,
        level: usize,
        seen: &mut HashSet<usize>,
    ) {
        out.push('{');
        if self.indent > 1 {
            out.push_str(&" ".repeat(self.indent as usize - 1));
        }
        let indent = indent + self.indent;
        let delim = format!(",\n{}", " ".repeat(indent as usize));
        for (i, (k, v)) in items.iter().enumerate() {
            let last = i + 1 == items.len();
            let rep = self.repr(k, level, seen);
            out.push_str(&rep);
            out.push_str(": ");
            let allow = if last { allowance + 1 } else { 1 };
            self.format(v, out, indent + chars(&rep) + 2, allow, level, seen);
            if !last {
                out.push_str(&delim);
            }
        }
        out.push('}');
    }

    fn default_dict(
        &self,
        o: &Obj,
        out: &mut String,
        indent: i64,
        allowance: i64,
        level: usize,
        seen: &mut HashSet<usize>,
    ) {
        let Obj::Dict(d) = o else { return };
        let d = d.borrow();
        let factory = d.default_factory.clone().unwrap_or(Obj::None);
        let rdf = self.repr(&factory, level, seen);
        let indent = indent + chars("defaultdict") + 1;
        out.push_str(&format!(
            "defaultdict({rdf},\n{}",
            " ".repeat(indent as usize)
        ));
        self.dict(&self.items(&d), out, indent, allowance + 1, level, seen);
        out.push(')');
    }

    /// CPython's `_format_items`: one item per line, or as many as fit with
    /// `compact`.
    fn format_items(
        &self,
        items: &[Obj],
        out: &mut String,
        indent: i64,
        allowance: i64,
        level: usize,
        seen: &mut HashSet<usize>,
    ) {
        let indent = indent + self.indent;
        if self.indent > 1 {
            out.push_str(&" ".repeat(self.indent as usize - 1));
        }
        let delimnl = format!(",\n{}", " ".repeat(indent.max(0) as usize));
        let mut delim = String::new();
        let mut width = self.width - indent + 1;
        let mut max_width = width;
        for (i, x) in items.iter().enumerate() {
            let last = i + 1 == items.len();
            if last {
                max_width -= allowance;
                width -= allowance;
            }
            if self.compact {
                let rep = self.repr(x, level, seen);
                let w = chars(&rep) + 2;
                if width < w {
                    width = max_width;
                    if !delim.is_empty() {
                        delim = delimnl.clone();
                    }
                }
                if width >= w {
                    width -= w;
                    out.push_str(&delim);
                    delim = ", ".into();
                    out.push_str(&rep);
                    continue;
                }
            }
            out.push_str(&delim);
            delim = delimnl.clone();
            self.format(
                x,
                out,
                indent,
                if last { allowance } else { 1 },
                level,
                seen,
            );
        }
    }

    /// CPython's `_pprint_str`: a long string as adjacent literals split
    /// after whitespace, in parentheses at the top level.
    fn string(&self, s: &str, out: &mut String, indent: i64, allowance: i64, level: usize) {
        let (indent, allowance) = if level == 1 {
            (indent + 1, allowance + 1)
        } else {
            (indent, allowance)
        };
        let chunks = self.string_chunks(s, indent, allowance);
        if chunks.len() == 1 {
            out.push_str(&chunks[0]);
            return;
        }
        if level == 1 {
            out.push('(');
        }
        for (i, c) in chunks.iter().enumerate() {
            if i > 0 {
                out.push('\n');
                out.push_str(&" ".repeat(indent.max(0) as usize));
            }
            out.push_str(c);
        }
        if level == 1 {
            out.push(')');
        }
    }

    fn string_chunks(&self, s: &str, indent: i64, allowance: i64) -> Vec<String> {
        let lines = split_lines(s);
        let max_width = self.width - indent;
        let mut max_width1 = max_width;
        let mut chunks = vec![];
        for (i, line) in lines.iter().enumerate() {
            let rep = str_repr(line);
            let last_line = i + 1 == lines.len();
            if last_line {
                max_width1 -= allowance;
            }
            if chars(&rep) <= max_width1 {
                chunks.push(rep);
                continue;
            }
            let parts = word_parts(line);
            let mut max_width2 = max_width;
            let mut current = String::new();
            for (j, part) in parts.iter().enumerate() {
                let candidate = format!("{current}{part}");
                if j + 1 == parts.len() && last_line {
                    max_width2 -= allowance;
                }
                if chars(&str_repr(&candidate)) > max_width2 {
                    if !current.is_empty() {
                        chunks.push(str_repr(&current));
                    }
                    current = part.clone();
                } else {
                    current = candidate;
                }
            }
            if !current.is_empty() {
                chunks.push(str_repr(&current));
            }
        }
        chunks
    }
}

/// `format(i, "_d")`.
fn underscored(i: i64) -> String {
    let digits = i.unsigned_abs().to_string();
    let mut out = String::new();
    for (k, c) in digits.chars().enumerate() {
        if k > 0 && (digits.len() - k) % 3 == 0 {
            out.push('_');
        }
        out.push(c);
    }
    if i < 0 {
        format!("-{out}")
    } else {
        out
    }
}

/// pprint's `_safe_key` order: `<` when the values compare, else by the
/// name of their types.
fn safe_less(a: &Obj, b: &Obj) -> bool {
    match py_cmp(a, b) {
        Ok(o) => o == std::cmp::Ordering::Less,
        Err(_) => format!("<class '{}'>", a.type_name()) < format!("<class '{}'>", b.type_name()),
    }
}

/// A stable sort that needs only `less` (which need not be a total order).
fn insertion_sort<T>(v: &mut [T], less: impl Fn(&T, &T) -> bool) {
    for i in 1..v.len() {
        let mut j = i;
        while j > 0 && less(&v[j], &v[j - 1]) {
            v.swap(j, j - 1);
            j -= 1;
        }
    }
}

/// `str.splitlines(keepends=True)`.
fn split_lines(s: &str) -> Vec<String> {
    let mut lines = vec![];
    let mut cur = String::new();
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        cur.push(c);
        let ends = match c {
            '\r' => {
                if it.peek() == Some(&'\n') {
                    cur.push('\n');
                    it.next();
                }
                true
            }
            '\n' | '\x0b' | '\x0c' | '\x1c' | '\x1d' | '\x1e' | '\u{85}' | '\u{2028}'
            | '\u{2029}' => true,
            _ => false,
        };
        if ends {
            lines.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    lines
}

/// `re.findall(r'\S*\s*', line)` without its final empty match: runs of
/// non-space characters, each with the spaces after it.
fn word_parts(line: &str) -> Vec<String> {
    let mut parts = vec![];
    let mut cur = String::new();
    let mut in_space = false;
    for c in line.chars() {
        let space = c.is_whitespace();
        if !space && in_space {
            parts.push(std::mem::take(&mut cur));
        }
        in_space = space;
        cur.push(c);
    }
    if !cur.is_empty() {
        parts.push(cur);
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn printer(width: i64) -> Printer {
        Printer {
            indent: 1,
            width,
            depth: None,
            compact: false,
            sort_dicts: true,
            underscore_numbers: false,
        }
    }

    /// CPython 3.11's `pformat` of `defaultdict(list)` with these items.
    #[test]
    fn defaultdict_layout() {
        let mut d = Dict::default();
        for k in [2, 0, 1] {
            let v: Vec<Obj> = (0..4).map(|j| Obj::Int((k + 3 * j) * 1000)).collect();
            d.set(Obj::str(format!("key{k}")), Obj::list(v));
        }
        d.default_factory = Some(Obj::Type("list"));
        let dd = Obj::Dict(std::rc::Rc::new(std::cell::RefCell::new(d)));
        assert_eq!(
            printer(80).pformat(&dd),
            "defaultdict(<class 'list'>,\n            {'key0': [0, 3000, 6000, 9000],\n             \
             'key1': [1000, 4000, 7000, 10000],\n             'key2': [2000, 5000, 8000, 11000]})"
        );
        let narrow = printer(40).pformat(&dd);
        assert!(narrow.starts_with(
            "defaultdict(<class 'list'>,\n            {'key0': [0,\n                      3000,\n"
        ));
        assert!(narrow.ends_with("                      11000]})"));
    }
}
