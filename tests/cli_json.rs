//! Every way `shardlab run --json` can end answers with one JSON object on
//! stdout and the exit status a caller can act on: 0 when the program ran,
//! 1 when it raised, 2 when it never ran (a bad command line, a file that
//! cannot be read) or its report could not be written. No panic text.

use std::path::PathBuf;
use std::process::Command;

/// What one command line printed and how it ended.
struct Answer {
    code: Option<i32>,
    json: serde_json::Value,
    stderr: String,
}

fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("shardlab-cli-json-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("the temporary directory is writable");
    dir
}

/// A program file in the scratch directory.
fn program(name: &str, text: &str) -> String {
    let file = scratch().join(name);
    std::fs::write(&file, text).expect("the scratch file is writable");
    file.to_string_lossy().into_owned()
}

/// Runs `shardlab ARGS` and reads its one JSON object.
fn shardlab(args: &[&str]) -> Answer {
    let out = Command::new(env!("CARGO_BIN_EXE_shardlab"))
        .args(args)
        .output()
        .expect("shardlab starts");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(
        stdout.trim().lines().count(),
        1,
        "{args:?}: one line of JSON, not {stdout:?} (stderr {stderr:?})"
    );
    let json = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("{args:?}: stdout is not JSON ({e}): {stdout:?}"));
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    Answer {
        code: out.status.code(),
        json,
        stderr,
    }
}

/// Asserts an error answer: its exit status, type and a part of its message.
fn assert_error(args: &[&str], code: i32, kind: &str, says: &str) -> Answer {
    let a = shardlab(args);
    assert_eq!(a.code, Some(code), "{args:?}: {}", a.json);
    assert_eq!(a.json["error"]["type"], kind, "{args:?}: {}", a.json);
    let message = a.json["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains(says),
        "{args:?}: {message:?} lacks {says:?}"
    );
    assert!(a.stderr.contains(says), "{args:?}: stderr {:?}", a.stderr);
    a
}

#[test]
fn usage_errors_answer_in_json_with_status_2() {
    let ok = program("ok.py", "print(1)\n");
    let cases: &[(&[&str], &str)] = &[
        (
            &["run", "--json", "--frobnicate", &ok],
            "unknown option '--frobnicate'",
        ),
        (&["run", "--json"], "missing the program file"),
        (
            &["run", "--json", &ok, &ok],
            "only one program file may be given",
        ),
        (&["run", "--json", "--devices", "0", &ok], "from 1 to 64"),
        (&["run", "--json", "--devices=65", &ok], "from 1 to 64"),
        (&["run", "--json", &ok, "--devices"], "from 1 to 64"),
        (
            &["run", "--json", "--timeout", "-1", &ok],
            "--timeout needs",
        ),
        (
            &["run", "--json", "--timeout", "soon", &ok],
            "--timeout needs",
        ),
        (
            &["run", "--json", "--max-memory", "lots", &ok],
            "--max-memory needs",
        ),
        (
            &["run", "--json", &ok, "--report"],
            "--report needs an output file",
        ),
        // --json after the file, and before an unknown command.
        (
            &["run", &ok, "--bogus", "--json"],
            "unknown option '--bogus'",
        ),
        (&["rn", "--json", &ok], "unknown command 'rn'"),
    ];
    for (args, says) in cases {
        assert_error(args, 2, "UsageError", says);
    }
}

#[test]
fn files_that_cannot_be_read_answer_in_json_with_status_2() {
    let dir = scratch();
    let missing = dir.join("missing.py").to_string_lossy().into_owned();
    assert_error(
        &["run", "--json", &missing],
        2,
        "FileNotFoundError",
        "cannot read",
    );
    let folder = dir.join("folder.py");
    std::fs::create_dir_all(&folder).expect("the scratch directory is writable");
    let folder = folder.to_string_lossy().into_owned();
    assert_error(
        &["run", "--json", &folder],
        2,
        "IsADirectoryError",
        "it is a directory",
    );
    let latin = dir.join("latin1.py");
    std::fs::write(&latin, b"print('caf\xe9')\n").expect("the scratch file is writable");
    let latin = latin.to_string_lossy().into_owned();
    assert_error(
        &["run", "--json", &latin],
        2,
        "SyntaxError",
        "Non-UTF-8 code",
    );
}

#[test]
fn a_report_that_cannot_be_written_keeps_the_output() {
    let ok = program("printed.py", "print('kept')\nresult = 2\n");
    let nowhere = scratch()
        .join("no-such-dir")
        .join("report.json")
        .to_string_lossy()
        .into_owned();
    let a = assert_error(
        &["run", "--json", "--report", &nowhere, &ok],
        2,
        "FileNotFoundError",
        "cannot write the report",
    );
    assert_eq!(a.json["stdout"], "kept\n");
}

#[test]
fn check_answers_in_json_on_its_error_paths() {
    let solution = program("solution.py", "def f(x):\n    return x\n");
    let problem = program("problem.json", "{ not json");
    let missing = scratch()
        .join("no-problem.json")
        .to_string_lossy()
        .into_owned();
    assert_error(
        &["check", "--json", "--bogus"],
        2,
        "UsageError",
        "unknown option",
    );
    assert_error(
        &["check", "--json", &solution],
        2,
        "UsageError",
        "give the problem file",
    );
    assert_error(
        &["check", "--json", &missing, &solution],
        2,
        "FileNotFoundError",
        "cannot read",
    );
    assert_error(
        &["check", "--json", &problem, &solution],
        2,
        "ValueError",
        "problem.json",
    );
}

#[test]
fn runs_answer_with_status_0_or_1() {
    let ok = program("fine.py", "print('hi')\nresult = 6 * 7\n");
    let a = shardlab(&["run", "--json", &ok]);
    assert_eq!(a.code, Some(0), "{}", a.json);
    assert_eq!(a.json["stdout"], "hi\n");
    assert!(a.json.get("error").is_none(), "{}", a.json);
    let bad = program("raises.py", "print('before')\nraise KeyError('k')\n");
    let a = shardlab(&["run", "--json", &bad]);
    assert_eq!(a.code, Some(1), "{}", a.json);
    assert_eq!(a.json["error"]["type"], "KeyError");
    assert_eq!(a.json["error"]["line"], 2);
    assert_eq!(a.json["stdout"], "before\n");
    let syntax = program("syntax.py", "x = (1,\n");
    let a = shardlab(&["run", "--json", &syntax]);
    assert_eq!(a.code, Some(1), "{}", a.json);
    assert_eq!(a.json["error"]["type"], "SyntaxError");
}
