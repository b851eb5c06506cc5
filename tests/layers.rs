//! The layering `src/lib.rs` states: the interpreter core (`src/python/`)
//! never names the modules built on it (`src/modules/`), and the engine
//! below the front end never names the front end. A use of a forbidden
//! layer in code (not in comments) fails this test with the file and line.
//! The engine never names the report either: the report observes runs
//! through `exec::run::Observer`.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Lines of code in `dir` (comments stripped) that contain any of `needles`.
fn uses(dir: &str, needles: &[&str]) -> Vec<String> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("src")
        .join(dir);
    let mut files = vec![];
    rust_files(&root, &mut files);
    assert!(!files.is_empty(), "no Rust files under src/{dir}");
    let mut found = vec![];
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap_or_default();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if needles.iter().any(|x| code.contains(x)) {
                found.push(format!("{}:{}: {}", f.display(), n + 1, line.trim()));
            }
        }
    }
    found
}

#[test]
fn the_interpreter_core_never_names_a_module() {
    let found = uses("python", &["crate::modules", "modules::", "crate::program"]);
    assert!(
        found.is_empty(),
        "the core reaches into the modules:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_engine_never_names_the_front_end() {
    for layer in [
        "array",
        "ir",
        "primitives",
        "trace",
        "ops",
        "transforms",
        "fabric",
        "collectives",
        "exec",
        "random",
    ] {
        let found = uses(
            layer,
            &["crate::python", "crate::modules", "crate::program"],
        );
        assert!(
            found.is_empty(),
            "src/{layer} names the front end:\n{}",
            found.join("\n")
        );
    }
}

#[test]
fn the_engine_never_names_the_report() {
    // The report is built by an observer of the run (`report::Recorder`);
    // the evaluator and everything below it know only the observer trait.
    for layer in [
        "array",
        "ir",
        "primitives",
        "trace",
        "ops",
        "transforms",
        "partition",
        "fabric",
        "collectives",
        "exec",
        "random",
    ] {
        let found = uses(layer, &["crate::report", "report::"]);
        assert!(
            found.is_empty(),
            "src/{layer} names the report:\n{}",
            found.join("\n")
        );
    }
}

#[test]
fn the_fabric_and_collectives_never_name_the_evaluator() {
    for layer in ["fabric", "collectives"] {
        let found = uses(layer, &["crate::exec", "exec::"]);
        assert!(
            found.is_empty(),
            "src/{layer} names exec:\n{}",
            found.join("\n")
        );
    }
}
