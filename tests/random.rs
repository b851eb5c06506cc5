//! `shardlab::random` against values recorded from JAX 0.10.2 / Flax 0.12.8
//! by `tests/jax/gen_random.py` (fixture `tests/fixtures/random.json`).
//!
//! Keys, bits, integers and booleans must match exactly; floats must match
//! within 1e-6 absolute or 2 ulp, and the report of how many are bit-exact
//! is asserted too, since the algorithms are meant to be bit-identical.

use serde_json::Value;
use shardlab::random::distributions as dist;
use shardlab::random::flax::{
    dense_init, linen_dense_init_at, linen_rng_key, nnx_linear, nnx_linear_init, Rngs,
};
use shardlab::random::special::{erf_f32, erf_f32_fused, erf_inv_f32, log1p_f32};
use shardlab::random::{
    fold_in, initializers as init, random_bits, split, threefry2x32, threefry_2x32, Key,
};
use shardlab::{Array, ErrorKind};

fn fixture() -> Value {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/random.json"
    ))
    .expect("fixture readable");
    serde_json::from_str(&text).expect("fixture parses")
}

fn u32s(v: &Value) -> Vec<u32> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_u64().expect("u32") as u32)
        .collect()
}

fn usizes(v: &Value) -> Vec<usize> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_u64().expect("usize") as usize)
        .collect()
}

fn key(v: &Value) -> Key {
    let d = u32s(v);
    Key([d[0], d[1]])
}

fn f32v(v: &Value) -> f32 {
    v.as_f64().expect("number") as f32
}

/// Shape and float32 values of a recorded `{"shape", "bits"}` array.
fn floats(v: &Value) -> (Vec<usize>, Vec<f32>) {
    let bits = u32s(&v["bits"]);
    (
        usizes(&v["shape"]),
        bits.into_iter().map(f32::from_bits).collect(),
    )
}

fn ulp_distance(a: f32, b: f32) -> u64 {
    // Map the floats onto a monotonic integer line so ulps are differences.
    fn ordered(x: f32) -> i64 {
        let b = x.to_bits() as i32 as i64;
        if b < 0 {
            i64::from(i32::MIN) - b
        } else {
            b
        }
    }
    (ordered(a) - ordered(b)).unsigned_abs()
}

/// Asserts `got` matches the recorded floats within tolerance; returns the
/// number of elements that differ in their bits.
fn check_floats(what: &str, got: &[f32], expected: &[f32]) -> usize {
    assert_eq!(got.len(), expected.len(), "{what}: length");
    let mut inexact = 0;
    for (i, (&g, &e)) in got.iter().zip(expected).enumerate() {
        if g.to_bits() == e.to_bits() || (g.is_nan() && e.is_nan()) {
            continue;
        }
        inexact += 1;
        if inexact <= 3 {
            eprintln!(
                "{what}[{i}]: got {g:e} ({:#x}), JAX gives {e:e} ({:#x})",
                g.to_bits(),
                e.to_bits()
            );
        }
        let close = (g - e).abs() <= 1e-6 || ulp_distance(g, e) <= 2;
        assert!(close, "{what}[{i}]: got {g:e}, JAX gives {e:e}");
    }
    inexact
}

fn check_array(what: &str, got: &Array, expected: &Value) -> usize {
    let (shape, values) = floats(expected);
    assert_eq!(got.shape(), &shape[..], "{what}: shape");
    check_floats(what, got.f32_data().expect("float32"), &values)
}

fn ints(v: &Value) -> (Vec<usize>, Vec<i64>) {
    (
        usizes(&v["shape"]),
        v["values"]
            .as_array()
            .expect("values")
            .iter()
            .map(|x| x.as_i64().expect("int"))
            .collect(),
    )
}

#[test]
fn threefry_known_answers() {
    let f = fixture();
    for case in f["threefry_kat"].as_array().unwrap() {
        let k = u32s(&case["key"]);
        let c = u32s(&case["count"]);
        let out = threefry2x32([k[0], k[1]], [c[0], c[1]]);
        assert_eq!(out.to_vec(), u32s(&case["out"]));
    }
    // The Random123 vector for key and counter all ones, stated literally.
    assert_eq!(
        threefry2x32([u32::MAX; 2], [u32::MAX; 2]),
        [0x1cb9_96fc, 0xbb00_2be7]
    );
    let odd = &f["threefry_odd"];
    let k = u32s(&odd["key"]);
    assert_eq!(
        threefry_2x32([k[0], k[1]], &u32s(&odd["counts"])),
        u32s(&odd["out"])
    );
}

