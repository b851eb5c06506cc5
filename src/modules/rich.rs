//! A small part of the `rich` library (which Flax depends on), as rich 15
//! behaves under CPython without IPython: `rich.console.Console`,
//! `rich.table.Table`, `rich.text.Text` and `rich.jupyter.JupyterRenderable`.
//!
//! Notebooks use it to show tables of jaxprs. A console made with
//! `force_jupyter=True` hands what it renders to IPython's display, and
//! without IPython rich drops it, so such a console prints nothing. Any
//! other console writes to stdout as rich does to a non-terminal: console
//! markup (`[bold green]`) is taken out, the arguments are joined by `sep`
//! and ended by `end`. What would need rich's layout (a table, a line wider
//! than the console, which rich wraps; emoji codes; wide characters) is
//! refused by name.

use std::rc::Rc;

use crate::bail;
use crate::error::Result;
use crate::python::classes::ClassMethod;
use crate::python::format::{repr_of, str_of};
use crate::python::interp::Interp;
use crate::python::ops::{getattr, setattr, truthy};
use crate::python::value::{Args, Class, Obj};

use super::std::refuse;
use super::Builder;

/// The module `name` (`rich`, `rich.console`, ...), or None for a module of
/// rich that shardlab does not have.
pub fn module(name: &str) -> Option<Obj> {
    Some(match name {
        "rich" => Builder::new("rich").build(),
        "rich.console" => Builder::new("rich.console")
            .attr("Console", console_class())
            .build(),
        "rich.table" => Builder::new("rich.table")
            .attr("Table", table_class())
            .build(),
        "rich.text" => Builder::new("rich.text").attr("Text", text_class()).build(),
        "rich.jupyter" => Builder::new("rich.jupyter")
            .attr("JupyterRenderable", jupyter_renderable_class())
            .build(),
        _ => return None,
    })
}

/// The submodules that importing `imported` also imports in rich (and so
/// makes attributes of the `rich` package): `rich.console` brings `text`
/// and `jupyter` with it, `rich.table` those and `console`.
pub fn brought_by(imported: &str) -> &'static [&'static str] {
    match imported {
        "rich.console" => &["console", "text", "jupyter"],
        "rich.table" => &["table", "console", "text", "jupyter"],
        "rich.text" => &["text"],
        "rich.jupyter" => &["jupyter", "console", "text"],
        _ => &[],
    }
}

fn class(module: &str, name: &str, methods: Vec<(&str, Obj)>) -> Obj {
    let mut attrs: Vec<(String, Obj)> = vec![("__module__".into(), Obj::str(module))];
    attrs.extend(methods.into_iter().map(|(k, v)| (k.to_string(), v)));
    Obj::Class(Rc::new(Class::new(name, vec![], attrs)))
}

fn this(a: &Args) -> Result<Obj> {
    match a.pos.first() {
        Some(o) => Ok(o.clone()),
        None => bail!(TypeError, "a method was called without its instance"),
    }
}

/// Refuses the keyword arguments of `func` other than `known`, which shardlab
/// would otherwise ignore.
fn only_keywords(a: &Args, func: &str, known: &[&str]) -> Result<()> {
    match a.kw.iter().find(|(k, _)| !known.contains(&k.as_str())) {
        Some((k, _)) => Err(refuse(&format!("rich {func}({k}=...)"))),
        None => Ok(()),
    }
}

/// `Console(width=None, force_jupyter=None)`: rich's width for a console
/// that writes to a non-terminal is 80.
fn console_class() -> Obj {
    let init = Obj::native("Console.__init__", |_, a| {
        only_keywords(&a, "Console", &["width", "force_jupyter"])?;
        if a.pos.len() > 1 {
            return Err(refuse("rich Console with positional arguments"));
        }
        let me = this(&a)?;
        let width = a.opt(None, "width").unwrap_or(Obj::Int(80));
        if !matches!(width, Obj::Int(w) if w > 0) {
            return Err(refuse("rich Console(width=...) other than a positive int"));
        }
        let jupyter = match a.opt(None, "force_jupyter") {
            Some(v) => truthy(&v, "force_jupyter")?,
            None => false,
        };
        setattr(&me, "width", width)?;
        setattr(&me, "is_jupyter", Obj::Bool(jupyter))?;
        Ok(Obj::None)
    });
    class(
        "rich.console",
        "Console",
        vec![
            ("__init__", init),
            ("print", Obj::native("Console.print", console_print)),
        ],
    )
}

