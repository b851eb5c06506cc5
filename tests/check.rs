//! `shardlab check`: grading solutions of exercises (src/check), through
//! the CLI as a learner's CI would run it, on the example exercises of
//! examples/exercises (expected values from JAX 0.10.2, written by
//! tests/jax/gen_exercises.py) and on small problems made here.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

fn exercises() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/exercises")
}

/// Runs `shardlab check PROBLEM SOLUTION [extra]`: exit code and stdout.
fn check(problem: &Path, solution: &Path, extra: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_shardlab"))
        .arg("check")
        .arg(problem)
        .arg(solution)
        .args(extra)
        .output()
        .expect("shardlab runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// The verdict as JSON, with the exit code.
fn verdict(problem: &Path, solution: &Path) -> (i32, Value) {
    let (code, text) = check(problem, solution, &["--json"]);
    (
        code,
        serde_json::from_str(&text).expect("--json prints JSON"),
    )
}

/// A file of `text` in a directory of this test's own.
fn temp_file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("shardlab-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write temp file");
    path
}

fn example(name: &str) -> (PathBuf, PathBuf, PathBuf) {
    let d = exercises();
    (
        d.join(format!("{name}.json")),
        d.join(format!("{name}.py")),
        d.join(format!("{name}_wrong.py")),
    )
}

fn cases(v: &Value) -> &Vec<Value> {
    v["cases"].as_array().expect("cases")
}

#[test]
fn reference_solutions_pass_on_every_device_count() {
    for name in ["global_sum", "mean_grad", "row_parallel"] {
        let (problem, reference, _) = example(name);
        let (code, v) = verdict(&problem, &reference);
        assert_eq!(code, 0, "{name}: {v}");
        assert_eq!(v["passed"], true);
        let devices: Vec<u64> = cases(&v)
            .iter()
            .map(|c| c["devices"].as_u64().unwrap_or(0))
            .collect();
        assert!(
            devices.contains(&1) && devices.contains(&8),
            "{name}: {devices:?}"
        );
        for c in cases(&v) {
            assert_eq!(c["passed"], true, "{name}: {c}");
            assert!(c["report"].is_null(), "a passing case carries no report");
        }
    }
}

#[test]
fn forgetting_the_psum_is_right_on_one_device_only() {
    let (problem, _, wrong) = example("global_sum");
    let (code, v) = verdict(&problem, &wrong);
    assert_eq!(code, 1);
    let cs = cases(&v);
    // One device: the value is right, the check that a psum ran is not.
    assert_eq!(cs[0]["mismatches"], json!([]));
    assert_eq!(cs[0]["checks"][0]["passed"], false);
    assert!(cs[0]["checks"][0]["detail"]
        .as_str()
        .unwrap_or("")
        .contains("no psum over data ran"));
    // Two devices: device 0's partial sum 1+2+3+4 instead of 36.
    assert_eq!(cs[1]["mismatches"], json!(["result: expected 36, got 10"]));
    assert_eq!(cs[1]["got"], json!({"array": 10.0, "dtype": "float32"}));
    assert_eq!(cs[1]["report"]["maps"][0]["kind"], "shard_map");
}

#[test]
fn psum_instead_of_pmean_is_off_by_the_device_count() {
    let (problem, _, wrong) = example("mean_grad");
    let (_, v) = verdict(&problem, &wrong);
    let cs = cases(&v);
    assert_eq!(cs[0]["passed"], true);
    for c in &cs[1..] {
        let n = c["devices"].as_f64().unwrap_or(0.0);
        assert_eq!(c["passed"], false);
        assert!(
            (c["max_rel_error"].as_f64().unwrap_or(0.0) - (n - 1.0)).abs() < 1e-3,
            "{c}"
        );
    }
}

#[test]
fn unscattered_partial_products_have_the_wrong_shape_and_fail_the_checks() {
    let (problem, _, wrong) = example("row_parallel");
    let (code, text) = check(&problem, &wrong, &[]);
    assert_eq!(code, 1);
    assert!(text.contains("0 of 4 cases pass"), "{text}");
    assert!(
        text.contains("result: expected shape (4, 8), got (4, 16)"),
        "{text}"
    );
    assert!(
        text.contains("check 'uses psum_scatter over model' failed"),
        "{text}"
    );
}

#[test]
fn learner_errors_are_failed_cases_with_line_and_col() {
    let (problem, _, _) = example("global_sum");
    let syntax = temp_file(
        "syntax.py",
        "import jax\n\ndef global_sum(mesh, x)\n    return x\n",
    );
    let (code, v) = verdict(&problem, &syntax);
    assert_eq!(code, 1);
    let e = &cases(&v)[0]["error"];
    assert_eq!(
        (e["type"].as_str(), e["line"].as_u64()),
        (Some("SyntaxError"), Some(3))
    );
    let raises = temp_file(
        "raises.py",
        "import jax\n\ndef global_sum(mesh, x):\n    return undefined_name + x\n",
    );
    let (_, v) = verdict(&problem, &raises);
    let e = &cases(&v)[1]["error"];
    assert_eq!(e["type"], "NameError");
    assert_eq!((e["line"].as_u64(), e["col"].as_u64()), (Some(4), Some(12)));
    let missing = temp_file("missing.py", "def other(mesh, x):\n    return x\n");
    let (_, v) = verdict(&problem, &missing);
    let e = &cases(&v)[0]["error"];
    assert_eq!(
        e["line"], 0,
        "the missing entry is raised by the check's call"
    );
    assert!(e["message"]
        .as_str()
        .unwrap_or("")
        .contains("when calling global_sum"));
}

/// A one-case problem: `f(x)` on `devices` devices must return `expected`.
fn tiny_problem(expected: Value, tolerances: Value, checks: Value) -> PathBuf {
    let mut case = json!({
        "mesh": {"shape": [4], "axes": ["data"]},
        "args": [{"mesh": true}, {"array": [1.0, 2.0, 3.0, 4.0], "dtype": "float32"}],
        "expected": expected,
    });
    if let (Some(c), Some(t)) = (case.as_object_mut(), tolerances.as_object()) {
        c.extend(t.clone());
    }
    let problem = json!({
        "format": "shardlab-exercise/1", "title": "t", "statement": "", "starter": "",
        "entry": "f", "cases": [case], "checks": checks,
    });
    temp_file(
        &format!("p{}.json", rand_name(&problem)),
        &problem.to_string(),
    )
}

fn rand_name(v: &Value) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    v.to_string().hash(&mut h);
    h.finish()
}

