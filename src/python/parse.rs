//! Parsing program text with `rustpython-parser`, and mapping byte offsets to
//! the line and column Python reports.

use rustpython_ast::{Ranged, Visitor};
use rustpython_parser::ast;
use rustpython_parser::lexer::LexicalErrorType;
use rustpython_parser::Parse;

use crate::error::{Error, ErrorKind};

/// Byte offsets of line starts, to turn a text offset into (line, column).
#[derive(Clone, Debug, Default)]
pub struct Lines {
    starts: Vec<usize>,
    text: String,
}

impl Lines {
    /// The line table of `source`.
    pub fn new(source: &str) -> Lines {
        let mut starts = vec![0];
        for (i, b) in source.bytes().enumerate() {
            if b == b'\n' {
                starts.push(i + 1);
            }
        }
        Lines {
            starts,
            text: source.to_string(),
        }
    }

    /// The text of 1-based line `line`, without its newline.
    pub fn line_text(&self, line: usize) -> Option<&str> {
        let start = *self.starts.get(line.checked_sub(1)?)?;
        let end = self.starts.get(line).map_or(self.text.len(), |e| e - 1);
        self.text.get(start..end.max(start))
    }

    /// 1-based line and 1-based column (in characters) of a byte offset.
    pub fn locate(&self, offset: usize) -> (usize, usize) {
        let line = match self.starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.starts[line];
        let end = offset.min(self.text.len());
        let col = self
            .text
            .get(start..end)
            .map(|s| s.chars().count())
            .unwrap_or(end - start);
        (line + 1, col + 1)
    }
}

/// A syntax error with its position.
#[derive(Debug)]
pub struct SyntaxErr {
    /// The error, of kind SyntaxError.
    pub error: Error,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub col: usize,
}

/// Parses a whole program.
pub fn parse_program(
    source: &str,
    lines: &Lines,
) -> std::result::Result<Vec<ast::Stmt>, SyntaxErr> {
    let at = |offset: usize, message: String| {
        let (line, col) = lines.locate(offset);
        SyntaxErr {
            error: Error::new(ErrorKind::SyntaxError, message),
            line,
            col,
        }
    };
    let brackets = scan_brackets(source, source.len());
    if let Brackets::TooDeep(offset) = brackets {
        return Err(at(offset, "too many nested parentheses".to_string()));
    }
    let body = ast::Suite::parse(source, "<program>").map_err(|e| {
        let offset = u32::from(e.offset) as usize;
        // Python's tokenizer reports unbalanced brackets before the grammar
        // sees the tokens after them, and a bracket still open on an
        // earlier line than the error as never closed, where it opens.
        match brackets {
            Brackets::Unmatched(offset, close) => {
                return at(offset, format!("unmatched '{close}'"));
            }
            Brackets::Mismatched(offset, close, open) => {
                return at(
                    offset,
                    format!(
                        "closing parenthesis '{close}' does not match opening parenthesis '{open}'"
                    ),
                );
            }
            _ => {}
        }
        if let Brackets::Unclosed(open_at, open) = scan_brackets(source, offset) {
            if lines.locate(open_at).0 < lines.locate(offset).0 {
                return at(open_at, format!("'{open}' was never closed"));
            }
        }
        if let rustpython_parser::ParseErrorType::Lexical(LexicalErrorType::UnicodeError) = e.error
        {
            if let Some((error, at)) = super::name_escape::unknown_name(source, offset) {
                let (line, col) = lines.locate(at);
                return SyntaxErr { error, line, col };
            }
        }
        let (line, col) = lines.locate(offset);
        let message = match &e.error {
            rustpython_parser::ParseErrorType::Eof => "unexpected EOF while parsing".to_string(),
            other => other.to_string(),
        };
        SyntaxErr {
            error: Error::new(ErrorKind::SyntaxError, message),
            line,
            col,
        }
    })?;
    if let Some(offset) = too_deep(&body) {
        let (line, col) = lines.locate(offset);
        // The tree is dropped on a thread with a stack sized for it.
        return Err(SyntaxErr {
            error: super::depth::recursion_error(" during compilation"),
            line,
            col,
        });
    }
    if let Some(offset) = return_outside_function(&body) {
        let (line, col) = lines.locate(offset);
        return Err(SyntaxErr {
            error: Error::new(ErrorKind::SyntaxError, "'return' outside function"),
            line,
            col,
        });
    }
    Ok(body)
}

/// Most statements and expressions nested in one another, as Python's
/// compiler limits them: `1+1+...+1` with thousands of terms, or thousands
/// of chained attributes, is a `RecursionError` before the program runs.
const MAX_NESTING: usize = 1000;

