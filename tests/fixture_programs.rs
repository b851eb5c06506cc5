//! Runs every program of the JAX fixture corpus (tests/fixtures/{collectives,
//! sharding,transforms,grads,seeds,errors,jaxpr}.json, written by
//! tests/jax/gen_fixtures.py) through the `shardlab` CLI, in parallel and in
//! lockstep mode, and compares with what JAX 0.10.2 did:
//!
//! - outputs: the JSON `result` is flattened into leaves named as the
//!   fixtures name them (`grads.w`, `0`, `1.0`, a bare array is `out`); every
//!   leaf must have the recorded shape, the recorded kind of dtype (float,
//!   int or bool: the CLI's JSON does not tell float32 from float64) and
//!   values within 1e-5 relative / 1e-6 absolute;
//! - errors: the same exception class (or one of its bases, as an `except`
//!   clause would see it), and a message that names the same key facts: the
//!   numbers and the quoted names in JAX's message;
//! - jaxprs: the sequence of primitives the program's `jaxpr` applies (the
//!   full text differs in parameters shardlab does not print, see KNOWN);
//! - stdout, where recorded, word for word.
//!
//! `per_device` shards are not compared: the CLI's JSON holds global values.
//!
//! Cases listed in KNOWN differ from JAX for the reason given; they still
//! run, their differences are printed, and the test fails when one of them
//! starts to match (so that the list stays accurate).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const GROUPS: &[&str] = &[
    "collectives",
    "sharding",
    "transforms",
    "grads",
    "seeds",
    "errors",
    "jaxpr",
];

/// Cases where shardlab knowingly differs from JAX 0.10.2, as `group/name`.
const KNOWN: &[(&str, &str)] = &[
    ("transforms/vmap_ppermute_partial", "JAX's vmap accepts only full permutations (AssertionError); shardlab's vmap fills receivers of a partial permutation with zeros as shard_map does"),
    ("errors/vmap_ppermute_partial_permutation", "JAX's vmap accepts only full permutations (AssertionError); shardlab's vmap fills receivers of a partial permutation with zeros as shard_map does"),
    ("transforms/vmap_named_inside_shard_map", "JAX 0.10.2 raises a bare AssertionError for a collective over a vmapped axis under check_vma=True; shardlab runs it"),
    ("errors/unbound_axis_name_in_psum", "JAX 0.10.2 raises a bare AssertionError for an unbound axis under check_vma=True; shardlab raises the NameError JAX gives everywhere else"),
    ("transforms/nested_vmap_psum_both_axes", "a psum over a vmapped axis together with other axes is not supported yet"),
    ("transforms/vmap_over_shard_map", "a shard_map inside a vmap body is not supported yet"),
    ("grads/jnp_grad_indexing", "the gradient of a strided slice (x[:, ::2]) is not implemented in the engine"),
    ("errors/pmap_more_devices_than_exist", "JAX 0.10.2's pmap shards 9 rows over 8 devices and raises IndivisibleError; shardlab reports that 9 devices are needed"),
    ("errors/mesh_axis_used_twice_in_spec", "shardlab raises ValueError; JAX's DuplicateSpecError derives from Exception only"),
    ("errors/mesh_axis_used_twice_in_shard_map_spec", "shardlab raises ValueError; JAX's DuplicateSpecError derives from Exception only"),
    ("errors/shard_map_dim_not_divisible", "message: JAX names the Python parameter ('b') and the mesh shape; shardlab names the argument's index"),
    ("errors/spec_rank_above_array_rank", "message: JAX names the Python parameter ('b'); shardlab names the argument's index"),
    ("errors/in_specs_count_mismatch", "message: JAX gives both tuple lengths (1 and 2); shardlab prints both trees"),
    ("jaxpr/grad_small_function", "jaxpr: JAX's linearized grad (sub, add_any) and shardlab's (integer_pow, add) apply different primitives"),
    ("jaxpr/vmap", "jaxpr: JAX inlines the batched body; shardlab's jaxpr keeps a vmap equation"),
    ("jaxpr/vmap_named_psum", "jaxpr: JAX inlines the batched body; shardlab's jaxpr keeps a vmap equation"),
    ("jaxpr/pmap_psum", "jaxpr: JAX 0.10.2 stages pmap as jit(shard_map); shardlab keeps an xla_pmap equation"),
    ("grads/jaxpr_grad_psum_loss_check_vma_true", "jaxpr: the transposed shard_map of the grad differs (JAX adds reshard/squeeze, shardlab orders the cotangent ops differently)"),
    ("grads/jaxpr_grad_psum_loss_check_vma_false", "jaxpr: the transposed shard_map of the grad differs (JAX adds reshard/squeeze, shardlab orders the cotangent ops differently)"),
];