const DOUBLE: &str = "\
import jax
from jax.sharding import PartitionSpec as P

def f(mesh, x):
    g = jax.shard_map(lambda b: jax.lax.psum(b * 2.0, 'data'), mesh=mesh,
                      in_specs=P('data'), out_specs=P())
    return g(x)
";

#[test]
fn tolerances_decide_how_close_is_close_enough() {
    let solution = temp_file("double.py", DOUBLE);
    // The psum of 2x over 4 devices of one element each: [20.0].
    let near = json!({"array": [20.001], "dtype": "float32"});
    let strict = tiny_problem(near.clone(), json!({"rtol": 0.0, "atol": 1e-5}), json!([]));
    let loose = tiny_problem(near, json!({"rtol": 1e-4, "atol": 0.0}), json!([]));
    let (code, v) = verdict(&strict, &solution);
    assert_eq!(code, 1);
    assert!(cases(&v)[0]["mismatches"][0]
        .as_str()
        .unwrap_or("")
        .starts_with("result[0]: expected 20.001, got 20"));
    assert_eq!(verdict(&loose, &solution).0, 0);
    let wrong_dtype = tiny_problem(
        json!({"array": [20], "dtype": "int32"}),
        json!({}),
        json!([]),
    );
    let (_, v) = verdict(&wrong_dtype, &solution);
    assert_eq!(
        cases(&v)[0]["mismatches"],
        json!(["result: expected dtype int32, got float32"])
    );
}