/// Measures nesting, stopping at the first node past [`MAX_NESTING`].
#[derive(Default)]
struct Nesting {
    depth: usize,
    deepest_at: Option<usize>,
}

impl Visitor for Nesting {
    fn visit_stmt(&mut self, s: ast::Stmt) {
        self.level(s.range().start(), |v| v.generic_visit_stmt(s));
    }
    fn visit_expr(&mut self, e: ast::Expr) {
        self.level(e.range().start(), |v| v.generic_visit_expr(e));
    }
}

impl Nesting {
    fn level(&mut self, at: rustpython_parser::text_size::TextSize, inner: impl FnOnce(&mut Self)) {
        if self.deepest_at.is_some() {
            return;
        }
        if self.depth >= MAX_NESTING {
            self.deepest_at = Some(u32::from(at) as usize);
            return;
        }
        self.depth += 1;
        inner(self);
        self.depth -= 1;
    }
}

/// Where a program nests deeper than [`MAX_NESTING`], if it does.
fn too_deep(body: &[ast::Stmt]) -> Option<usize> {
    let mut v = Nesting::default();
    for s in body {
        v.visit_stmt(s.clone());
    }
    v.deepest_at
}

/// Python's limit on nested brackets (the tokenizer's `MAXLEVEL`).
const MAX_BRACKET_DEPTH: usize = 200;

/// How the brackets of a program's text up to some offset pair up, outside
/// strings and comments: the first fault, with its byte offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Brackets {
    Balanced,
    /// More than [`MAX_BRACKET_DEPTH`] open at once.
    TooDeep(usize),
    /// A closing bracket with none open.
    Unmatched(usize, char),
    /// A closing bracket of another kind than the open one.
    Mismatched(usize, char, char),
    /// An opening bracket still open at the end of the scan.
    Unclosed(usize, char),
}

fn scan_brackets(source: &str, end: usize) -> Brackets {
    let bytes = &source.as_bytes()[..end.min(source.len())];
    let mut open: Vec<(usize, char)> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'\'' | b'"' => {
                i = skip_string(bytes, i);
                continue;
            }
            b'(' | b'[' | b'{' => {
                open.push((i, c as char));
                if open.len() > MAX_BRACKET_DEPTH {
                    return Brackets::TooDeep(i);
                }
            }
            b')' | b']' | b'}' => {
                let want = match c {
                    b')' => '(',
                    b']' => '[',
                    _ => '{',
                };
                match open.pop() {
                    None => return Brackets::Unmatched(i, c as char),
                    Some((_, o)) if o != want => return Brackets::Mismatched(i, c as char, o),
                    Some(_) => {}
                }
            }
            _ => {}
        }
        i += 1;
    }
    match open.last() {
        Some(&(offset, o)) => Brackets::Unclosed(offset, o),
        None => Brackets::Balanced,
    }
}

/// The offset just past the string literal whose quote is at `start`
/// (single or triple quoted; a backslash escapes the next byte). An
/// unterminated single-quoted string ends at its line's end.
fn skip_string(bytes: &[u8], start: usize) -> usize {
    let q = bytes[start];
    let triple = bytes.get(start + 1) == Some(&q) && bytes.get(start + 2) == Some(&q);
    let mut i = start + if triple { 3 } else { 1 };
    while i < bytes.len() {
        let c = bytes[i];
        if c == b'\\' {
            i += 2;
            continue;
        }
        if !triple && c == b'\n' {
            return i;
        }
        if c == q && (!triple || (bytes.get(i + 1) == Some(&q) && bytes.get(i + 2) == Some(&q))) {
            return i + if triple { 3 } else { 1 };
        }
        i += 1;
    }
    i
}

/// The offset of a `return` that no function encloses, which Python rejects
/// when it compiles the program.
fn return_outside_function(body: &[ast::Stmt]) -> Option<usize> {
    use ast::{Ranged, Stmt};
    body.iter().find_map(|s| match s {
        Stmt::Return(r) => Some(u32::from(r.range().start()) as usize),
        Stmt::If(i) => {
            return_outside_function(&i.body).or_else(|| return_outside_function(&i.orelse))
        }
        Stmt::For(f) => {
            return_outside_function(&f.body).or_else(|| return_outside_function(&f.orelse))
        }
        Stmt::While(w) => {
            return_outside_function(&w.body).or_else(|| return_outside_function(&w.orelse))
        }
        Stmt::With(w) => return_outside_function(&w.body),
        Stmt::Try(t) => return_outside_function(&t.body)
            .or_else(|| return_outside_function(&t.orelse))
            .or_else(|| return_outside_function(&t.finalbody)),
        Stmt::ClassDef(c) => return_outside_function(&c.body),
        _ => None,
    })
}
