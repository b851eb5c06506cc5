//! Measurements of shardlab in WebAssembly, for docs/benchmarks.md and
//! docs/web.md: the five collectives on 2, 4 and 8 device workers from
//! 4 KiB per device, the barrier round trip, copies between wasm memory and
//! the SharedArrayBuffer, and f32 matmul in this thread. Meant for a release
//! build: `scripts/test-web.sh --bench` (sizes up to 64 MiB per device) or
//! `scripts/test-web.sh --bench --quick` (up to 4 MiB). Prints Markdown, each
//! line prefixed with `bench| `.

#![cfg(target_arch = "wasm32")]

extern crate shardlab;

use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

use shardlab::exec::run::{self, Run};
use shardlab::exec::{Config, Mode};
use shardlab::ops::parallel as par;
use shardlab::web::{now_ms, Probe, ProbeStats, WorkerPool};
use shardlab::{Array, DType, Mesh, PartitionSpec, Result, Value};

#[path = "web/support.rs"]
mod support;

#[wasm_bindgen(inline_js = r#"
export function engine() {
  if (typeof navigator !== 'undefined' && navigator.userAgent && !navigator.userAgent.startsWith('Node')) {
    return navigator.userAgent;
  }
  return 'Node ' + process.version;
}
export function cores() {
  if (typeof navigator !== 'undefined' && navigator.hardwareConcurrency) {
    return navigator.hardwareConcurrency;
  }
  return 0;
}
"#)]
extern "C" {
    /// The browser's user agent, or Node's version.
    fn engine() -> String;
    /// Logical cores as the engine reports them (0 if it does not).
    fn cores() -> u32;
}

/// Sizes up to 4 MiB only: `SHARDLAB_BENCH_QUICK=1` when the test is built.
fn quick() -> bool {
    option_env!("SHARDLAB_BENCH_QUICK") == Some("1")
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn percentile(mut v: Vec<f64>, q: f64) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[((v.len() as f64 * q) as usize).min(v.len() - 1)]
}

fn out(line: &str) {
    console_log!("bench| {line}");
}

fn fmt_bytes(b: usize) -> String {
    if b >= 1 << 20 {
        format!("{} MiB", b >> 20)
    } else {
        format!("{} KiB", b >> 10)
    }
}

fn fmt_time(s: f64) -> String {
    if s >= 1e-3 {
        format!("{:.2} ms", s * 1e3)
    } else {
        format!("{:.1} us", s * 1e6)
    }
}

/// What a case measures; each keeps the per-device shape, so that it can be
/// applied again to its own result.
#[derive(Clone, Copy, PartialEq)]
enum Case {
    Psum,
    Ppermute,
    AllToAll,
    /// psum_scatter followed by all_gather (tiled): the two halves of an
    /// all-reduce, timed together since each alone changes the shape.
    ScatterGather,
}

impl Case {
    fn name(self) -> &'static str {
        match self {
            Case::Psum => "psum",
            Case::Ppermute => "ppermute",
            Case::AllToAll => "all_to_all",
            Case::ScatterGather => "psum_scatter + all_gather",
        }
    }

    /// NCCL's bus bandwidth factor.
    fn bus_factor(self, p: usize) -> f64 {
        let p = p as f64;
        match self {
            Case::Psum | Case::ScatterGather => 2.0 * (p - 1.0) / p,
            Case::Ppermute => 1.0,
            Case::AllToAll => (p - 1.0) / p,
        }
    }

    fn apply(self, x: &Value, axes: &[String], p: usize) -> Result<Value> {
        match self {
            Case::Psum => par::psum(x, axes),
            Case::Ppermute => {
                let perm: Vec<(usize, usize)> = (0..p).map(|i| (i, (i + 1) % p)).collect();
                par::ppermute(x, axes, &perm)
            }
            Case::AllToAll => par::all_to_all(x, axes, 0, 0, true),
            Case::ScatterGather => {
                let y = par::psum_scatter(x, axes, 0, true)?;
                par::all_gather(&y, axes, 0, true, false)
            }
        }
    }
}