/// `console.print(*objects, sep=" ", end="\n")`.
fn console_print(interp: &mut Interp, a: Args) -> Result<Obj> {
    only_keywords(&a, "Console.print", &["sep", "end"])?;
    let me = this(&a)?;
    let text_arg = |name: &str, default: &str| -> Result<String> {
        match a.opt(None, name) {
            None => Ok(default.to_string()),
            Some(Obj::Str(s)) => Ok(s.to_string()),
            Some(o) => bail!(TypeError, "{name} must be a str, not {}", o.type_name()),
        }
    };
    let (sep, end) = (text_arg("sep", " ")?, text_arg("end", "\n")?);
    let jupyter = truthy(&getattr(interp, &me, "is_jupyter")?, "is_jupyter")?;
    let mut parts = Vec::with_capacity(a.pos.len().saturating_sub(1));
    for o in &a.pos[1..] {
        parts.push(plain_of(interp, o, jupyter)?);
    }
    if jupyter {
        // rich renders for IPython's display, which is missing.
        return Ok(Obj::None);
    }
    let Obj::Int(width) = getattr(interp, &me, "width")? else {
        bail!(TypeError, "the console's width must be an int");
    };
    let text = format!("{}{end}", parts.join(&sep));
    check_layout(&text, width)?;
    if interp.out.len() + text.len() > 64 << 20 {
        bail!(RuntimeError, "program exceeded the output limit of 64 MiB");
    }
    interp.out.push_str(&text);
    Ok(Obj::None)
}

/// The characters an object prints as on a non-terminal: a string's
/// markup taken out, a `Text`'s plain text, a number's `str`. A table
/// (which rich lays out) only in a notebook, where nothing is printed.
fn plain_of(interp: &mut Interp, o: &Obj, jupyter: bool) -> Result<String> {
    match o {
        Obj::Str(s) => strip_markup(s),
        Obj::Int(_) | Obj::Float(_) | Obj::Bool(_) | Obj::None => Ok(str_of(o)),
        Obj::Instance(i) if is_rich(&i.class, "rich.text", "Text") => {
            Ok(str_of(&getattr(interp, o, "plain")?))
        }
        Obj::Instance(i) if is_rich(&i.class, "rich.table", "Table") => {
            if jupyter {
                Ok(String::new())
            } else {
                Err(refuse("rich Table printed outside a notebook"))
            }
        }
        other => Err(refuse(&format!(
            "rich Console.print of a {}",
            other.type_name()
        ))),
    }
}

/// True when `c` is rich's class `name` from `module`.
fn is_rich(c: &Class, module: &str, name: &str) -> bool {
    c.name == name
        && c.attrs
            .borrow()
            .iter()
            .any(|(k, v)| k == "__module__" && matches!(v, Obj::Str(m) if &**m == module))
}

/// Refuses what rich would lay out differently from the text as it is:
/// lines wider than the console (wrapped), tabs (expanded), characters
/// that may take two cells.
fn check_layout(text: &str, width: i64) -> Result<()> {
    if text.chars().any(|c| c == '\t' || !c.is_ascii()) {
        return Err(refuse("rich Console.print of tabs or non-ASCII characters"));
    }
    if text.lines().any(|l| l.len() as i64 > width) {
        return Err(refuse(
            "rich Console.print of a line wider than the console",
        ));
    }
    Ok(())
}