#[test]
fn seeds_split_fold_in_bits() {
    let f = fixture();
    assert_eq!(f["versions"]["jax"], "0.10.2");
    assert_eq!(f["versions"]["threefry_partitionable"], true);
    for case in f["seeds"].as_array().unwrap() {
        let seed: i64 = case["seed"].as_str().unwrap().parse().unwrap();
        let k = Key::from_seed(seed);
        assert_eq!(k.data().to_vec(), u32s(&case["prngkey"]), "PRNGKey({seed})");
        assert_eq!(k.data().to_vec(), u32s(&case["key"]), "key({seed})");
    }
    for case in f["split"].as_array().unwrap() {
        let got = split(key(&case["key"]), case["num"].as_u64().unwrap() as usize).unwrap();
        let expected: Vec<Key> = case["keys"].as_array().unwrap().iter().map(key).collect();
        assert_eq!(got, expected);
    }
    for case in f["fold_in"].as_array().unwrap() {
        let k = key(&case["key"]);
        let data = case["data"].as_u64().unwrap() as u32;
        assert_eq!(fold_in(k, data), key(&case["out"]));
        assert_eq!(k.fold_in(data), key(&case["out"]));
    }
    for case in f["bits"].as_array().unwrap() {
        let shape = usizes(&case["shape"]);
        let got = random_bits(key(&case["key"]), &shape).unwrap();
        assert_eq!(got, u32s(&case["bits"]), "bits of shape {shape:?}");
    }
}

#[test]
fn uniform_normal_truncated() {
    let f = fixture();
    let mut inexact = 0;
    for case in f["uniform"].as_array().unwrap() {
        let (shape, _) = floats(&case["out"]);
        let got = dist::uniform(
            key(&case["key"]),
            &shape,
            f32v(&case["minval"]),
            f32v(&case["maxval"]),
        )
        .unwrap();
        inexact += check_array("uniform", &got, &case["out"]);
    }
    assert_eq!(inexact, 0, "uniform is exact");
    for case in f["normal"].as_array().unwrap() {
        let (shape, _) = floats(&case["out"]);
        let got = dist::normal(key(&case["key"]), &shape).unwrap();
        inexact += check_array("normal", &got, &case["out"]);
    }
    for case in f["truncated_normal"].as_array().unwrap() {
        let (shape, values) = floats(&case["out"]);
        let (lo, hi) = (f32v(&case["lower"]), f32v(&case["upper"]));
        let got = dist::truncated_normal(key(&case["key"]), lo, hi, &shape).unwrap();
        inexact += check_array("truncated_normal", &got, &case["out"]);
        assert!(values.iter().all(|&v| v > lo && v < hi));
    }
    assert_eq!(inexact, 0, "normal and truncated_normal are bit-exact");
}

#[test]
fn bernoulli_randint_permutation_choice() {
    let f = fixture();
    for case in f["bernoulli"].as_array().unwrap() {
        let (shape, values) = ints(&case["out"]);
        let got = dist::bernoulli(key(&case["key"]), f32v(&case["p"]), &shape).unwrap();
        let got: Vec<i64> = got.bool_data().unwrap().iter().map(|&b| b as i64).collect();
        assert_eq!(got, values);
    }
    for case in f["randint"].as_array().unwrap() {
        let (shape, values) = ints(&case["out"]);
        let lo = case["minval"].as_i64().unwrap() as i32;
        let hi = case["maxval"].as_i64().unwrap() as i32;
        let got = dist::randint(key(&case["key"]), &shape, lo, hi).unwrap();
        assert_eq!(got.shape(), &shape[..]);
        let got: Vec<i64> = got.i32_data().unwrap().iter().map(|&v| v as i64).collect();
        assert_eq!(got, values, "randint({lo}, {hi})");
    }
    for case in f["permutation"].as_array().unwrap() {
        let (shape, values) = ints(&case["out"]);
        let n = case["n"].as_u64().unwrap() as usize;
        let got = dist::permutation(key(&case["key"]), n).unwrap();
        assert_eq!(got.shape(), &shape[..]);
        let got: Vec<i64> = got.i32_data().unwrap().iter().map(|&v| v as i64).collect();
        assert_eq!(got, values, "permutation({n})");
    }
    let pa = &f["permutation_array"];
    let (xs, xv) = floats(&pa["x"]);
    let x = Array::from_f32(&xs, xv).unwrap();
    let got = dist::permutation_array(key(&pa["key"]), &x).unwrap();
    assert_eq!(check_array("permutation_array", &got, &pa["out"]), 0);
    for case in f["choice"].as_array().unwrap() {
        let (shape, values) = ints(&case["out"]);
        let n = case["n"].as_u64().unwrap() as usize;
        let replace = case["replace"].as_bool().unwrap();
        let got = dist::choice(key(&case["key"]), n, &shape, replace).unwrap();
        assert_eq!(got.shape(), &shape[..]);
        let got: Vec<i64> = got.i32_data().unwrap().iter().map(|&v| v as i64).collect();
        assert_eq!(got, values, "choice({n}, {shape:?}, replace={replace})");
    }
}

