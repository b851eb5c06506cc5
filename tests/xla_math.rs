//! shardlab's float32 transcendental functions against the bits JAX 0.10.2
//! computes on CPU (tests/fixtures/xla_math.txt, written by
//! tests/jax/gen_math_bits.py). The functions are applied through
//! `Array::unary` / `Array::binary`, the path every program takes.
//!
//! A NaN must be a NaN; its payload bits are not compared (every NaN prints
//! as `nan`).

use std::collections::BTreeMap;

use shardlab::array::{Array, BinaryOp, UnaryOp};

/// One fixture line: x bits, y bits (two-operand functions), JAX's bits.
type Case = (u32, Option<u32>, u32);

fn fixture() -> BTreeMap<String, Vec<Case>> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/xla_math.txt");
    let text = std::fs::read_to_string(path).expect("tests/fixtures/xla_math.txt");
    let hex = |s: &str| u32::from_str_radix(s, 16).expect("hex bits");
    let mut cases: BTreeMap<String, Vec<Case>> = BTreeMap::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split_whitespace().collect();
        let case = match f.len() {
            3 => (hex(f[1]), None, hex(f[2])),
            4 => (hex(f[1]), Some(hex(f[2])), hex(f[3])),
            _ => panic!("bad fixture line {line:?}"),
        };
        cases.entry(f[0].to_string()).or_default().push(case);
    }
    cases
}

/// shardlab's results for `cases` of function `name`.
fn compute(name: &str, cases: &[Case]) -> Vec<f32> {
    let xs: Vec<f32> = cases.iter().map(|c| f32::from_bits(c.0)).collect();
    let x = Array::from_f32(&[xs.len()], xs).expect("x");
    let out = match name {
        "power" | "arctan2" => {
            let ys: Vec<f32> = cases
                .iter()
                .map(|c| f32::from_bits(c.1.expect("y")))
                .collect();
            let y = Array::from_f32(&[ys.len()], ys).expect("y");
            let op = if name == "power" {
                BinaryOp::Pow
            } else {
                BinaryOp::Atan2
            };
            x.binary(op, &y)
        }
        _ => x.unary(unary_op(name)),
    };
    out.expect("evaluates")
        .f32_data()
        .expect("float32")
        .to_vec()
}

fn unary_op(name: &str) -> UnaryOp {
    match name {
        "exp" => UnaryOp::Exp,
        "log" => UnaryOp::Log,
        "log1p" => UnaryOp::Log1p,
        "expm1" => UnaryOp::Expm1,
        "tanh" => UnaryOp::Tanh,
        "logistic" => UnaryOp::Logistic,
        "sin" => UnaryOp::Sin,
        "cos" => UnaryOp::Cos,
        "sqrt" => UnaryOp::Sqrt,
        "rsqrt" => UnaryOp::Rsqrt,
        "erf" => UnaryOp::Erf,
        "erf_inv" => UnaryOp::ErfInv,
        _ => panic!("no fixture function {name}"),
    }
}

/// Distance in units in the last place (NaN against NaN is 0).
fn ulps(a: f32, b: f32) -> u64 {
    if a.is_nan() || b.is_nan() {
        return if a.is_nan() && b.is_nan() {
            0
        } else {
            u64::MAX
        };
    }
    // Sign-magnitude bits to a line where neighbouring floats differ by 1.
    let ord = |v: f32| {
        let b = v.to_bits();
        let magnitude = i64::from(b & 0x7fff_ffff);
        if b >> 31 == 1 {
            -magnitude
        } else {
            magnitude
        }
    };
    (ord(a) - ord(b)).unsigned_abs()
}

/// Checks every case of `name` within `max_ulps`, skipping those `skip`
/// selects; returns how many were checked.
fn check(name: &str, max_ulps: u64, skip: impl Fn(&Case) -> bool) -> usize {
    let all = fixture();
    let cases: Vec<Case> = all[name].iter().copied().filter(|c| !skip(c)).collect();
    let got = compute(name, &cases);
    let mut bad = Vec::new();
    for (c, &g) in cases.iter().zip(&got) {
        let want = f32::from_bits(c.2);
        if ulps(g, want) > max_ulps {
            bad.push(format!(
                "x={:e} y={:?} jax={want:e} ({:08x}) shardlab={g:e} ({:08x})",
                f32::from_bits(c.0),
                c.1.map(f32::from_bits),
                c.2,
                g.to_bits()
            ));
        }
    }
    assert!(
        bad.is_empty(),
        "{name}: {} of {} differ by more than {max_ulps} ulp, e.g.\n{}",
        bad.len(),
        cases.len(),
        bad[..bad.len().min(10)].join("\n")
    );
    cases.len()
}

fn exact(name: &str) {
    assert!(check(name, 0, |_| false) > 1000);
}

#[test]
fn exp_is_exact() {
    exact("exp");
}

#[test]
fn log_is_exact() {
    exact("log");
}

#[test]
fn log1p_is_exact() {
    exact("log1p");
}

#[test]
fn expm1_is_exact() {
    exact("expm1");
}

#[test]
fn tanh_is_exact() {
    exact("tanh");
}

#[test]
fn logistic_is_exact() {
    exact("logistic");
}

#[test]
fn sqrt_is_exact() {
    exact("sqrt");
}

#[test]
fn erf_is_exact() {
    exact("erf");
}

#[test]
fn erf_inv_is_exact() {
    exact("erf_inv");
}

/// XLA calls the C library's `sinf`/`cosf`; shardlab computes glibc's.
#[test]
fn sin_is_exact() {
    exact("sin");
}

#[test]
fn cos_is_exact() {
    exact("cos");
}

/// XLA refines the processor's `rsqrt` estimate, whose bits depend on the
/// machine; shardlab's correctly rounded result stays within 2 ulp of it.
#[test]
fn rsqrt_is_within_two_ulps() {
    assert!(check("rsqrt", 2, |_| false) > 1000);
}

/// Including subnormal operands, which glibc's bit tests see while XLA's
/// arithmetic reads them as zero.
#[test]
fn pow_is_exact() {
    exact("power");
}

#[test]
fn arctan2_is_exact() {
    exact("arctan2");
}