/// Milliseconds for one shard_map over `p` workers whose body applies
/// `case` `k` times in a row to a block of `words` float32 per device.
fn run_chain(case: Case, p: usize, words: usize, k: usize, x: &Array) -> f64 {
    let mesh = Mesh::new(&["x"], &[p]).unwrap();
    let axes = vec!["x".to_string()];
    let spec = PartitionSpec::new(vec![Some(axes.clone())]);
    let t = now_ms();
    let outs = par::shard_map(
        Box::new(move |a: &[Value]| {
            let mut v = a[0].clone();
            for _ in 0..k {
                v = case.apply(&v, &axes, p)?;
            }
            Ok(vec![v])
        }),
        &mesh,
        std::slice::from_ref(&spec),
        std::slice::from_ref(&spec),
        false,
        &[Value::from(x.clone())],
    )
    .unwrap_or_else(|e| panic!("{} on {p} workers, {words} words: {e}", case.name()));
    let ms = now_ms() - t;
    assert_eq!(outs[0].shape(), vec![p * words]);
    ms
}

/// Seconds per call of `case`: a chain of `1 + r` calls against a chain of
/// one, so that starting the workers, shipping the operands and gathering
/// the results cancel out. `r` is sized from a first estimate so that the
/// chain takes about 0.2 s; the fastest of three runs of each chain is kept,
/// as other processes only ever add time.
fn time_case(case: Case, p: usize, bytes: usize) -> f64 {
    let words = bytes / 4;
    let x = Array::zeros(&[p * words], DType::F32);
    let probe = 8;
    let rough = (run_chain(case, p, words, 1 + probe, &x) - run_chain(case, p, words, 1, &x))
        / probe as f64;
    let r = ((200.0 / rough.max(0.01)) as usize).clamp(4, 1000);
    let fastest = |k: usize| {
        (0..3)
            .map(|_| run_chain(case, p, words, k, &x))
            .fold(f64::INFINITY, f64::min)
    };
    let base = fastest(1);
    let long = fastest(1 + r);
    (long - base).max(1e-3) / r as f64 / 1e3
}

/// GB/s of a single-thread copy of `bytes` between two wasm buffers.
fn wasm_memcpy_gbs(bytes: usize) -> f64 {
    let words = bytes / 4;
    let src: Vec<u32> = (0..words as u32).collect();
    let mut dst = vec![0u32; words];
    let reps = (64 << 20) / bytes.max(1) + 1;
    let mut runs = vec![];
    for _ in 0..5 {
        let t = now_ms();
        for i in 0..reps {
            dst.copy_from_slice(&src);
            dst[i % words] ^= 1;
        }
        runs.push(bytes as f64 * reps as f64 / ((now_ms() - t) / 1e3) / 1e9);
    }
    std::hint::black_box(&dst);
    median(runs)
}

/// GFLOP/s of an `n x n` f32 matmul in this thread, as the native bench
/// measures it (`Array::dot_general`).
fn matmul_gflops(n: usize) -> (f64, f64) {
    let a: Vec<f32> = (0..n * n).map(|i| ((i % 17) as f32 - 8.0) / 8.0).collect();
    let b: Vec<f32> = (0..n * n).map(|i| ((i % 13) as f32 - 6.0) / 6.0).collect();
    let (a, b) = (
        Array::from_f32(&[n, n], a).unwrap(),
        Array::from_f32(&[n, n], b).unwrap(),
    );
    let once = || {
        let t = now_ms();
        let c = Array::dot_general(&a, &b, (&[1], &[0]), (&[], &[])).unwrap();
        std::hint::black_box(c);
        (now_ms() - t) / 1e3
    };
    let first = once();
    let iters = ((0.3 / first.max(1e-6)) as usize).clamp(3, 2000);
    let s = median((0..iters).map(|_| once()).collect());
    (s, 2.0 * (n as f64).powi(3) / s / 1e9)
}

fn barrier_rows(pool: &WorkerPool, n: usize) -> (f64, f64) {
    // Each probe's figure is one device's mean over 200 round trips; the
    // median and p99 are over 60 probes.
    let runs: Vec<f64> = (0..60)
        .map(|_| {
            let stats = pool
                .probe(&Probe {
                    devices: n,
                    iters: 200,
                    ..Probe::default()
                })
                .expect("barrier probe");
            stats
                .iter()
                .map(|s| s.barrier_us as f64)
                .fold(0.0, f64::max)
        })
        .collect();
    (median(runs.clone()), percentile(runs, 0.99))
}

