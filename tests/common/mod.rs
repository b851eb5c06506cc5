//! Helpers shared by the engine's integration tests.
#![allow(dead_code)]

use shardlab::array::Array;
use shardlab::exec::{self, Mode};
use shardlab::sharding::PartitionSpec;
use shardlab::trace::Value;

/// A float32 array of `shape` holding 0, 1, 2, ... (like `jnp.arange(n).reshape(shape)`).
pub fn arange(shape: &[usize]) -> Value {
    let n: usize = shape.iter().product();
    Value::Concrete(Array::from_f32(shape, (0..n).map(|i| i as f32).collect()).unwrap())
}

/// A float32 array from data.
pub fn array(shape: &[usize], data: &[f32]) -> Value {
    Value::Concrete(Array::from_f32(shape, data.to_vec()).unwrap())
}

/// A PartitionSpec: each entry is a list of mesh axes (empty = None).
pub fn spec(entries: &[&[&str]]) -> PartitionSpec {
    PartitionSpec::new(
        entries
            .iter()
            .map(|e| {
                if e.is_empty() {
                    None
                } else {
                    Some(e.iter().map(|s| s.to_string()).collect())
                }
            })
            .collect(),
    )
}

/// Axis names as owned strings.
pub fn names(axes: &[&str]) -> Vec<String> {
    axes.iter().map(|s| s.to_string()).collect()
}

/// The data of a concrete value as f64.
pub fn data(v: &Value) -> Vec<f64> {
    match v {
        Value::Concrete(a) => a.to_f64_vec(),
        Value::Traced(_) => panic!("expected a concrete value"),
    }
}

/// The shape of a value.
pub fn shape(v: &Value) -> Vec<usize> {
    v.shape()
}

/// Asserts two float lists agree to 1e-5 relative / 1e-6 absolute.
pub fn assert_close(got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "length: got {got:?}, want {want:?}");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= 1e-6 + 1e-5 * w.abs(),
            "element {i}: got {g}, want {w} (got {got:?}, want {want:?})"
        );
    }
}

/// Runs `f` once in each execution mode and checks both give identical bits;
/// returns the parallel result.
pub fn both_modes<F: Fn() -> Vec<Value>>(f: F) -> Vec<Value> {
    let in_mode = |mode: Mode| {
        let _run = exec::run::enter(exec::run::Run::new(exec::Config {
            mode,
            ..Default::default()
        }));
        f()
    };
    let parallel = in_mode(Mode::Parallel);
    let lockstep = in_mode(Mode::Lockstep);
    assert_eq!(parallel.len(), lockstep.len());
    for (p, l) in parallel.iter().zip(&lockstep) {
        match (p, l) {
            (Value::Concrete(a), Value::Concrete(b)) => {
                assert!(a.bitwise_eq(b), "parallel {a:?} != lockstep {b:?}")
            }
            _ => panic!("expected concrete results"),
        }
    }
    parallel
}

/// Parses the Python text of a PartitionSpec as the fixtures record it:
/// `P()`, `P('x')`, `P('x', None)`, `P(('x', 'y'),)`.
pub fn parse_spec(text: &str) -> PartitionSpec {
    let inner = text
        .trim()
        .strip_prefix("P(")
        .and_then(|s| s.strip_suffix(')'))
        .expect(text);
    let mut entries = Vec::new();
    let mut depth = 0;
    let mut cur = String::new();
    for ch in inner.chars().chain(std::iter::once(',')) {
        match ch {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                let t = cur.trim().to_string();
                cur.clear();
                if t.is_empty() {
                    continue;
                }
                entries.push(if t == "None" {
                    None
                } else {
                    Some(parse_names(&t))
                });
                continue;
            }
            _ => {}
        }
        cur.push(ch);
    }
    PartitionSpec::new(entries)
}

/// Parses `'x'` or `('x', 'y')` into axis names.
pub fn parse_names(text: &str) -> Vec<String> {
    text.split([',', '(', ')'])
        .map(|s| s.trim().trim_matches('\'').to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// An array from the fixtures' `{"shape", "dtype", "data"}` form.
pub fn fixture_array(j: &serde_json::Value) -> Array {
    let shape: Vec<usize> = j["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    let data = j["data"].as_array().unwrap();
    match j["dtype"].as_str().unwrap() {
        "float32" => Array::from_f32(
            &shape,
            data.iter().map(|v| v.as_f64().unwrap() as f32).collect(),
        ),
        "int32" => Array::from_i32(
            &shape,
            data.iter().map(|v| v.as_i64().unwrap() as i32).collect(),
        ),
        "bool" => Array::from_bool(&shape, data.iter().map(|v| v.as_bool().unwrap()).collect()),
        d => panic!("dtype {d}"),
    }
    .unwrap()
}

/// Loads a fixture file's cases.
pub fn fixture_cases(file: &str) -> Vec<serde_json::Value> {
    let path = format!("{}/tests/fixtures/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect(&path);
    let j: serde_json::Value = serde_json::from_str(&text).unwrap();
    j["cases"].as_array().unwrap().clone()
}