/// A string's text with rich's console markup taken out: each `[tag]` (a
/// tag starts with a lowercase letter, `#`, `/` or `@`) is removed, a
/// backslash before one makes it literal, and each closing tag must close
/// an open one.
fn strip_markup(s: &str) -> Result<String> {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::new();
    let mut open: Vec<String> = vec![];
    let mut i = 0;
    while i < chars.len() {
        let slashes = chars[i..].iter().take_while(|c| **c == '\\').count();
        let Some(len) = tag_len(&chars[i + slashes..]) else {
            out.extend(&chars[i..i + slashes.max(1)]);
            i += slashes.max(1);
            continue;
        };
        out.extend(std::iter::repeat_n('\\', slashes / 2));
        let tag: String = chars[i + slashes + 1..i + slashes + len - 1]
            .iter()
            .collect();
        if slashes % 2 == 1 {
            out.push('[');
            out.push_str(&tag);
            out.push(']');
        } else {
            apply_tag(&tag, &mut open)?;
        }
        i += slashes + len;
    }
    // rich also turns an escaped bracket that opens no tag into a bracket.
    let out = out.replace("\\[", "[");
    if emoji_code(&out) {
        return Err(refuse("rich emoji codes"));
    }
    Ok(out)
}

/// The length of the tag (with its brackets) at the start of `c`, if one is.
fn tag_len(c: &[char]) -> Option<usize> {
    if c.first() != Some(&'[') {
        return None;
    }
    let first = *c.get(1)?;
    if !(first.is_ascii_lowercase() || matches!(first, '#' | '/' | '@')) {
        return None;
    }
    let close = c[1..].iter().position(|x| *x == ']' || *x == '[')?;
    (c[1 + close] == ']').then_some(close + 2)
}

/// Opens or closes a style tag, as rich's markup parser checks them.
fn apply_tag(tag: &str, open: &mut Vec<String>) -> Result<()> {
    if tag.starts_with('@') {
        return Err(refuse("rich markup handlers ([@...])"));
    }
    let name = tag.split('=').next().unwrap_or(tag);
    let Some(closed) = name.strip_prefix('/') else {
        open.push(name.to_string());
        return Ok(());
    };
    let closed = closed.trim();
    let found = if closed.is_empty() {
        open.pop().is_some()
    } else {
        match open.iter().rposition(|t| t.trim() == closed) {
            Some(k) => {
                open.remove(k);
                true
            }
            None => false,
        }
    };
    if found {
        Ok(())
    } else {
        Err(refuse(&format!(
            "rich markup with an unmatched closing tag [{tag}]"
        )))
    }
}

/// True when `s` has what rich reads as an emoji code (`:name:`).
fn emoji_code(s: &str) -> bool {
    s.split(':')
        .skip(1)
        .collect::<Vec<_>>()
        .split_last()
        .is_some_and(|(_, inner)| {
            inner
                .iter()
                .any(|p| !p.is_empty() && !p.contains(char::is_whitespace))
        })
}

/// `Table(*headers, show_header=True, show_lines=False, padding=(0, 1),
/// box=...)`: its rows are kept for a notebook's console, which shows
/// nothing here.
fn table_class() -> Obj {
    let init = Obj::native("Table.__init__", |_, a| {
        only_keywords(
            &a,
            "Table",
            &["show_header", "show_lines", "padding", "box"],
        )?;
        let me = this(&a)?;
        let get = |name: &str, default: Obj| a.get(None, name).unwrap_or(default);
        setattr(&me, "show_header", get("show_header", Obj::Bool(true)))?;
        setattr(&me, "show_lines", get("show_lines", Obj::Bool(false)))?;
        let padding = get("padding", Obj::tuple(vec![Obj::Int(0), Obj::Int(1)]));
        setattr(&me, "padding", padding)?;
        let headers: Vec<Obj> = a.pos[1..].to_vec();
        setattr(&me, "_headers", Obj::list(headers))?;
        setattr(&me, "_rows", Obj::list(vec![]))?;
        Ok(Obj::None)
    });
    let add_row = Obj::native("Table.add_row", |i, a| {
        only_keywords(&a, "Table.add_row", &[])?;
        let rows = getattr(i, &this(&a)?, "_rows")?;
        if let Obj::List(l) = rows {
            l.borrow_mut().push(Obj::tuple(a.pos[1..].to_vec()));
        }
        Ok(Obj::None)
    });
    let add_column = Obj::native("Table.add_column", |i, a| {
        only_keywords(&a, "Table.add_column", &["header"])?;
        let header = a.get(Some(1), "header").unwrap_or(Obj::str(""));
        if let Obj::List(l) = getattr(i, &this(&a)?, "_headers")? {
            l.borrow_mut().push(header);
        }
        Ok(Obj::None)
    });
    let row_count = Obj::native("Table.row_count", |i, a| {
        match getattr(i, &this(&a)?, "_rows")? {
            Obj::List(l) => Ok(Obj::Int(l.borrow().len() as i64)),
            _ => Ok(Obj::Int(0)),
        }
    });
    class(
        "rich.table",
        "Table",
        vec![
            ("__init__", init),
            ("add_row", add_row),
            ("add_column", add_column),
            ("row_count", property(row_count)),
        ],
    )
}

