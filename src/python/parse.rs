//! Parsing program text with `rustpython-parser`, and mapping byte offsets to
//! the line and column Python reports.

use rustpython_parser::ast;
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
    let body = ast::Suite::parse(source, "<program>").map_err(|e| {
        let (line, col) = lines.locate(u32::from(e.offset) as usize);
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
