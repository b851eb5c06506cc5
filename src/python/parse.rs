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
    ast::Suite::parse(source, "<program>").map_err(|e| {
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
    })
}