/// Exception classes of JAX's that derive from a builtin one: shardlab may
/// raise the base class, which an `except` clause in the program would catch.
const BASES: &[(&str, &str)] = &[("IndivisibleError", "ValueError")];

/// Names in JAX's messages that are JAX internals, not facts about the program.
const INTERNAL_NAMES: &[&str] = &["_rem_singleton", "_internal_pmap_axis_name"];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 + 1e-5 * b.abs()
}

/// The leaves of the CLI's `result`, named the way the fixtures name pytree
/// leaves. A nested list is one array when the fixture has a leaf of that
/// name, and a sequence of subtrees otherwise; `null` is an empty subtree.
fn flatten(
    v: &Value,
    path: &mut Vec<String>,
    expected: &BTreeMap<String, Value>,
    out: &mut BTreeMap<String, Value>,
) {
    let name = if path.is_empty() {
        "out".to_string()
    } else {
        path.join(".")
    };
    if expected.contains_key(&name) {
        out.insert(name, v.clone());
        return;
    }
    match v {
        Value::Null => {}
        Value::Object(m) => {
            for (k, x) in m {
                path.push(k.clone());
                flatten(x, path, expected, out);
                path.pop();
            }
        }
        Value::Array(items) => {
            for (i, x) in items.iter().enumerate() {
                path.push(i.to_string());
                flatten(x, path, expected, out);
                path.pop();
            }
        }
        _ => {
            out.insert(name, v.clone());
        }
    }
}

/// The shape of a nested list and its elements in row-major order, or why
/// the nesting is ragged.
fn shape_and_data(v: &Value, expected_shape: &[usize]) -> Result<(Vec<usize>, Vec<Value>), String> {
    fn rec(
        v: &Value,
        depth: usize,
        shape: &mut Vec<usize>,
        data: &mut Vec<Value>,
        hint: &[usize],
    ) -> Result<(), String> {
        match v {
            Value::Array(items) => {
                if shape.len() == depth {
                    shape.push(items.len());
                } else if shape.len() < depth || shape[depth] != items.len() {
                    return Err("ragged nested list".into());
                }
                if items.is_empty() {
                    // The dimensions below an empty one are not in the JSON.
                    shape.extend(hint.iter().skip(depth + 1));
                }
                for x in items {
                    rec(x, depth + 1, shape, data, hint)?;
                }
                Ok(())
            }
            x => {
                if shape.len() != depth {
                    return Err("ragged nested list".into());
                }
                data.push(x.clone());
                Ok(())
            }
        }
    }
    let (mut shape, mut data) = (vec![], vec![]);
    rec(v, 0, &mut shape, &mut data, expected_shape)?;
    Ok((shape, data))
}

fn compare_leaf(name: &str, ours: &Value, jax: &Value) -> Option<String> {
    let shape: Vec<usize> = jax["shape"]
        .as_array()
        .map(|s| {
            s.iter()
                .filter_map(|d| d.as_u64())
                .map(|d| d as usize)
                .collect()
        })
        .unwrap_or_default();
    let dtype = jax["dtype"].as_str().unwrap_or("");
    let (got_shape, data) = match shape_and_data(ours, &shape) {
        Ok(x) => x,
        Err(e) => return Some(format!("{name}: {e}")),
    };
    if got_shape != shape {
        return Some(format!("{name}: shape {got_shape:?} vs JAX {shape:?}"));
    }
    let expected = jax["data"].as_array().cloned().unwrap_or_default();
    if dtype == "float0" {
        return None;
    }
    if data.len() != expected.len() {
        return Some(format!(
            "{name}: {} values vs JAX {}",
            data.len(),
            expected.len()
        ));
    }
    for (i, (x, y)) in data.iter().zip(&expected).enumerate() {
        let ok = match (dtype, x, y) {
            ("bool", Value::Bool(a), Value::Bool(b)) => a == b,
            (d, Value::Number(a), Value::Number(b)) if d.starts_with("float") => {
                a.is_f64()
                    && close(
                        a.as_f64().unwrap_or(f64::NAN),
                        b.as_f64().unwrap_or(f64::NAN),
                    )
            }
            (d, Value::Number(a), Value::Number(b))
                if d.starts_with("int") || d.starts_with("uint") =>
            {
                !a.is_f64() && a.as_i64() == b.as_i64()
            }
            (d, Value::String(a), Value::String(b)) if d.starts_with("float") => a == b,
            _ => false,
        };
        if !ok {
            return Some(format!(
                "{name}[{i}] (flat): {x} vs JAX {y} ({dtype}{shape:?})"
            ));
        }
    }
    None
}

