//! Programs made by editing the program suite (tests/programs/*.py): they
//! reach deep into the jax, numpy, flax and optax modules rather than failing
//! at the first token.
#![allow(dead_code)]

use proptest::prelude::*;

/// The text of every program of the suite, in name order.
pub fn corpus() -> Vec<String> {
    let dir = format!("{}/tests/programs", env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/programs exists")
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "py"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| std::fs::read_to_string(p).expect("a program is UTF-8"))
        .collect()
}

/// One edit of a program's lines or characters.
#[derive(Debug, Clone)]
pub enum Edit {
    DeleteLine(usize),
    DuplicateLine(usize),
    SwapLines(usize, usize),
    DeleteChar(usize),
    InsertChar(usize, char),
    ReplaceToken(usize, &'static str),
}

const TOKENS: &[&str] = &[
    "0",
    "-1",
    "2.5",
    "None",
    "()",
    "[]",
    "'x'",
    "('x', 'y')",
    "P()",
    "P('x')",
    "jnp.ones((3,))",
    "x",
    "lambda a: a",
    "1e30",
    "True",
    ":",
    "(",
    ")",
    "]",
    ",",
    "**",
    "@",
    "\n    ",
];

/// `source` with one edit made; positions wrap around its length.
pub fn apply(source: &str, edit: &Edit) -> String {
    let mut lines: Vec<&str> = source.lines().collect();
    let n = lines.len().max(1);
    match *edit {
        Edit::DeleteLine(i) if !lines.is_empty() => {
            lines.remove(i % n);
        }
        Edit::DuplicateLine(i) if !lines.is_empty() => {
            let l = lines[i % n];
            lines.insert(i % n, l);
        }
        Edit::SwapLines(i, j) if !lines.is_empty() => lines.swap(i % n, j % n),
        Edit::DeleteChar(i) | Edit::InsertChar(i, _) | Edit::ReplaceToken(i, _) => {
            let chars: Vec<char> = source.chars().collect();
            let at = i % chars.len().max(1);
            let mut out: String = chars[..at].iter().collect();
            match *edit {
                Edit::InsertChar(_, c) => out.push(c),
                Edit::ReplaceToken(_, t) => out.push_str(t),
                _ => {}
            }
            let skip = usize::from(!matches!(edit, Edit::InsertChar(..)));
            out.extend(chars.iter().skip(at + skip.min(chars.len() - at)));
            return out;
        }
        _ => {}
    }
    lines.join("\n")
}

pub fn edit_strategy() -> impl Strategy<Value = Edit> {
    prop_oneof![
        any::<usize>().prop_map(Edit::DeleteLine),
        any::<usize>().prop_map(Edit::DuplicateLine),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Edit::SwapLines(a, b)),
        any::<usize>().prop_map(Edit::DeleteChar),
        (any::<usize>(), proptest::char::any()).prop_map(|(a, c)| Edit::InsertChar(a, c)),
        (any::<usize>(), proptest::sample::select(TOKENS))
            .prop_map(|(a, t)| Edit::ReplaceToken(a, t)),
    ]
}

/// A program of the suite, picked by `pick`, with `edits` made in turn.
pub fn mutated(programs: &[String], pick: usize, edits: &[Edit]) -> String {
    let mut source = programs[pick % programs.len()].clone();
    for e in edits {
        source = apply(&source, e);
    }
    source
}