#[test]
fn special_functions_match_xla() {
    let f = fixture();
    let s = &f["special"];
    type Func = fn(f32) -> f32;
    let cases: [(&str, Func); 3] = [
        ("erf_inv", erf_inv_f32),
        ("erf", erf_f32),
        ("log1p", log1p_f32),
    ];
    let (_, xs) = floats(&s["erf_x"]);
    let (_, expected) = floats(&s["erf_fused"]);
    let got: Vec<f32> = xs.iter().map(|&x| erf_f32_fused(x) * 2.0).collect();
    assert_eq!(check_floats("erf_fused", &got, &expected), 0);
    for (name, func) in cases {
        let (_, xs) = floats(&s[format!("{name}_x")]);
        let (_, expected) = floats(&s[name]);
        let got: Vec<f32> = xs.iter().map(|&x| func(x)).collect();
        assert_eq!(
            check_floats(name, &got, &expected),
            0,
            "{name} is bit-exact"
        );
    }
}

#[test]
fn initializers_match_jax() {
    let f = fixture();
    for case in f["initializers"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let k = key(&case["key"]);
        let shape = usizes(&case["shape"]);
        let got = match name {
            "lecun_normal" => init::lecun_normal(k, &shape),
            "lecun_uniform" => init::lecun_uniform(k, &shape),
            "glorot_normal" => init::glorot_normal(k, &shape),
            "xavier_uniform" => init::xavier_uniform(k, &shape),
            "he_normal" => init::he_normal(k, &shape),
            "he_uniform" => init::he_uniform(k, &shape),
            "normal_0.02" => init::normal(k, &shape, 0.02),
            "uniform_0.5" => init::uniform(k, &shape, 0.5),
            "truncated_normal_0.5" => init::truncated_normal(k, &shape, 0.5),
            "variance_scaling_2_fan_out_normal" => {
                init::variance_scaling(k, &shape, 2.0, "fan_out", "normal")
            }
            "variance_scaling_0.5_fan_geo_avg_uniform" => {
                init::variance_scaling(k, &shape, 0.5, "fan_geo_avg", "uniform")
            }
            "zeros" => init::zeros(&shape),
            "ones" => init::ones(&shape),
            other => panic!("fixture names an unknown initializer {other}"),
        }
        .unwrap();
        assert_eq!(
            check_array(name, &got, &case["out"]),
            0,
            "{name} is bit-exact"
        );
    }
}

#[test]
fn initializer_errors() {
    let k = Key::from_seed(0);
    let e = init::lecun_normal(k, &[5]).unwrap_err();
    assert_eq!(e.kind, ErrorKind::ValueError);
    let e = init::variance_scaling(k, &[2, 3], 1.0, "fan_sideways", "normal").unwrap_err();
    assert_eq!(e.kind, ErrorKind::ValueError);
    let e = init::variance_scaling(k, &[2, 3], 1.0, "fan_in", "cauchy").unwrap_err();
    assert_eq!(e.kind, ErrorKind::ValueError);
    let e = init::lecun_normal(k, &[0, 3]).unwrap_err();
    assert_eq!(e.kind, ErrorKind::ZeroDivisionError);
    let e = random_bits(k, &[usize::MAX, 4]).unwrap_err();
    assert_eq!(e.kind, ErrorKind::ValueError);
    let e = dist::choice(k, 3, &[5], false).unwrap_err();
    assert_eq!(e.kind, ErrorKind::ValueError);
}

