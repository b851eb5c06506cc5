//! Grading a learner's function against a problem (see [`problem`] and
//! `docs/exercises.md`): each case runs the learner's source with the
//! case's devices, calls the entry function on the case's arguments,
//! compares what it returned with the expected value ([`compare`]) and
//! evaluates the problem's checks on the run report ([`rules`]).
//!
//! A learner's mistake (a syntax error, an exception, a wrong value) is a
//! failed case with JAX's error type, line and column; only a problem that
//! cannot be read is an error of [`check`]. How a case's program is run is
//! the caller's: the CLI runs it under its time and memory limits, the web
//! build in its coordinator, [`crate::program::run_recorded`] on the calling
//! thread. Each case has a time limit (the problem's `time_limit_s`), which
//! the caller enforces: a run stopped at it ends with `TimeoutError`, and
//! the case fails saying so at the line the solution was running.

pub mod call;
pub mod compare;
pub mod problem;
pub mod rules;
mod text;

use std::time::Duration;

use serde::Serialize;

use crate::program::{Options, Outcome};
use crate::report::Report;
pub use problem::{parse, Case, MeshSpec, Problem};
pub use rules::{Rule, RuleResult};
pub use text::summary;

/// The verdict on a solution: every case's.
#[derive(Debug, Clone, Serialize)]
pub struct Verdict {
    /// The problem's title.
    pub title: String,
    /// True when every case passed.
    pub passed: bool,
    pub cases: Vec<CaseVerdict>,
}

/// The exception that stopped a case, with where it was raised in the
/// learner's source (line 0 when it was raised outside it).
#[derive(Debug, Clone, Serialize)]
pub struct CaseError {
    #[serde(rename = "type")]
    pub kind: String,
    pub message: String,
    pub line: usize,
    pub col: usize,
}

/// One case's verdict.
#[derive(Debug, Clone, Serialize)]
pub struct CaseVerdict {
    pub name: String,
    /// Devices the case ran on.
    pub devices: usize,
    /// A hidden case: its expected value and the returned one are withheld
    /// (null), and its mismatches say where the value differs, not what it
    /// should be.
    pub hidden: bool,
    /// The case's mesh, if it has one.
    pub mesh: Option<MeshSpec>,
    pub passed: bool,
    /// The exception that stopped the run, if one did.
    pub error: Option<CaseError>,
    /// How the returned value differs from the expected one.
    pub mismatches: Vec<String>,
    /// Largest absolute and relative element errors (0 when nothing was
    /// compared).
    pub max_abs_error: f64,
    pub max_rel_error: f64,
    /// What the function returned, in the problem's value format (null
    /// when it raised).
    pub got: Option<serde_json::Value>,
    /// The case's expected value.
    pub expected: serde_json::Value,
    /// Every report check with its outcome.
    pub checks: Vec<RuleResult>,
    /// What the program printed.
    pub stdout: String,
    /// The run report, for a failing case.
    pub report: Option<Report>,
}

/// What runs one case's program: given the program, its options and the
/// case's time limit, it returns the outcome (a `TimeoutError` when the run
/// was stopped at the limit) and the run's report.
pub trait RunCase: FnMut(&str, &Options, Duration) -> (Outcome, Report) {}
impl<F: FnMut(&str, &Options, Duration) -> (Outcome, Report)> RunCase for F {}

/// Grades `source` on every case of `problem`, running each case's program
/// with `run`.
pub fn check(problem: &Problem, source: &str, mut run: impl RunCase) -> Verdict {
    let cases: Vec<CaseVerdict> = problem
        .cases
        .iter()
        .enumerate()
        .map(|(i, case)| check_case(problem, i, case, source, &mut run))
        .collect();
    Verdict {
        title: problem.title.clone(),
        passed: cases.iter().all(|c| c.passed),
        cases,
    }
}

fn check_case(
    problem: &Problem,
    index: usize,
    case: &Case,
    source: &str,
    run: &mut impl RunCase,
) -> CaseVerdict {
    let mut v = CaseVerdict {
        name: case.label(index),
        devices: case.device_count(),
        hidden: case.hidden,
        mesh: case.mesh.clone(),
        passed: false,
        error: None,
        mismatches: vec![],
        max_abs_error: 0.0,
        max_rel_error: 0.0,
        got: None,
        expected: case.expected.clone(),
        checks: vec![],
        stdout: String::new(),
        report: None,
    };
    let program = match call::program(source, &problem.entry, case) {
        Ok(p) => p,
        Err(e) => {
            v.mismatches.push(e);
            return v;
        }
    };
    let options = Options {
        devices: v.devices,
        ..Options::default()
    };
    let limit = Duration::from_secs_f64(problem.time_limit_s);
    let (outcome, report) = run(&program, &options, limit);
    v.stdout = outcome.stdout;
    if let Some(e) = outcome.error {
        let mut error = case_error(e, source, &problem.entry);
        if error.kind == "TimeoutError" {
            error.message = format!(
                "the solution ran past the case's time limit of {} s",
                problem.time_limit_s
            );
        }
        v.error = Some(error);
    } else {
        judge_value(&mut v, case, outcome.result.as_ref());
    }
    if v.error.is_none() {
        v.checks = problem
            .checks
            .iter()
            .chain(&case.checks)
            .map(|r| r.evaluate(&report))
            .collect();
    }
    v.passed = v.error.is_none() && v.mismatches.is_empty() && v.checks.iter().all(|c| c.passed);
    if !v.passed {
        v.report = Some(report);
    }
    if case.hidden {
        withhold(&mut v);
    }
    v
}

/// Removes what would reveal a hidden case's expected value: the values
/// themselves and the numbers in element mismatches (a wrong shape, dtype
/// or structure is still said, as it gives no value away).
fn withhold(v: &mut CaseVerdict) {
    v.expected = serde_json::Value::Null;
    v.got = None;
    for m in &mut v.mismatches {
        let Some((place, rest)) = m.split_once(": expected ") else {
            continue;
        };
        let structural = ["shape ", "dtype ", "keys ", "a ", "an "];
        if structural.iter().any(|s| rest.starts_with(s)) {
            continue;
        }
        let count = rest.find(" (").map_or("", |i| &rest[i..]);
        *m = format!("{place}: differs from the expected value{count}");
    }
}

/// Compares the returned value (the appended call's `result`) with the
/// case's expected one.
fn judge_value(v: &mut CaseVerdict, case: &Case, result: Option<&serde_json::Value>) {
    let got = match result {
        Some(r) if !r.is_null() => compare::got(r),
        _ => Err("the program ended before the entry function was called".into()),
    };
    let expected = compare::expected(&case.expected);
    match (got, expected) {
        (Ok(g), Ok(w)) => {
            let c = compare::compare(&g, &w, case.rtol, case.atol);
            v.got = Some(compare::to_json(&g));
            v.mismatches = c.mismatches;
            v.max_abs_error = c.max_abs_error;
            v.max_rel_error = c.max_rel_error;
        }
        (Err(e), _) | (_, Err(e)) => v.mismatches.push(e),
    }
}

/// The exception of a run as the learner sees it: raised in the appended
/// call (a missing entry function, say), it has no place in their code.
fn case_error(e: crate::program::PyError, source: &str, entry: &str) -> CaseError {
    let mut error = CaseError {
        kind: e.error.type_name().to_string(),
        message: e.error.message.clone(),
        line: e.line,
        col: e.col,
    };
    if e.line > call::line_count(source) {
        error.line = 0;
        error.col = 0;
        error.message = format!("{} (when calling {entry})", error.message);
    }
    error
}
