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

/// Every problem of examples/exercises.
const EXERCISES: [&str; 12] = [
    "global_sum",
    "mean_grad",
    "row_parallel",
    "pmap_mean",
    "shard_vmap",
    "dense_shards",
    "gather_scatter",
    "ring",
    "all_to_all",
    "vma_grad",
    "fsdp",
    "nnx_data_parallel",
];

#[test]
fn every_problem_is_listed_and_has_a_wrong_solution() {
    let mut on_disk: Vec<String> = std::fs::read_dir(exercises())
        .expect("examples/exercises")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|f| f.strip_suffix(".json").map(str::to_string))
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = EXERCISES.iter().map(|s| s.to_string()).collect();
    listed.sort();
    assert_eq!(on_disk, listed);
    for name in EXERCISES {
        let (problem, _, wrong) = example(name);
        assert!(wrong.exists(), "{name}_wrong.py");
        let p = shardlab::check::parse(&std::fs::read_to_string(&problem).unwrap_or_default());
        let p = p.unwrap_or_else(|e| panic!("{name}: {e}"));
        let devices: Vec<usize> = p.cases.iter().map(|c| c.device_count()).collect();
        for n in [1, 2, 4, 8] {
            assert!(devices.contains(&n), "{name}: {devices:?}");
        }
    }
}

#[test]
fn reference_solutions_pass_on_every_device_count() {
    for name in EXERCISES {
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
        // The loss is n times the mean; the gradient, already summed over
        // the devices, is summed once more: n * n times.
        assert!(
            c["mismatches"][0]
                .as_str()
                .unwrap_or("")
                .starts_with("result[0]: expected 1.529"),
            "{c}"
        );
        assert!(
            (c["max_rel_error"].as_f64().unwrap_or(0.0) - (n * n - 1.0)).abs() < 1e-2,
            "{c}"
        );
    }
}