#[test]
fn report_checks_pass_and_fail() {
    let solution = temp_file("double2.py", DOUBLE);
    let value = json!({"array": [20.0], "dtype": "float32"});
    let good = json!([
        {"uses": "psum", "axes": ["data"]},
        {"uses": "shard_map"},
        {"avoids": "all_gather"},
        {"output_spec": "P()"}
    ]);
    let (code, v) = verdict(&tiny_problem(value.clone(), json!({}), good), &solution);
    assert_eq!(code, 0, "{v}");
    let bad = json!([
        {"avoids": "psum", "message": "no reduction here"},
        {"uses": "psum", "axes": ["model"]},
        {"output_spec": "P('data')"}
    ]);
    let (code, v) = verdict(&tiny_problem(value, json!({}), bad), &solution);
    assert_eq!(code, 1);
    let details: Vec<&str> = cases(&v)[0]["checks"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| c["detail"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        details,
        [
            "psum ran 1 time(s): no reduction here",
            "no psum over model ran",
            "output 0 of the last shard_map is laid out as P()"
        ]
    );
}

#[test]
fn exit_code_two_for_what_cannot_be_read() {
    let (problem, reference, _) = example("global_sum");
    let bad_problem = temp_file("bad.json", "{\"format\": \"shardlab-exercise/1\"}");
    assert_eq!(check(&bad_problem, &reference, &[]).0, 2);
    let other_format = temp_file(
        "v2.json",
        &std::fs::read_to_string(&problem)
            .unwrap_or_default()
            .replace("exercise/1", "exercise/9"),
    );
    assert_eq!(check(&other_format, &reference, &[]).0, 2);
    assert_eq!(
        check(&problem, Path::new("/nonexistent/solution.py"), &[]).0,
        2
    );
}

#[test]
fn arguments_become_python_expressions() {
    use shardlab::check::call::literal;
    let mesh = shardlab::check::MeshSpec {
        shape: vec![2, 4],
        axes: vec!["data".into(), "model".into()],
    };
    let cases = [
        (json!(null), "None"),
        (json!([1, 2.5, true]), "[1, 2.5, True]"),
        (json!({"tuple": [1]}), "(1,)"),
        (json!({"dict": {"w": 0.5}}), "{\"w\": 0.5}"),
        (
            json!({"array": [[1, 2], [3, 4]], "dtype": "int32"}),
            "jnp.array([[1, 2], [3, 4]], dtype=jnp.int32)",
        ),
        (
            json!({"array": [true, false], "dtype": "bool", "shape": [2, 1]}),
            "jnp.array([True, False], dtype=jnp.bool_).reshape((2, 1,))",
        ),
        (json!({"expr": "jnp.arange(4.0)"}), "(jnp.arange(4.0))"),
        (
            json!({"mesh": true}),
            "Mesh(np.array(jax.devices()[:8]).reshape((2, 4,)), ('data', 'model',))",
        ),
    ];
    for (value, want) in cases {
        assert_eq!(literal(&value, Some(&mesh)).as_deref(), Ok(want), "{value}");
    }
    assert!(literal(&json!({"array": [1.0], "dtype": "float64"}), None).is_err());
    assert!(literal(&json!({"mesh": true}), None).is_err());
    assert!(literal(&json!({"tuple": [], "dict": {}}), None).is_err());
}

#[test]
fn problems_that_break_the_format_are_refused_with_the_reason() {
    let base = json!({
        "format": "shardlab-exercise/1", "title": "t", "statement": "", "starter": "", "entry": "f",
        "cases": [{"mesh": {"shape": [4], "axes": ["data"]}, "devices": 2, "expected": 1.0}],
    });
    let err = shardlab::check::parse(&base.to_string())
        .err()
        .unwrap_or_default();
    assert!(
        err.contains("mesh (data=4) needs 4 devices; the case has 2"),
        "{err}"
    );
    let mut bad_check = base.clone();
    bad_check["cases"][0]["devices"] = json!(4);
    bad_check["checks"] = json!([{"uses": "psum", "avoids": "all_gather"}]);
    let err = shardlab::check::parse(&bad_check.to_string())
        .err()
        .unwrap_or_default();
    assert!(
        err.contains("exactly one of uses, avoids, output_spec"),
        "{err}"
    );
    let mut bad_entry = base;
    bad_entry["entry"] = json!("not a name");
    assert!(shardlab::check::parse(&bad_entry.to_string()).is_err());
}
