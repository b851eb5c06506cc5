//! Measurements of shardlab in WebAssembly, for docs/benchmarks.md and
//! docs/web.md: the five collectives on 2, 4 and 8 device workers from
//! 4 KiB per device against their copy limit, the barrier round trip, copies between wasm memory and
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
use shardlab::fabric::phases::{Phase, Totals, PHASES};
use shardlab::ops;
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
    /// psum_scatter (tiled), then its result concatenated `p` times to get
    /// the operand's shape back: that local copy is timed too.
    PsumScatter,
    /// all_gather (tiled), then the first block sliced out of the result to
    /// get the operand's shape back: that local copy is timed too.
    AllGather,
    Ppermute,
    AllToAll,
    /// `x * 1` in each worker, no collective: what one call of an
    /// element-wise operation that makes a fresh result of the same size
    /// costs in the device runtime, for reference.
    Local,
}

impl Case {
    fn name(self) -> &'static str {
        match self {
            Case::Psum => "psum",
            Case::PsumScatter => "psum_scatter",
            Case::AllGather => "all_gather",
            Case::Ppermute => "ppermute",
            Case::AllToAll => "all_to_all",
            Case::Local => "x * 1 (no collective)",
        }
    }

    /// NCCL's bus bandwidth factor, relative to the bytes of one device's
    /// operand.
    fn bus_factor(self, p: usize) -> f64 {
        let p = p as f64;
        match self {
            Case::Psum => 2.0 * (p - 1.0) / p,
            Case::PsumScatter | Case::AllToAll => (p - 1.0) / p,
            Case::AllGather => p - 1.0,
            Case::Ppermute | Case::Local => 1.0,
        }
    }

    /// The bytes one device must copy into the shared buffer and out of it
    /// for an operand of `bytes`, when each byte crosses once: what others
    /// need of its operand in, what its result needs of others' data out.
    /// psum is taken as its operand in and its result out.
    fn copy_bytes(self, p: usize, bytes: usize) -> (f64, f64) {
        let (p, s) = (p as f64, bytes as f64);
        match self {
            Case::Psum | Case::Ppermute => (s, s),
            Case::PsumScatter | Case::AllToAll => (s * (p - 1.0) / p, s * (p - 1.0) / p),
            Case::AllGather => (s, s * (p - 1.0)),
            Case::Local => (0.0, 0.0),
        }
    }

    fn apply(self, x: &Value, axes: &[String], p: usize) -> Result<Value> {
        match self {
            Case::Psum => par::psum(x, axes),
            Case::PsumScatter => {
                let y = par::psum_scatter(x, axes, 0, true)?;
                ops::concatenate(&vec![y; p], 0)
            }
            Case::AllGather => {
                let y = par::all_gather(x, axes, 0, true, false)?;
                let n = x.shape()[0];
                ops::slice(&y, &[0], &[n], &[1])
            }
            Case::Ppermute => {
                let perm: Vec<(usize, usize)> = (0..p).map(|i| (i, (i + 1) % p)).collect();
                par::ppermute(x, axes, &perm)
            }
            Case::AllToAll => par::all_to_all(x, axes, 0, 0, true),
            Case::Local => ops::mul_scalar(x, 1.0),
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
    // A chain keeps each call's result alive until it ends: at most about
    // 1 GiB of them per worker.
    let held = match case {
        Case::AllGather => (p + 1) * bytes,
        _ => 2 * bytes,
    };
    let r = ((200.0 / rough.max(0.01)) as usize)
        .min((1 << 30) / held)
        .clamp(4, 1000);
    let fastest = |k: usize| {
        (0..3)
            .map(|_| run_chain(case, p, words, k, &x))
            .fold(f64::INFINITY, f64::min)
    };
    let base = fastest(1);
    let long = fastest(1 + r);
    (long - base).max(1e-3) / r as f64 / 1e3
}

/// Calls in the longer chain of [`phase_row`].
const PHASE_CALLS: usize = 24;

/// Each device's phase totals and the wall time, in ms, of a chain of `k`
/// calls of `case`, with the devices timing their phases.
fn timed_chain(pool: &WorkerPool, case: Case, p: usize, k: usize, x: &Array) -> (f64, Vec<Totals>) {
    pool.time_phases(true);
    let ms = run_chain(case, p, x.size() / p, k, x);
    pool.time_phases(false);
    (ms, pool.phase_totals(p))
}

/// One call of `case` split into its phases, the mean over the devices of a
/// chain of `1 + PHASE_CALLS` calls less a chain of one (the fastest of 3
/// pairs): `(wall time, [ms per phase], [count per phase])`, per call.
fn phase_row(pool: &WorkerPool, case: Case, p: usize, bytes: usize) -> (f64, Totals) {
    let x = Array::zeros(&[p * bytes / 4], DType::F32);
    let mut best: Option<(f64, Totals)> = None;
    for _ in 0..3 {
        let (base_ms, base) = timed_chain(pool, case, p, 1, &x);
        let (long_ms, long) = timed_chain(pool, case, p, 1 + PHASE_CALLS, &x);
        let per_call = (long_ms - base_ms) / PHASE_CALLS as f64;
        let mut row = Totals::default();
        for (b, l) in base.iter().zip(&long) {
            for i in 0..PHASES {
                row.ms[i] += (l.ms[i] - b.ms[i]) / (PHASE_CALLS * p) as f64;
                row.count[i] += (l.count[i] - b.count[i]) / PHASE_CALLS as u32;
            }
        }
        for c in &mut row.count {
            *c /= p as u32;
        }
        if best.as_ref().is_none_or(|(t, _)| per_call < *t) {
            best = Some((per_call, row));
        }
    }
    best.expect("three runs")
}

/// The table of where a call's time goes, for the focused cases.
fn phase_table(pool: &WorkerPool, counts: &[usize], sizes: &[usize], cases: &[Case]) {
    out("");
    out("| collective | devices | size/device | time | in collective | copy in | copy out | barriers | fold | local copy | alloc | rest of collective | outside collective |");
    out("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let us = |ms: f64| format!("{:.0}", ms * 1e3);
    for &p in counts {
        for &case in cases.iter().filter(|&&c| c != Case::Local) {
            for &bytes in sizes {
                let (ms, t) = phase_row(pool, case, p, bytes);
                let at = |ph: Phase| Phase::ALL.iter().position(|&q| q == ph).unwrap_or(0);
                let call = t.ms[at(Phase::Call)];
                let parts: f64 = Phase::ALL[1..].iter().map(|&ph| t.ms[at(ph)]).sum();
                let barriers = t.count[at(Phase::Barrier)];
                let wait = t.ms[at(Phase::Barrier)];
                out(&format!(
                    "| {} | {p} | {} | {} | {} | {} | {} | {barriers} x {} = {} | {} | {} | {} | {} | {} |",
                    case.name(),
                    fmt_bytes(bytes),
                    us(ms),
                    us(call),
                    us(t.ms[at(Phase::CopyIn)]),
                    us(t.ms[at(Phase::CopyOut)]),
                    us(wait / f64::from(barriers.max(1))),
                    us(wait),
                    us(t.ms[at(Phase::Fold)]),
                    us(t.ms[at(Phase::Local)]),
                    us(t.ms[at(Phase::Alloc)]),
                    us(call - parts),
                    us(ms - call),
                ));
            }
        }
    }
    out("");
    out("Microseconds per call, mean over the devices; barriers: count x mean wait.");
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

/// Only the cases the copy-limit target names (psum, psum_scatter,
/// all_gather at 1 and 4 MiB on 2 and 4 workers), without the barrier and
/// matmul tables: `SHARDLAB_BENCH_FOCUS=1` when the test is built.
fn focus() -> bool {
    option_env!("SHARDLAB_BENCH_FOCUS") == Some("1")
}

/// Largest copy the bandwidth probe times: larger operands use its figure.
const PROBE_MAX_BYTES: usize = 4 << 20;

/// Median GB/s (wasm -> SAB, SAB -> wasm) of copies of `bytes` (at most
/// [`PROBE_MAX_BYTES`]) from each worker's memory into its slot and from the
/// next worker's slot into its memory, with `n` workers copying at once:
/// 5 probes of 1 GiB each way per worker, long enough (tens of ms) for the
/// workers' copies to overlap on the cores they share.
fn sab_copy_gbs(pool: &WorkerPool, n: usize, bytes: usize) -> (f64, f64) {
    let words = bytes.min(PROBE_MAX_BYTES) / 4;
    let copies: Vec<ProbeStats> = (0..5)
        .flat_map(|_| {
            pool.probe(&Probe {
                devices: n,
                iters: 1,
                copy_words: words,
                reps: ((256 << 20) / words).max(4),
                slot_words: 2 * words,
                ..Probe::default()
            })
            .expect("copy probe")
        })
        .collect();
    let write = median(copies.iter().map(|s| s.write_gbps as f64).collect());
    let read = median(copies.iter().map(|s| s.read_gbps as f64).collect());
    (write, read)
}

#[wasm_bindgen_test]
async fn measure_shardlab_in_wasm() {
    let pool = support::pool(8).await;
    let _run = run::enter(Run::new(Config {
        mode: Mode::Parallel,
        devices_backend: pool.devices(),
        ..Config::default()
    }));
    let (quick, focus) = (quick(), focus());
    let max = if quick || focus { 4 << 20 } else { 64 << 20 };
    let min = if focus { 1 << 20 } else { 0 };
    let sizes: Vec<usize> = [4 << 10, 64 << 10, 1 << 20, 4 << 20, 16 << 20, 64 << 20]
        .into_iter()
        .filter(|&s| (min..=max).contains(&s))
        .collect();
    let counts: &[usize] = if focus { &[2, 4] } else { &[2, 4, 8] };
    let cases: &[Case] = if focus {
        &[Case::Psum, Case::PsumScatter, Case::AllGather, Case::Local]
    } else {
        &[
            Case::Psum,
            Case::PsumScatter,
            Case::AllGather,
            Case::Ppermute,
            Case::AllToAll,
            Case::Local,
        ]
    };
    out(&format!(
        "Measured in {} ({} logical cores reported), release build, simd128 {}{}. \
         Collectives: shard_map over 1-D meshes of 1 worker per device; each time is \
         (chain of 1 + r calls - chain of 1) / r, the fastest of 3 runs of each chain. \
         Copy limit: the case's bytes in / wasm -> SAB GB/s + bytes out / SAB -> wasm \
         GB/s, both measured with as many workers copying at once.\n",
        engine(),
        cores(),
        if cfg!(target_feature = "simd128") {
            "on"
        } else {
            "off"
        },
        if focus {
            "; focused (psum, psum_scatter, all_gather at 1 and 4 MiB)"
        } else if quick {
            "; quick (up to 4 MiB)"
        } else {
            ""
        }
    ));

    // A first pass lets the engine compile the copy loop with its optimising
    // tier before anything is timed.
    wasm_memcpy_gbs(1 << 20);
    let memcpy: Vec<f64> = sizes.iter().map(|&b| wasm_memcpy_gbs(b)).collect();
    let sab: Vec<Vec<(f64, f64)>> = counts
        .iter()
        .map(|&n| sizes.iter().map(|&b| sab_copy_gbs(&pool, n, b)).collect())
        .collect();
    out("| collective | devices | size/device | time | algbw GB/s | busbw GB/s | busbw / memcpy | copy limit | limit / time |");
    out("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (pi, &p) in counts.iter().enumerate() {
        for &case in cases {
            for (i, &bytes) in sizes.iter().enumerate() {
                // 8 workers at 64 MiB each would hold several GiB of
                // inputs, outputs and scratch in one browser tab.
                if p * bytes > 256 << 20 {
                    continue;
                }
                let s = time_case(case, p, bytes);
                let algbw = bytes as f64 / s / 1e9;
                let busbw = algbw * case.bus_factor(p);
                let (bytes_in, bytes_out) = case.copy_bytes(p, bytes);
                let (w, r) = sab[pi][i];
                let limit = (bytes_in / w + bytes_out / r) / 1e9;
                let (limit, ratio) = if case == Case::Local {
                    ("-".to_string(), "-".to_string())
                } else {
                    (fmt_time(limit), format!("{:.2}", limit / s))
                };
                out(&format!(
                    "| {} | {p} | {} | {} | {algbw:.2} | {busbw:.2} | {:.2} | {limit} | {ratio} |",
                    case.name(),
                    fmt_bytes(bytes),
                    fmt_time(s),
                    busbw / memcpy[i],
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
    out("| copy, fabric (all workers at once) | devices | wasm -> SAB GB/s | SAB -> wasm GB/s |");
    out("|---|---:|---:|---:|");
    for (pi, &n) in counts.iter().enumerate() {
        for (i, &b) in sizes.iter().enumerate() {
            if b > PROBE_MAX_BYTES {
                continue;
            }
            let (w, r) = sab[pi][i];
            out(&format!("| {} | {n} | {w:.2} | {r:.2} |", fmt_bytes(b)));
        }
    }
    if focus {
        phase_table(&pool, counts, &sizes, cases);
        return;
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
