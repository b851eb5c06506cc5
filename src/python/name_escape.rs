//! The `"\N{...}"` escape whose name the parser could not look up.
//!
//! `rustpython-parser` reports it as a bare "unexpected unicode" at the name;
//! Python says which bytes of the literal failed and points at the token after
//! the literal.
//! The browser engine carries no character names at all (they would be about
//! 0.3 MB of its compressed download: `crates/unicode_names2`), so there the
//! same escape is refused by name instead, where it is written.

use crate::error::{Error, ErrorKind};

/// The error for a failed `\N{...}` escape around byte `offset` of `source`,
/// with its 0-based byte offset in `source` to locate, or `None` if no such
/// escape is there (the parser's Unicode error was about another escape).
pub fn unknown_name(source: &str, offset: usize) -> Option<(Error, usize)> {
    let upto = source.get(..offset.min(source.len()))?;
    let line_start = upto.rfind('\n').map_or(0, |i| i + 1);
    let escape = line_start + source.get(line_start..offset)?.rfind("\\N{")?;
    if cfg!(target_arch = "wasm32") {
        let error = Error::new(
            ErrorKind::NotImplementedError,
            "not supported by shardlab yet: \\N{...} escapes in the browser engine (it is \
             built without the Unicode character names, to keep its download small; \
             `shardlab run` reads them)",
        );
        return Some((error, escape));
    }
    let close = escape + source.get(escape..)?.find('}')?;
    let (content, end) = literal_around(source, line_start, escape)?;
    let message = format!(
        "(unicode error) 'unicodeescape' codec can't decode bytes in position {}-{}: \
         unknown Unicode character name",
        escape - content,
        close - content
    );
    // Python points where the token after the literal starts.
    let next = end + source.get(end..)?.len()
        - source
            .get(end..)?
            .trim_start_matches([' ', '\t', '\x0c'])
            .len();
    Some((Error::new(ErrorKind::SyntaxError, message), next))
}

/// The byte offsets where the string literal holding `at` starts its content
/// and where it ends (just past its closing quote), scanning its line from
/// `line_start`.
fn literal_around(source: &str, line_start: usize, at: usize) -> Option<(usize, usize)> {
    let bytes = source.as_bytes();
    let mut i = line_start;
    while i < bytes.len() && bytes[i] != b'\n' {
        let q = bytes[i];
        if q == b'#' {
            return None;
        }
        if q != b'"' && q != b'\'' {
            i += 1;
            continue;
        }
        let triple = bytes.get(i..i + 3) == Some(&[q, q, q][..]);
        let quote_len = if triple { 3 } else { 1 };
        let content = i + quote_len;
        let mut j = content;
        let end = loop {
            match bytes.get(j) {
                None => return None,
                Some(b'\\') => j += 2,
                Some(&b) if b == q && (!triple || bytes.get(j..j + 3) == Some(&[q, q, q][..])) => {
                    break j + quote_len
                }
                Some(_) => j += 1,
            }
        };
        if (content..end).contains(&at) {
            return Some((content, end));
        }
        i = end;
    }
    None
}