fn property(getter: Obj) -> Obj {
    Obj::lib(crate::python::classes::Property {
        fget: getter,
        fset: None,
    })
}

/// `Text(text="", style="")`, `Text.from_ansi(text)` and `str(text)`.
fn text_class() -> Obj {
    let init = Obj::native("Text.__init__", |_, a| {
        only_keywords(&a, "Text", &["text", "style"])?;
        let me = this(&a)?;
        let text = a.get(Some(1), "text").unwrap_or(Obj::str(""));
        let style = a.get(Some(2), "style").unwrap_or(Obj::str(""));
        if !matches!(text, Obj::Str(_)) {
            bail!(TypeError, "expected str, got {}", text.type_name());
        }
        setattr(&me, "plain", text)?;
        setattr(&me, "style", style)?;
        Ok(Obj::None)
    });
    // Text with no escape sequences has no styled spans.
    let from_ansi = Obj::native("Text.from_ansi", |i, a| {
        only_keywords(&a, "Text.from_ansi", &["text"])?;
        let cls = this(&a)?;
        let text = a.req(Some(1), "text", "from_ansi")?;
        if matches!(&text, Obj::Str(s) if s.contains('\x1b')) {
            return Err(refuse("rich Text.from_ansi of text with escape sequences"));
        }
        i.call(&cls, Args::new(vec![text]))
    });
    let plain = |i: &mut Interp, a: &Args| getattr(i, &this(a)?, "plain");
    let str_ = Obj::native("Text.__str__", move |i, a| plain(i, &a));
    let len = Obj::native("Text.__len__", move |i, a| {
        Ok(Obj::Int(str_of(&plain(i, &a)?).chars().count() as i64))
    });
    let repr = Obj::native("Text.__repr__", move |i, a| {
        let me = this(&a)?;
        let (text, style) = (getattr(i, &me, "plain")?, getattr(i, &me, "style")?);
        Ok(Obj::str(format!(
            "<text {} [] {}>",
            repr_of(&text),
            repr_of(&style)
        )))
    });
    class(
        "rich.text",
        "Text",
        vec![
            ("__init__", init),
            ("from_ansi", Obj::lib(ClassMethod(from_ansi))),
            ("__str__", str_),
            ("__len__", len),
            ("__repr__", repr),
        ],
    )
}

/// `JupyterRenderable(html, text)`: what rich hands IPython's display; a
/// program may give the class its own `_repr_html_`.
fn jupyter_renderable_class() -> Obj {
    let init = Obj::native("JupyterRenderable.__init__", |_, a| {
        let me = this(&a)?;
        setattr(&me, "html", a.req(Some(1), "html", "JupyterRenderable")?)?;
        setattr(&me, "text", a.req(Some(2), "text", "JupyterRenderable")?)?;
        Ok(Obj::None)
    });
    class(
        "rich.jupyter",
        "JupyterRenderable",
        vec![("__init__", init)],
    )
}
