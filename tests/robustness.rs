//! Property: random and mutated programs never make the parser, the tracer or
//! the interpreter panic. Every run ends with an outcome (a result or a Python
//! exception), whatever the input.
//!
//! The mutations start from the program suite (tests/programs/*.py), so they
//! reach deep into the jax, numpy, flax and optax modules rather than failing
//! at the first token.

use std::panic::{catch_unwind, AssertUnwindSafe};

use proptest::prelude::*;
use shardlab::program::{run, Options};

fn corpus() -> Vec<String> {
    let dir = format!("{}/tests/programs", env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "py"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect()
}

/// One edit of a program's lines or characters.
#[derive(Debug, Clone)]
enum Edit {
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

fn apply(source: &str, edit: &Edit) -> String {
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
                Edit::DeleteChar(_) => {}
                Edit::InsertChar(_, c) => out.push(c),
                Edit::ReplaceToken(_, t) => out.push_str(t),
                _ => unreachable!(),
            }
            let skip = usize::from(!matches!(edit, Edit::InsertChar(..)));
            out.extend(chars.iter().skip(at + skip.min(chars.len() - at)));
            return out;
        }
        _ => {}
    }
    lines.join("\n")
}

fn edit_strategy() -> impl Strategy<Value = Edit> {
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

/// Runs `source` and fails if anything panicked.
fn runs_without_panic(source: &str, lockstep: bool) -> Result<(), TestCaseError> {
    let options = Options {
        mode: if lockstep {
            shardlab::exec::Mode::Lockstep
        } else {
            shardlab::exec::Mode::Parallel
        },
        max_steps: 200_000,
        ..Options::default()
    };
    let outcome = catch_unwind(AssertUnwindSafe(|| run(source, &options)));
    prop_assert!(outcome.is_ok(), "panicked on:\n{source}");
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn mutated_programs_never_panic(
        pick in any::<usize>(),
        edits in prop::collection::vec(edit_strategy(), 1..4),
        lockstep in any::<bool>(),
    ) {
        let programs = corpus();
        let mut source = programs[pick % programs.len()].clone();
        for e in &edits {
            source = apply(&source, e);
        }
        runs_without_panic(&source, lockstep)?;
    }

    #[test]
    fn arbitrary_text_never_panics(source in "\\PC{0,200}") {
        runs_without_panic(&source, true)?;
    }
}
