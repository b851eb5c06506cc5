//! Runs every program in tests/programs through the `shardlab` CLI, in
//! parallel and in lockstep mode, and compares with what real JAX did
//! (tests/fixtures/programs, written by tests/jax/gen_programs.py): the
//! `result` within 1e-5 relative / 1e-6 absolute, stdout exactly (float
//! digits within the same tolerance, unless the program has a line
//! `# stdout: exact digits`), and exceptions by type and line.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 + 1e-5 * b.abs()
}

/// Compares a result with the fixture's, returning where they differ.
fn compare(ours: &Value, jax: &Value, path: &str) -> Option<String> {
    match (ours, jax) {
        (Value::Number(a), Value::Number(b)) => {
            let (a, b) = (
                a.as_f64().unwrap_or(f64::NAN),
                b.as_f64().unwrap_or(f64::NAN),
            );
            (!close(a, b)).then(|| format!("{path}: {a} vs JAX {b}"))
        }
        (Value::Array(a), Value::Array(b)) => {
            if a.len() != b.len() {
                return Some(format!("{path}: length {} vs JAX {}", a.len(), b.len()));
            }
            a.iter()
                .zip(b)
                .enumerate()
                .find_map(|(i, (x, y))| compare(x, y, &format!("{path}[{i}]")))
        }
        (Value::Object(a), Value::Object(b)) => {
            let mut ka: Vec<&String> = a.keys().collect();
            let mut kb: Vec<&String> = b.keys().collect();
            ka.sort();
            kb.sort();
            if ka != kb {
                return Some(format!("{path}: keys {ka:?} vs JAX {kb:?}"));
            }
            ka.iter()
                .find_map(|k| compare(&a[*k], &b[*k], &format!("{path}.{k}")))
        }
        (a, b) => (a != b).then(|| format!("{path}: {a} vs JAX {b}")),
    }
}