/// Numbers and quoted names in an error message.
fn facts(message: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let chars: Vec<char> = message.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_ascii_digit()
            && (i == 0
                || !(chars[i - 1].is_alphanumeric() || chars[i - 1] == '_' || chars[i - 1] == '.'))
        {
            let start = i;
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
            let after = chars.get(i).copied().unwrap_or(' ');
            if !(after.is_alphanumeric()
                || after == '_'
                || (after == '.' && chars.get(i + 1).is_some_and(|c| c.is_ascii_digit())))
            {
                out.insert(chars[start..i].iter().collect());
            }
            continue;
        }
        if c == '\'' {
            let rest: String = chars[i + 1..].iter().take_while(|&&c| c != '\'').collect();
            let ident = !rest.is_empty()
                && rest.chars().all(|c| c.is_alphanumeric() || c == '_')
                && !rest.starts_with(|c: char| c.is_ascii_digit());
            if ident && i + 1 + rest.chars().count() < chars.len() {
                if !INTERNAL_NAMES.contains(&rest.as_str()) {
                    out.insert(format!("'{rest}'"));
                }
                i += rest.chars().count() + 2;
                continue;
            }
        }
        i += 1;
    }
    out
}

/// The primitives a printed jaxpr applies, in order.
fn primitives(jaxpr: &str) -> Vec<String> {
    jaxpr
        .split("= ")
        .skip(1)
        .filter_map(|s| {
            let p: String = s
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            (!p.is_empty() && p.starts_with(|c: char| c.is_ascii_lowercase())).then_some(p)
        })
        .collect()
}

fn check(case: &Value, ours: &Value) -> Vec<String> {
    let mut problems = vec![];
    if let Some(err) = case.get("error") {
        let Some(got) = ours.get("error") else {
            problems.push(format!(
                "JAX raised {}: {} but shardlab finished",
                err["type"], err["message"]
            ));
            return problems;
        };
        let (jt, gt) = (
            err["type"].as_str().unwrap_or(""),
            got["type"].as_str().unwrap_or(""),
        );
        let base = BASES.iter().find(|(c, _)| *c == jt).map(|(_, b)| *b);
        if gt != jt && Some(gt) != base {
            problems.push(format!(
                "raised {gt} ({}), JAX raised {jt} ({})",
                got["message"], err["message"]
            ));
        } else {
            let ours_facts = facts(got["message"].as_str().unwrap_or(""));
            let missing: Vec<String> = facts(err["message"].as_str().unwrap_or(""))
                .into_iter()
                .filter(|f| !ours_facts.contains(f))
                .collect();
            if !missing.is_empty() {
                problems.push(format!(
                    "the message lacks {missing:?}: {} (JAX: {})",
                    got["message"], err["message"]
                ));
            }
        }
    } else if let Some(got) = ours.get("error") {
        problems.push(format!(
            "shardlab raised {}: {} (line {})",
            got["type"], got["message"], got["line"]
        ));
        return problems;
    } else {
        let empty = serde_json::Map::new();
        let expected: BTreeMap<String, Value> = case["outputs"]
            .as_object()
            .unwrap_or(&empty)
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let mut result = ours["result"].clone();
        if case.get("jaxpr").is_some() {
            let jaxpr = result["jaxpr"].as_str().unwrap_or("").to_string();
            let (a, b) = (
                primitives(&jaxpr),
                primitives(case["jaxpr"].as_str().unwrap_or("")),
            );
            if a != b {
                problems.push(format!("jaxpr applies {a:?}, JAX's {b:?}"));
            }
            result = result["result"].clone();
        }
        let mut got = BTreeMap::new();
        flatten(&result, &mut vec![], &expected, &mut got);
        let (gk, ek): (Vec<&String>, Vec<&String>) =
            (got.keys().collect(), expected.keys().collect());
        if gk != ek {
            problems.push(format!("leaves {gk:?} vs JAX {ek:?}"));
        } else {
            problems.extend(
                expected
                    .iter()
                    .filter_map(|(k, v)| compare_leaf(k, &got[k], v)),
            );
        }
    }
    if let Some(expected) = case.get("stdout").and_then(Value::as_str) {
        let printed = ours["stdout"].as_str().unwrap_or("");
        if printed != expected {
            problems.push(format!(
                "stdout differs\n--- shardlab\n{printed}--- JAX\n{expected}"
            ));
        }
    }
    problems
}

