//! Every case of tests/fixtures/collectives.json (produced by JAX 0.10.2 on 8
//! CPU devices; see tests/jax/) rebuilt through the engine's Rust API and run
//! in both evaluators: each collective on 1-D, 2-D and 3-D meshes, over single
//! axes and tuples of axes.

mod common;

use common::*;
use shardlab::ops;
use shardlab::{Array, Mesh, Value};

fn run_case(case: &serde_json::Value) -> Vec<Value> {
    let p = &case["params"];
    let mesh_j = &case["mesh"];
    let names_owned: Vec<String> = mesh_j["axis_names"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect();
    let names_ref: Vec<&str> = names_owned.iter().map(|s| s.as_str()).collect();
    let shape: Vec<usize> = mesh_j["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    let mesh = Mesh::new(&names_ref, &shape).unwrap();
    let axes = parse_names(p["axis_name"].as_str().unwrap());
    let op = p["op"].as_str().unwrap().to_string();
    let inputs: Vec<Value> = case["inputs"]
        .as_object()
        .unwrap()
        .values()
        .map(|a| Value::Concrete(fixture_array(a)))
        .collect();
    let in_specs: Vec<_> = match p.get("in_specs") {
        Some(s) if !inputs.is_empty() => vec![parse_spec(s.as_str().unwrap())],
        _ => vec![],
    };
    let out_specs = vec![parse_spec(p["out_specs"].as_str().unwrap())];
    let int = |k: &str| p[k].as_i64().unwrap();
    let flag = |k: &str| p[k].as_bool().unwrap_or(false);
    let body = move |a: &[Value]| -> shardlab::Result<Vec<Value>> {
        let x = a.first().cloned();
        let x = || x.clone().unwrap();
        let out = match op.as_str() {
            "psum" => ops::psum(&x(), &axes)?,
            "pmean" => ops::pmean(&x(), &axes)?,
            "pmax" => ops::pmax(&x(), &axes)?,
            "pmin" => ops::pmin(&x(), &axes)?,
            "axis_index" => ops::reshape(&ops::axis_index(&axes)?, &[1])?,
            "psum(1)" => ops::reshape(
                &ops::psum(&Value::Concrete(Array::scalar_i32(1)), &axes)?,
                &[1],
            )?,
            "all_gather" => ops::all_gather(
                &x(),
                &axes,
                int("axis"),
                flag("tiled"),
                p["to"].as_str() == Some("invarying"),
            )?,
            "psum_scatter" => {
                ops::psum_scatter(&x(), &axes, int("scatter_dimension"), flag("tiled"))?
            }
            "ppermute" => {
                let perm: Vec<(usize, usize)> = p["perm"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|q| {
                        (
                            q[0].as_u64().unwrap() as usize,
                            q[1].as_u64().unwrap() as usize,
                        )
                    })
                    .collect();
                ops::ppermute(&x(), &axes, &perm)?
            }
            "all_to_all" => ops::all_to_all(
                &x(),
                &axes,
                int("split_axis"),
                int("concat_axis"),
                flag("tiled"),
            )?,
            other => panic!("unknown op {other}"),
        };
        Ok(vec![out])
    };
    both_modes(|| {
        ops::shard_map(
            Box::new(body.clone()),
            &mesh,
            &in_specs,
            &out_specs,
            true,
            &inputs,
        )
        .unwrap_or_else(|e| panic!("{}: {e}", case["name"]))
    })
}

#[test]
fn every_collective_matches_jax() {
    let cases = fixture_cases("collectives.json");
    assert!(
        cases.len() >= 100,
        "expected the full fixture set, got {}",
        cases.len()
    );
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        if case.get("error").is_some() {
            continue;
        }
        let out = run_case(case);
        let want = fixture_array(&case["outputs"]["out"]);
        let got = match &out[0] {
            Value::Concrete(a) => a.clone(),
            _ => unreachable!(),
        };
        assert_eq!(got.shape(), want.shape(), "{name}: shape");
        assert_eq!(got.dtype(), want.dtype(), "{name}: dtype");
        let (g, w) = (got.to_f64_vec(), want.to_f64_vec());
        for (i, (a, b)) in g.iter().zip(&w).enumerate() {
            assert!(
                (a - b).abs() <= 1e-6 + 1e-5 * b.abs(),
                "{name}: element {i}: got {a}, want {b}"
            );
        }
    }
}