fn run(program: &Path, lockstep: bool) -> Value {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_shardlab"));
    cmd.arg("run").arg(program).arg("--json");
    // Parallel means a thread per device for every map, however small.
    cmd.arg(if lockstep { "--lockstep" } else { "--parallel" });
    let out = cmd.output().expect("the shardlab binary runs");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{}: stdout is not one JSON object ({e}): {}\nstderr: {}",
            program.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// The words of printed text, with brackets and separators removed. NumPy
/// pads a complex element's real part to its column (`0.5   +2.j`), so a
/// word that only holds a signed imaginary part joins the word before it;
/// a repr's `Array(` is not part of its first number.
fn words(s: &str) -> Vec<String> {
    let mut out: Vec<String> = vec![];
    let parts = s
        .split_whitespace()
        .map(|w| {
            let w = w.trim_start_matches('(');
            w.strip_prefix("Array(").unwrap_or(w)
        })
        .map(|w| w.trim_matches(|c| matches!(c, '[' | ']' | '(' | ')' | ',' | '{' | '}' | ':')))
        .filter(|w| !w.is_empty());
    for w in parts {
        let imaginary = w.ends_with('j') && (w.starts_with('+') || w.starts_with('-'));
        match out.last_mut() {
            Some(prev) if imaginary && !prev.ends_with('j') => prev.push_str(w),
            _ => out.push(w.to_string()),
        }
    }
    out
}

/// The real and imaginary parts of a complex word such as `1.5-2.25e-3j`.
fn complex_parts(w: &str) -> Option<(f64, f64)> {
    let body = w.strip_suffix('j')?;
    let bytes = body.as_bytes();
    let split = (1..bytes.len())
        .rev()
        .find(|&i| matches!(bytes[i], b'+' | b'-') && !matches!(bytes[i - 1], b'e' | b'E'))?;
    Some((body[..split].parse().ok()?, body[split..].parse().ok()?))
}

/// Two printed numbers, real or complex, equal within the tolerance.
fn close_words(x: &str, y: &str) -> bool {
    match (x.parse::<f64>(), y.parse::<f64>()) {
        (Ok(p), Ok(q)) => close(p, q) && x.contains('.') == y.contains('.'),
        _ => match (complex_parts(x), complex_parts(y)) {
            (Some((a, b)), Some((c, d))) => close(a, c) && close(b, d),
            _ => false,
        },
    }
}

/// True when two printouts have the same words and differ only in numbers
/// that agree within the result tolerance. XLA's float32 kernels (sums,
/// tanh, matmul) can round the last digit differently from shardlab's, and
/// NumPy then pads the columns to the longer digit strings; anything else
/// (a different word, a missing value, another format) still fails.
fn same_but_float_digits(ours: &str, jax: &str) -> bool {
    let (a, b) = (words(ours), words(jax));
    let same = a.len() == b.len() && a.iter().zip(&b).all(|(x, y)| x == y || close_words(x, y));
    if same {
        eprintln!("note: stdout differs from JAX only in float32 rounding:\n--- shardlab\n{ours}--- JAX\n{jax}");
    }
    same
}

/// Printed text with the directories before `tests/programs/` left out:
/// source positions (`print_saved_residuals`) name a program by its
/// absolute path, which differs between the checkout that made a fixture
/// and this one.
fn without_checkout(s: &str) -> String {
    let marker = "/tests/programs/";
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find(marker) {
        let start = rest[..i].rfind(char::is_whitespace).map_or(0, |j| j + 1);
        out.push_str(&rest[..start]);
        out.push_str(&marker[1..]);
        rest = &rest[i + marker.len()..];
    }
    out.push_str(rest);
    out
}

/// Programs where shardlab knowingly differs from JAX 0.10.2, with why.
/// They still run; their differences are printed, not counted.
const KNOWN: &[(&str, &str)] = &[
    ("err_unbound_axis_vma", "JAX raises a bare AssertionError for an unbound axis under check_vma=True; shardlab raises the NameError JAX gives elsewhere"),
];

/// True when the program asks for its printed floats to match JAX's to the
/// last digit: programs about rounding (the order of a sum's additions).
fn exact_digits(name: &str) -> bool {
    let path = root().join("tests/programs").join(format!("{name}.py"));
    std::fs::read_to_string(path)
        .is_ok_and(|src| src.lines().any(|l| l.trim() == "# stdout: exact digits"))
}

/// Checks one program in one mode; the list of differences.
fn check(name: &str, fixture: &Value, ours: &Value) -> Vec<String> {
    let mut problems = vec![];
    if let Some(err) = fixture.get("error") {
        let Some(got) = ours.get("error") else {
            problems.push(format!(
                "{name}: JAX raised {} but shardlab finished",
                err["type"]
            ));
            return problems;
        };
        let mro: Vec<&str> = err["mro"]
            .as_array()
            .map(|v| v.iter().filter_map(|x| x.as_str()).collect())
            .unwrap_or_default();
        let ty = got["type"].as_str().unwrap_or("");
        if !mro.contains(&ty) {
            problems.push(format!(
                "{name}: raised {ty} ({}), JAX raised {} ({})",
                got["message"], err["type"], err["message"]
            ));
        }
        if !err["line"].is_null() && got["line"] != err["line"] {
            problems.push(format!(
                "{name}: error at line {} but JAX's is at line {}",
                got["line"], err["line"]
            ));
        }
    } else if let Some(got) = ours.get("error") {
        problems.push(format!(
            "{name}: shardlab raised {}: {} (line {})",
            got["type"], got["message"], got["line"]
        ));
        return problems;
    } else if let Some(d) = compare(&ours["result"], &fixture["result"], "result") {
        problems.push(format!("{name}: {d}"));
    }
    let (so, sj) = (
        without_checkout(ours["stdout"].as_str().unwrap_or("")),
        without_checkout(fixture["stdout"].as_str().unwrap_or("")),
    );
    let (so, sj) = (so.as_str(), sj.as_str());
    if so != sj && (exact_digits(name) || !same_but_float_digits(so, sj)) {
        problems.push(format!(
            "{name}: stdout differs\n--- shardlab\n{}--- JAX\n{}",
            ours["stdout"].as_str().unwrap_or(""),
            fixture["stdout"].as_str().unwrap_or("")
        ));
    }
    problems
}

#[test]
fn programs_match_jax() {
    let dir = root().join("tests/programs");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("tests/programs exists")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|n| n.strip_suffix(".py").map(str::to_string))
        .collect();
    names.sort();
    assert!(
        names.len() >= 40,
        "expected the program suite, found {} programs",
        names.len()
    );
    let mut problems = vec![];
    for name in &names {
        let fixture_path = root().join(format!("tests/fixtures/programs/{name}.json"));
        let text = std::fs::read_to_string(&fixture_path).unwrap_or_else(|_| {
            panic!(
                "missing fixture {} (run tests/jax/gen_programs.py)",
                fixture_path.display()
            )
        });
        let fixture: Value = serde_json::from_str(&text).expect("fixture is JSON");
        let program = dir.join(format!("{name}.py"));
        for lockstep in [false, true] {
            let mode = if lockstep { "lockstep" } else { "parallel" };
            let found = check(name, &fixture, &run(&program, lockstep));
            let known = KNOWN.iter().find(|(n, _)| n == name);
            if found.is_empty() && known.is_some() {
                problems.push(format!(
                    "[{mode}] {name} now matches JAX: remove it from KNOWN"
                ));
            }
            for p in found {
                match known {
                    Some((_, why)) => eprintln!("known difference [{mode}] {p}\n  ({why})\n"),
                    None => problems.push(format!("[{mode}] {p}")),
                }
            }
        }
    }
    for p in &problems {
        eprintln!("{p}\n");
    }
    assert!(
        problems.is_empty(),
        "{} differences from JAX (listed above)",
        problems.len()
    );
}