fn run(program: &Path, lockstep: bool) -> Value {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_shardlab"));
    cmd.arg("run").arg(program).arg("--json");
    // Parallel means a thread per device for every map, however small.
    cmd.arg(if lockstep { "--lockstep" } else { "--parallel" });
    match cmd.output() {
        Ok(out) => serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            serde_json::json!({"error": {
                "type": "(no JSON)",
                "message": format!("{e}: stdout {:?}, stderr {:?}",
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)),
                "line": null,
            }})
        }),
        Err(e) => panic!("cannot run the shardlab binary: {e}"),
    }
}

struct Case {
    id: String,
    data: Value,
    program: PathBuf,
}

fn load_cases(dir: &Path) -> Vec<Case> {
    let mut cases = vec![];
    for group in GROUPS {
        let path = root().join(format!("tests/fixtures/{group}.json"));
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let file: Value = serde_json::from_str(&text).expect("fixture files are JSON");
        for case in file["cases"].as_array().expect("a cases list") {
            let name = case["name"].as_str().expect("a case name");
            let mut source = case["source"].as_str().expect("a source").to_string();
            if case.get("jaxpr").is_some() && case.get("error").is_none() {
                // Hand the program's jaxpr back next to its result.
                source.push_str("\nresult = {'result': result, 'jaxpr': str(jaxpr)}\n");
            }
            let program = dir.join(format!("{group}__{name}.py"));
            std::fs::write(&program, source).expect("the temp dir is writable");
            cases.push(Case {
                id: format!("{group}/{name}"),
                data: case.clone(),
                program,
            });
        }
    }
    cases
}

#[test]
fn fixture_programs_match_jax() {
    let dir =
        std::env::temp_dir().join(format!("shardlab-fixture-programs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let cases = load_cases(&dir);
    assert!(
        cases.len() >= 290,
        "expected the whole corpus, found {} cases",
        cases.len()
    );
    let mut problems: Vec<Vec<String>> = vec![vec![]; cases.len()];
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get().min(4));
    std::thread::scope(|s| {
        let chunks: Vec<Vec<usize>> = (0..workers)
            .map(|w| (w..cases.len()).step_by(workers).collect())
            .collect();
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|idx| {
                let cases = &cases;
                s.spawn(move || {
                    idx.into_iter()
                        .map(|i| {
                            let c = &cases[i];
                            let mut p = vec![];
                            for lockstep in [false, true] {
                                let mode = if lockstep { "lockstep" } else { "parallel" };
                                p.extend(
                                    check(&c.data, &run(&c.program, lockstep))
                                        .into_iter()
                                        .map(|x| format!("[{mode}] {x}")),
                                );
                            }
                            (i, p)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for h in handles {
            for (i, p) in h.join().expect("a worker thread") {
                problems[i] = p;
            }
        }
    });
    let _ = std::fs::remove_dir_all(&dir);

    let mut failures = vec![];
    let mut passed = 0;
    for (case, p) in cases.iter().zip(&problems) {
        let known = KNOWN.iter().find(|(n, _)| *n == case.id);
        match (known, p.is_empty()) {
            (None, true) => passed += 1,
            (None, false) => failures.push(format!("{}:\n  {}", case.id, p.join("\n  "))),
            (Some((_, why)), false) => {
                eprintln!("known: {} ({why})\n  {}", case.id, p.join("\n  "));
            }
            (Some(_), true) => failures.push(format!(
                "{}: listed in KNOWN but now matches JAX; remove it from the list",
                case.id
            )),
        }
    }
    for k in KNOWN {
        assert!(
            cases.iter().any(|c| c.id == k.0),
            "KNOWN lists {}, which is not in the corpus",
            k.0
        );
    }
    eprintln!(
        "\n{passed} of {} corpus cases match JAX, {} known differences, {} unexpected",
        cases.len(),
        KNOWN.len(),
        failures.len()
    );
    for f in &failures {
        eprintln!("{f}\n");
    }
    assert!(
        failures.is_empty(),
        "{} unexpected results (listed above)",
        failures.len()
    );
}
