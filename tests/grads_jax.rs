//! Gradients through every collective, against tests/fixtures/grads.json
//! (JAX 0.10.2, 8 CPU devices): for y = shard_map(collective)(x) and a fixed
//! non-uniform c, d sum(y * c) / dx exercises each collective's transpose.

mod common;

use common::*;
use shardlab::ops;
use shardlab::transforms;
use shardlab::{ErrorKind, Mesh, Value};

/// The collective of each case, as the fixture's program applies it.
fn apply(name: &str, b: &Value, axes: &[String]) -> shardlab::Result<Value> {
    match name {
        "grad_through_psum" | "grad_through_psum_check_vma_false" => ops::psum(b, axes),
        "grad_through_pmean" => ops::pmean(b, axes),
        "grad_through_pmax" => ops::pmax(b, axes),
        "grad_through_all_gather_tiled" => ops::all_gather(b, axes, 0, true, true),
        "grad_through_all_gather_default" | "grad_through_all_gather_default_check_vma_false" => {
            ops::all_gather(b, axes, 0, false, false)
        }
        "grad_through_psum_scatter_tiled" => ops::psum_scatter(b, axes, 0, true),
        "grad_through_ppermute_ring" => {
            let perm: Vec<(usize, usize)> = (0..8).map(|i| (i, (i + 1) % 8)).collect();
            ops::ppermute(b, axes, &perm)
        }
        "grad_through_all_to_all" => ops::all_to_all(b, axes, 0, 0, true),
        other => panic!("no collective for {other}"),
    }
}

#[test]
fn gradients_through_each_collective_match_jax() {
    let mesh = Mesh::new(&["x"], &[8]).unwrap();
    let axes = names(&["x"]);
    let cases: Vec<_> = fixture_cases("grads.json")
        .into_iter()
        .filter(|c| c["name"].as_str().unwrap().starts_with("grad_through_"))
        .collect();
    assert_eq!(cases.len(), 10);
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let source = case["source"].as_str().unwrap();
        let check_vma = source.contains("check_vma=True");
        let out_spec = if source.contains("out_specs=P()") {
            spec(&[])
        } else {
            spec(&[&["x"]])
        };
        let x = Value::Concrete(fixture_array(&case["inputs"]["x"]));
        let c = Value::Concrete(fixture_array(&case["inputs"]["c"]));
        let f = |x: &Value| {
            ops::shard_map(
                Box::new(|a| Ok(vec![apply(name, &a[0], &axes)?])),
                &mesh,
                &[spec(&[&["x"]])],
                std::slice::from_ref(&out_spec),
                check_vma,
                std::slice::from_ref(x),
            )
        };
        let grad = transforms::value_and_grad(
            |a| Ok(vec![ops::sum(&ops::mul(&f(&a[0])?[0], &c)?, None, false)?]),
            std::slice::from_ref(&x),
            &[0],
        );
        if let Some(err) = case.get("error") {
            let e = grad
                .err()
                .unwrap_or_else(|| panic!("{name}: expected an error"));
            assert_eq!(e.kind, ErrorKind::NotImplementedError, "{name}");
            assert_eq!(e.message, err["message"].as_str().unwrap(), "{name}");
            continue;
        }
        let (_, g) = grad.unwrap_or_else(|e| panic!("{name}: {e}"));
        let want_g = fixture_array(&case["outputs"]["grad"]);
        assert_eq!(shape(&g[0]), want_g.shape(), "{name}: grad shape");
        assert_close(&data(&g[0]), &want_g.to_f64_vec());
        let want_y = fixture_array(&case["outputs"]["y"]);
        assert_close(&data(&f(&x).unwrap()[0]), &want_y.to_f64_vec());
    }
}