#[wasm_bindgen_test]
async fn measure_shardlab_in_wasm() {
    let pool = support::pool(8).await;
    let _run = run::enter(Run::new(Config {
        mode: Mode::Parallel,
        devices_backend: pool.devices(),
        ..Config::default()
    }));
    let quick = quick();
    let max = if quick { 4 << 20 } else { 64 << 20 };
    let sizes: Vec<usize> = [4 << 10, 64 << 10, 1 << 20, 4 << 20, 16 << 20, 64 << 20]
        .into_iter()
        .filter(|&s| s <= max)
        .collect();
    out(&format!(
        "Measured in {} ({} logical cores reported), release build, simd128 {}{}. \
         Collectives: shard_map over 1-D meshes of 1 worker per device; each time is \
         (chain of 1 + r calls - chain of 1) / r, the fastest of 3 runs of each chain.\n",
        engine(),
        cores(),
        if cfg!(target_feature = "simd128") {
            "on"
        } else {
            "off"
        },
        if quick { "; quick (up to 4 MiB)" } else { "" }
    ));

    // A first pass lets the engine compile the copy loop with its optimising
    // tier before anything is timed.
    wasm_memcpy_gbs(1 << 20);
    let memcpy: Vec<f64> = sizes.iter().map(|&b| wasm_memcpy_gbs(b)).collect();
    out("| collective | devices | size/device | time | algbw GB/s | busbw GB/s | busbw / memcpy |");
    out("|---|---:|---:|---:|---:|---:|---:|");
    for p in [2usize, 4, 8] {
        for case in [
            Case::Psum,
            Case::ScatterGather,
            Case::Ppermute,
            Case::AllToAll,
        ] {
            for (i, &bytes) in sizes.iter().enumerate() {
                // 8 workers at 64 MiB each would hold several GiB of
                // inputs, outputs and scratch in one browser tab.
                if p * bytes > 256 << 20 {
                    continue;
                }
                let s = time_case(case, p, bytes);
                let algbw = bytes as f64 / s / 1e9;
                let busbw = algbw * case.bus_factor(p);
                out(&format!(
                    "| {} | {p} | {} | {} | {algbw:.2} | {busbw:.2} | {:.2} |",
                    case.name(),
                    fmt_bytes(bytes),
                    fmt_time(s),
                    busbw / memcpy[i]
                ));
            }
        }
    }
    out("");
    out("| memcpy (1 thread, wasm memory) | GB/s |");
    out("|---:|---:|");
    for (b, g) in sizes.iter().zip(&memcpy) {
        out(&format!("| {} | {g:.2} |", fmt_bytes(*b)));
    }
    out("");
    out("| copy 4 MiB, fabric | devices | wasm -> SAB GB/s | SAB -> wasm GB/s |");
    out("|---|---:|---:|---:|");
    for n in [2usize, 4, 8] {
        let copies: Vec<ProbeStats> = (0..5)
            .flat_map(|_| {
                pool.probe(&Probe {
                    devices: n,
                    iters: 1,
                    copy_words: 1 << 20,
                    reps: 20,
                    slot_words: 1 << 21,
                    ..Probe::default()
                })
                .expect("copy probe")
            })
            .collect();
        let write = median(copies.iter().map(|s| s.write_gbps as f64).collect());
        let read = median(copies.iter().map(|s| s.read_gbps as f64).collect());
        out(&format!("| | {n} | {write:.2} | {read:.2} |"));
    }
    out("");
    out("| barrier round trip | median | p99 |");
    out("|---:|---:|---:|");
    for n in [2usize, 4, 8] {
        let (med, p99) = barrier_rows(&pool, n);
        out(&format!("| {n} devices | {med:.2} us | {p99:.2} us |"));
    }
    out("");
    out("| f32 matmul n x n (1 thread, wasm) | median | GFLOP/s |");
    out("|---:|---:|---:|");
    for n in [64, 128, 256, 512, 1024] {
        let (s, g) = matmul_gflops(n);
        out(&format!("| {n} | {} | {g:.2} |", fmt_time(s)));
    }
}