#[test]
fn unscattered_partial_products_have_the_wrong_shape_and_fail_the_checks() {
    let (problem, _, wrong) = example("row_parallel");
    let (code, text) = check(&problem, &wrong, &[]);
    assert_eq!(code, 1);
    assert!(text.contains("0 of 5 cases pass"), "{text}");
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

#[test]
fn an_endless_loop_fails_its_case_at_the_time_limit_and_the_next_case_runs() {
    // Case 1 (x sums to 10) loops forever; case 2 (x sums to 4) returns.
    let case = |xs: [f64; 4], sum: f64| {
        json!({"mesh": {"shape": [4], "axes": ["data"]},
               "args": [{"mesh": true}, {"array": xs, "dtype": "float32"}], "expected": sum})
    };
    let problem = json!({
        "format": "shardlab-exercise/1", "title": "t", "statement": "", "starter": "", "entry": "f",
        "time_limit_s": 1.5,
        "cases": [case([1.0, 2.0, 3.0, 4.0], 10.0), case([1.0, 1.0, 1.0, 1.0], 4.0)],
    });
    let problem = temp_file("time_limit.json", &problem.to_string());
    let endless = temp_file(
        "endless.py",
        "import jax.numpy as jnp\n\ndef f(mesh, x):\n    total = float(jnp.sum(x))\n    \
         while total > 5:\n        total += 1\n    return total\n",
    );
    let start = std::time::Instant::now();
    let (code, v) = verdict(&problem, &endless);
    assert!(
        start.elapsed().as_secs_f64() < 12.0,
        "{:?}",
        start.elapsed()
    );
    assert_eq!(code, 1);
    let e = &cases(&v)[0]["error"];
    assert_eq!(e["type"], "TimeoutError");
    assert_eq!(
        e["message"],
        "the solution ran past the case's time limit of 1.5 s"
    );
    assert!(matches!(e["line"].as_u64(), Some(5 | 6)), "{e}");
    assert_eq!(cases(&v)[1]["passed"], true, "{}", cases(&v)[1]);
    // `--timeout` replaces the problem's limit.
    let (_, text) = check(&problem, &endless, &["--json", "--timeout", "0.5"]);
    let v: Value = serde_json::from_str(&text).expect("--json prints JSON");
    assert_eq!(
        cases(&v)[0]["error"]["message"],
        "the solution ran past the case's time limit of 0.5 s"
    );
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
    let mut bad_limit = base.clone();
    bad_limit["cases"][0]["devices"] = json!(4);
    bad_limit["time_limit_s"] = json!(0);
    let err = shardlab::check::parse(&bad_limit.to_string())
        .err()
        .unwrap_or_default();
    assert!(
        err.contains("time_limit_s must be more than 0 and at most 600 seconds, not 0"),
        "{err}"
    );
    let mut bad_entry = base;
    bad_entry["entry"] = json!("not a name");
    assert!(shardlab::check::parse(&bad_entry.to_string()).is_err());
}

/// Runs a wrong solution: the text verdict, which must fail.
fn wrong_text(name: &str) -> String {
    let (problem, _, wrong) = example(name);
    let (code, text) = check(&problem, &wrong, &[]);
    assert_eq!(code, 1, "{name}: {text}");
    text
}

fn assert_has(text: &str, wanted: &[&str]) {
    for w in wanted {
        assert!(text.contains(w), "wanted {w:?} in\n{text}");
    }
}

#[test]
fn a_per_device_mean_is_caught_by_value_and_by_the_pmean_check() {
    let text = wrong_text("pmap_mean");
    assert_has(
        &text,
        &[
            "0 of 4 cases pass",
            "result[0, 0]: expected -2.3629656, got -0.7677765 (16 of 16 elements differ)",
            "check 'uses pmean over i' failed: no pmean over i ran: each device knows only its own row's mean",
        ],
    );
}

#[test]
fn shard_map_without_vmap_normalises_whole_blocks() {
    let text = wrong_text("shard_vmap");
    // Only the shard_map result (result[1]) differs from the vmap one.
    assert_has(
        &text,
        &[
            "0 of 4 cases pass",
            "result[1][0, 0]: expected 0.23006427, got 0.05885945",
        ],
    );
    assert!(!text.contains("result[0]"), "{text}");
}

#[test]
fn column_blocks_stacked_as_rows_have_the_wrong_shape_and_layout() {
    let text = wrong_text("dense_shards");
    assert_has(
        &text,
        &[
            "result[0]: expected shape (4, 16), got (8, 8)",
            "result[1]: expected shape (4, 16), got (16, 4)",
            "failed: output 0 of the last shard_map is laid out as P('model',): each device holds a block of the output's columns",
        ],
    );
}

#[test]
fn gathering_partial_sums_instead_of_scattering_them() {
    let text = wrong_text("gather_scatter");
    assert_has(
        &text,
        &[
            "result[1]: expected shape (4, 8), got (4, 32)",
            "check 'uses psum_scatter over model' failed: no psum_scatter over model ran: the row-parallel layer's blocks are partial sums of y",
        ],
    );
    assert!(
        !text.contains("uses all_gather over model' failed"),
        "{text}"
    );
}

#[test]
fn a_ring_turned_the_wrong_way_is_right_on_two_devices_only() {
    let (problem, _, wrong) = example("ring");
    let (_, v) = verdict(&problem, &wrong);
    let passed: Vec<bool> = cases(&v)
        .iter()
        .map(|c| c["passed"].as_bool().unwrap_or(true))
        .collect();
    assert_eq!(passed, [true, true, false, false]);
    // 8 devices, visible: device 0 should get device 7's block (28, 29),
    // the wrong way round it gets device 1's (4, 5).
    assert_eq!(
        cases(&v)[3]["mismatches"],
        json!(["result[0, 0]: expected 28, got 4 (32 of 32 elements differ)"])
    );
}

#[test]
fn a_softmax_over_row_blocks_needs_the_all_to_all() {
    let text = wrong_text("all_to_all");
    assert_has(
        &text,
        &[
            "result[0, 0]: expected 0.042203877, got 0.07702336 (128 of 128 elements differ)",
            "check 'uses all_to_all over data' failed",
            "check 'output 0 laid out as P(None, 'data')' failed",
        ],
    );
}

#[test]
fn pmean_of_an_already_summed_gradient_is_the_sum() {
    let (problem, _, wrong) = example("vma_grad");
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
    assert_eq!(
        cs[1]["mismatches"],
        json!(["result[0]: expected -1.2601058, got -2.5202117 (3 of 3 elements differ)"])
    );
}

#[test]
fn hidden_cases_withhold_their_values() {
    let (problem, _, wrong) = example("vma_grad");
    let (_, v) = verdict(&problem, &wrong);
    let hidden = &cases(&v)[3];
    assert_eq!(hidden["hidden"], true);
    assert!(hidden["expected"].is_null() && hidden["got"].is_null());
    assert_eq!(
        hidden["mismatches"],
        json!(["result[0]: differs from the expected value (3 of 3 elements differ)"])
    );
    assert!(
        hidden["report"]["maps"].is_array(),
        "the devices are still shown"
    );
    // A wrong shape is still said on a hidden case: it gives no value away.
    let (problem, _, wrong) = example("dense_shards");
    let (_, v) = verdict(&problem, &wrong);
    assert_eq!(
        cases(&v)[3]["mismatches"][0],
        "result[0]: expected shape (4, 16), got (32, 2)"
    );
    let (_, text) = check(&problem, &wrong, &[]);
    assert!(text.contains("8 devices (mesh model=8, hidden)"), "{text}");
}

#[test]
fn an_fsdp_gradient_cut_from_the_gathered_copy_misses_the_reduce_scatter() {
    let text = wrong_text("fsdp");
    assert_has(
        &text,
        &[
            "0 of 4 cases pass",
            "result[1][0, 0]: expected 0.06889145, got 0.15881798 (32 of 32 elements differ)",
            "check 'uses psum_scatter over data' failed: no psum_scatter over data ran: the gradient of every device's slice must add all devices' contributions",
        ],
    );
    // The loss is right: only the gradient lacks the other devices' share.
    assert!(!text.contains("result[0]"), "{text}");
}

#[test]
fn the_nnx_step_simulated_on_one_device_agrees_with_shard_map() {
    // A loop over the batch's shards that averages their gradients computes
    // the step shard_map computes: every value matches JAX's; only the check
    // that a pmean ran fails, since nothing ran on several devices.
    let d = exercises();
    let simulated = d.join("nnx_data_parallel_simulated.py");
    let (code, v) = verdict(&d.join("nnx_data_parallel.json"), &simulated);
    assert_eq!(code, 1, "{v}");
    for c in cases(&v) {
        assert_eq!(c["mismatches"], json!([]), "{c}");
        let failed: Vec<&str> = c["checks"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|k| k["passed"] == false)
            .map(|k| k["check"].as_str().unwrap_or(""))
            .collect();
        assert_eq!(failed, ["uses pmean over data"], "{c}");
    }
}

#[test]
fn summed_nnx_gradients_take_a_step_too_long() {
    let text = wrong_text("nnx_data_parallel");
    // On 2 devices the bias moves twice as far as it should.
    assert_has(
        &text,
        &[
            "1 of 5 cases pass",
            "result[2][0]: expected 0.004354867, got 0.008709734 (2 of 2 elements differ)",
        ],
    );
}