#[test]
fn linen_and_nnx_parameters() {
    let f = fixture();
    let d = &f["linen"]["dense"];
    let (kernel, bias) = dense_init(
        Key::from_seed(d["seed"].as_i64().unwrap()),
        d["in"].as_u64().unwrap() as usize,
        d["features"].as_u64().unwrap() as usize,
    )
    .unwrap();
    assert_eq!(check_array("Dense kernel", &kernel, &d["kernel"]), 0);
    assert_eq!(check_array("Dense bias", &bias, &d["bias"]), 0);

    let mlp = &f["linen"]["mlp"];
    let root = Key::from_seed(mlp["seed"].as_i64().unwrap());
    let mut in_features = mlp["in"].as_u64().unwrap() as usize;
    for layer in mlp["layers"].as_array().unwrap() {
        let path = layer["path"].as_str().unwrap();
        let features = layer["features"].as_u64().unwrap() as usize;
        let (kernel, bias) = linen_dense_init_at(root, &[path], in_features, features).unwrap();
        assert_eq!(check_array(path, &kernel, &layer["kernel"]), 0);
        assert_eq!(check_array(path, &bias, &layer["bias"]), 0);
        in_features = features;
    }
    // A kernel is the first `make_rng` of its scope; the bias the second.
    assert_ne!(linen_rng_key(root, &[], 1), linen_rng_key(root, &[], 2));

    let n = &f["nnx"];
    for (name, seed, i, o) in [
        ("linear_4_3_seed0", 0, 4, 3),
        ("linear_2_1_seed42", 42, 2, 1),
    ] {
        let (kernel, bias) = nnx_linear_init(seed, i, o).unwrap();
        assert_eq!(check_array(name, &kernel, &n[name]["kernel"]), 0);
        assert_eq!(check_array(name, &bias, &n[name]["bias"]), 0);
    }
    let mut rngs = Rngs::new(1);
    for (layer, (i, o)) in [(4, 8), (8, 2)].into_iter().enumerate() {
        let (kernel, bias) = nnx_linear(&mut rngs, i, o).unwrap();
        let expected = &n["two_linears_seed1"][layer];
        assert_eq!(check_array("nnx layer", &kernel, &expected["kernel"]), 0);
        assert_eq!(check_array("nnx layer", &bias, &expected["bias"]), 0);
    }
    assert_eq!(rngs.count("params"), Some(4));

    let mut rngs = Rngs::from_streams(&[
        ("params", Key::from_seed(7)),
        ("dropout", Key::from_seed(3)),
    ]);
    let (kernel, _) = nnx_linear(&mut rngs, 3, 2).unwrap();
    assert_eq!(
        check_array("params stream", &kernel, &n["params_stream_7"]["kernel"]),
        0
    );
    assert_eq!(
        rngs.next_key("dropout").unwrap(),
        key(&n["dropout_key_after"])
    );
    let e = Rngs::from_streams(&[("params", Key::from_seed(0))])
        .next_key("dropout")
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::AttributeError);
}

/// The draws written with the `threefry2x32` primitive and uint32
/// operations (what a traced key runs) give, evaluated on a concrete key,
/// the same bits as the host samplers.
#[test]
fn value_draws_match_host_draws() {
    use shardlab::random::traced;
    use shardlab::trace::Value;
    let bits_of = |v: Value| match v {
        Value::Concrete(a) => a.to_words(),
        Value::Traced(_) => panic!("concrete key, concrete draw"),
    };
    for seed in [0i64, 7, -1, 123_456_789] {
        let k = Key::from_seed(seed);
        let kv = Value::Concrete(Array::from_u32(&[2], k.data().to_vec()).expect("key"));
        let shape = [3usize, 5];
        assert_eq!(
            bits_of(traced::random_bits(&kv, &shape).expect("bits")),
            random_bits(k, &shape).expect("bits")
        );
        let host_split: Vec<u32> = split(k, 4)
            .expect("split")
            .iter()
            .flat_map(|s| s.data())
            .collect();
        assert_eq!(
            bits_of(traced::split(&kv, &[4]).expect("split")),
            host_split
        );
        let data = Value::Concrete(Array::from_u32(&[], vec![42]).expect("data"));
        assert_eq!(
            bits_of(traced::fold_in(&kv, &data).expect("fold_in")),
            fold_in(k, 42).data().to_vec()
        );
        let pairs = [
            (
                traced::normal(&kv, &shape).expect("normal"),
                dist::normal(k, &shape).expect("normal"),
            ),
            (
                traced::uniform(&kv, &shape, -2.0, 2.0).expect("uniform"),
                dist::uniform(k, &shape, -2.0, 2.0).expect("uniform"),
            ),
            (
                traced::bernoulli(&kv, 0.3, &shape).expect("bernoulli"),
                dist::bernoulli(k, 0.3, &shape).expect("bernoulli"),
            ),
            (
                traced::randint(&kv, &shape, -5, 1000).expect("randint"),
                dist::randint(k, &shape, -5, 1000).expect("randint"),
            ),
        ];
        for (got, want) in pairs {
            assert_eq!(bits_of(got), want.to_words());
        }
    }
}
