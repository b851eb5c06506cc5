//! Every `device_put` case of tests/fixtures/sharding.json (produced by JAX
//! 0.10.2 on 8 CPU devices; see tests/jax/): PartitionSpec gives each device
//! the slice and the data of the shard JAX put there, and assembles the
//! shards back into the global array.

mod common;

use std::ops::Range;

use common::{fixture_array, fixture_cases, parse_spec};
use shardlab::{Array, Mesh};

fn usizes(j: &serde_json::Value) -> Vec<usize> {
    j.as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect()
}

/// The same values as int32.
fn as_i32(a: &Array) -> Array {
    Array::from_i32(
        a.shape(),
        a.to_f64_vec().iter().map(|&v| v as i32).collect(),
    )
    .unwrap()
}

#[test]
fn device_put_shards_match_jax() {
    let cases: Vec<_> = fixture_cases("sharding.json")
        .into_iter()
        .filter(|c| c["name"].as_str().unwrap().starts_with("device_put_"))
        .collect();
    assert_eq!(cases.len(), 47, "device_put cases in sharding.json");
    let square = cases
        .iter()
        .filter(|c| c["name"].as_str().unwrap().starts_with("device_put_8x8_"))
        .count();
    assert_eq!(square, 20, "device_put cases of an (8, 8) array");
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let m = &case["mesh"];
        let names: Vec<&str> = m["axis_names"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap())
            .collect();
        let mesh = Mesh::new(&names, &usizes(&m["shape"])).unwrap();
        let ids = usizes(&m["device_ids"]);
        let spec = parse_spec(case["params"]["spec"].as_str().unwrap());
        let x = fixture_array(&case["inputs"]["x"]);
        assert!(
            fixture_array(&case["outputs"]["out"]).bitwise_eq(&x),
            "{name}: device_put keeps the values"
        );
        let xi = as_i32(&x);
        let shards = spec.split(&mesh, &x).unwrap();
        let int_shards = spec.split(&mesh, &xi).unwrap();
        let jax = case["per_device"]["out"].as_array().unwrap();
        assert_eq!(jax.len(), mesh.size(), "{name}: one shard per device");
        for shard in jax {
            let id = shard["device"].as_u64().unwrap() as usize;
            let p = ids.iter().position(|&d| d == id).unwrap();
            let want: Vec<Range<usize>> = shard["index"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r[0].as_u64().unwrap() as usize..r[1].as_u64().unwrap() as usize)
                .collect();
            let got = spec.shard_slices(&mesh, p, x.shape()).unwrap();
            assert_eq!(got, want, "{name}, {spec}: slices of device {id}");
            let data = fixture_array(&shard["data"]);
            assert!(
                shards[p].bitwise_eq(&data),
                "{name}, {spec}: shard of device {id}: {:?}, JAX {:?}",
                shards[p].to_f64_vec(),
                data.to_f64_vec()
            );
            assert!(
                int_shards[p].bitwise_eq(&as_i32(&data)),
                "{name}, {spec}: int32 shard of device {id}"
            );
        }
        let back = spec.assemble(&mesh, &shards, x.shape()).unwrap();
        assert!(back.bitwise_eq(&x), "{name}, {spec}: assembled");
        let back = spec.assemble(&mesh, &int_shards, x.shape()).unwrap();
        assert!(back.bitwise_eq(&xi), "{name}, {spec}: assembled int32");
    }
}
