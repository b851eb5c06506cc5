//! The browser/Node fabric end to end: device workers running the engine's
//! collectives over a SharedArrayBuffer agree bit for bit with the lockstep
//! evaluator, and failures (a panic, a cancel, a time-out) release every
//! device and leave the pool usable.
//!
//! Runs in Node (`WASM_BINDGEN_USE_NODE_EXPERIMENTAL=1`) and in headless
//! Chromium (`WASM_BINDGEN_USE_DEDICATED_WORKER=1`, so that the test itself
//! is a worker and may block); see scripts/test-web.sh.

#![cfg(target_arch = "wasm32")]

// Keeps the library's exports (the device workers' entry points) in the
// test's wasm module.
extern crate shardlab;

use std::cell::RefCell;
use std::sync::Arc;
use std::time::Duration;

use wasm_bindgen_test::*;

use shardlab::exec::run::{self, Run};
use shardlab::exec::{Config, Devices, Mode};
use shardlab::ops::{self, parallel as par};
use shardlab::web::{now_ms, Probe, WorkerPool};
use shardlab::{Array, ErrorKind, Mesh, PartitionSpec, Result, Value};

#[path = "web/support.rs"]
mod support;

/// Device workers: 8 for the largest mesh and one more that cancels runs.
const WORKERS: usize = 9;
const CANCELLER: usize = 8;

async fn pool() -> WorkerPool {
    support::pool(WORKERS).await
}

thread_local! {
    /// The pool that runs parallel maps of the runs [`shard_run`] makes.
    static DEVICES: RefCell<Option<Arc<dyn Devices>>> = const { RefCell::new(None) };
}

/// Makes `pool` run the parallel maps of later [`shard_run`]s.
fn install(pool: &WorkerPool) {
    DEVICES.with(|d| *d.borrow_mut() = Some(pool.devices()));
}

/// A collective and its static arguments.
#[derive(Debug, Clone, Copy)]
enum Op {
    Psum,
    Pmean,
    Pmax,
    Pmin,
    AllGather { axis: i64, tiled: bool },
    PsumScatter { dim: i64 },
    Ppermute,
    AllToAll { split: i64, concat: i64 },
    AxisIndex,
}

const OPS: [Op; 12] = [
    Op::Psum,
    Op::Pmean,
    Op::Pmax,
    Op::Pmin,
    Op::AllGather {
        axis: 0,
        tiled: false,
    },
    Op::AllGather {
        axis: 1,
        tiled: true,
    },
    Op::PsumScatter { dim: 0 },
    Op::PsumScatter { dim: 1 },
    Op::Ppermute,
    Op::AllToAll {
        split: 0,
        concat: 1,
    },
    Op::AllToAll {
        split: 1,
        concat: 0,
    },
    Op::AxisIndex,
];

fn names(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// The body of the shard_map: `op` over `axes` (a group of `g` devices) on
/// the local block, always returning a rank-2 value.
fn apply(op: Op, x: &Value, axes: &[String], g: usize) -> Result<Value> {
    match op {
        Op::Psum => par::psum(x, axes),
        Op::Pmean => par::pmean(x, axes),
        Op::Pmax => par::pmax(x, axes),
        Op::Pmin => par::pmin(x, axes),
        Op::AllGather { axis, tiled } => {
            let y = par::all_gather(x, axes, axis, tiled, false)?;
            let shape = y.shape();
            ops::reshape(&y, &[shape[0], shape[1..].iter().product()])
        }
        Op::PsumScatter { dim } => par::psum_scatter(x, axes, dim, true),
        Op::Ppermute => {
            let perm: Vec<(usize, usize)> = (0..g).map(|i| (i, (i + 1) % g)).collect();
            par::ppermute(x, axes, &perm)
        }
        Op::AllToAll { split, concat } => par::all_to_all(x, axes, split, concat, true),
        Op::AxisIndex => ops::reshape(&par::axis_index(axes)?, &[1, 1]),
    }
}

/// Runs `op` in a shard_map over `mesh` in `mode`: the input is split so
/// that each device holds an 8x8 block, and so is the output assembled.
fn shard_run(mode: Mode, mesh: &Mesh, op: Op, axes: &[String], x: &Array) -> Result<Array> {
    let mut cfg = Config {
        mode,
        ..Config::default()
    };
    if let Some(devices) = DEVICES.with(|d| d.borrow().clone()) {
        cfg.devices_backend = devices;
    }
    let _run = run::enter(Run::new(cfg));
    let spec = PartitionSpec::new(
        mesh.axis_names()
            .iter()
            .map(|a| Some(vec![a.clone()]))
            .collect(),
    );
    let g: usize = axes
        .iter()
        .map(|a| {
            let i = mesh.axis_names().iter().position(|n| n == a).unwrap_or(0);
            mesh.shape()[i]
        })
        .product();
    let axes = axes.to_vec();
    let out = par::shard_map(
        Box::new(move |a: &[Value]| Ok(vec![apply(op, &a[0], &axes, g)?])),
        mesh,
        std::slice::from_ref(&spec),
        std::slice::from_ref(&spec),
        false,
        &[Value::from(x.clone())],
    )?;
    Ok(out[0].concrete("shard_map output")?.clone())
}

/// Distinct, signed, non-round values for a global array of `shape`.
fn input(shape: &[usize]) -> Array {
    let n: usize = shape.iter().product();
    let data = (0..n)
        .map(|i| ((i * 7919 + 13) % 1009) as f32 / 37.0 - 13.5)
        .collect();
    Array::from_f32(shape, data).unwrap()
}

/// Every collective on `mesh` over each axis tuple in `axis_sets`, on the
/// workers and in lockstep, bit for bit.
fn check_mesh(mesh: &Mesh, axis_sets: &[Vec<String>]) {
    let shape: Vec<usize> = match mesh.shape() {
        [n] => vec![8 * n, 8],
        [a, b] => vec![8 * a, 8 * b],
        s => panic!("unexpected mesh shape {s:?}"),
    };
    let x = input(&shape);
    for axes in axis_sets {
        for op in OPS {
            let want = shard_run(Mode::Lockstep, mesh, op, axes, &x);
            let got = shard_run(Mode::Parallel, mesh, op, axes, &x);
            let what = format!("{op:?} over {axes:?} on mesh {:?}", mesh.shape());
            match (want, got) {
                (Ok(w), Ok(g)) => {
                    assert!(g.bitwise_eq(&w), "{what}: workers {g:?} != lockstep {w:?}")
                }
                (w, g) => panic!("{what}: lockstep {w:?}, workers {g:?}"),
            }
        }
    }
}

#[wasm_bindgen_test]
async fn every_collective_matches_lockstep_on_2_4_and_8_workers() {
    let pool = pool().await;
    install(&pool);
    for n in [2usize, 4, 8] {
        check_mesh(&Mesh::new(&["x"], &[n]).unwrap(), &[names(&["x"])]);
        check_mesh(
            &Mesh::new(&["x", "y"], &[2, n / 2]).unwrap(),
            &[
                names(&["x"]),
                names(&["y"]),
                names(&["x", "y"]),
                names(&["y", "x"]),
            ],
        );
    }
}

fn psum_still_works(pool: &WorkerPool) {
    install(pool);
    check_mesh(&Mesh::new(&["x"], &[4]).unwrap(), &[names(&["x"])]);
    let stats = pool
        .probe(&Probe {
            devices: 4,
            iters: 50,
            ..Probe::default()
        })
        .expect("a probe after the failure");
    assert_eq!(stats.len(), 4);
}

#[wasm_bindgen_test]
async fn a_panicking_device_releases_the_others_and_the_pool_recovers() {
    let pool = pool().await;
    let start = now_ms();
    let e = pool
        .probe(&Probe {
            devices: 4,
            iters: 20,
            panic: Some(1),
            at: 3,
            ..Probe::default()
        })
        .expect_err("a device panicked");
    let elapsed = now_ms() - start;
    assert_eq!(e.kind, ErrorKind::RuntimeError, "{e}");
    assert!(
        e.message.contains("device 1: panicked: a deliberate panic"),
        "{e}"
    );
    // The others were waiting at barrier 3 with a 10 s timeout: the abort,
    // not the timeout, released them.
    assert!(elapsed < 2000.0, "released after {elapsed} ms");
    psum_still_works(&pool);
}

#[wasm_bindgen_test]
async fn a_cancel_releases_every_device_and_the_pool_recovers() {
    let pool = pool().await;
    let slot_words = Probe::default().slot_words;
    let sab = pool.fabric_buffer(4, slot_words).unwrap();
    pool.cancel_later(
        CANCELLER,
        &sab,
        4,
        slot_words,
        300.0,
        "cancelled by the test",
    )
    .unwrap();
    let start = now_ms();
    let e = pool
        .probe(&Probe {
            devices: 4,
            iters: 20,
            stall: Some(2),
            at: 5,
            timeout: Duration::from_secs(30),
            ..Probe::default()
        })
        .expect_err("the run was cancelled");
    let elapsed = now_ms() - start;
    assert_eq!(e.kind, ErrorKind::Cancelled, "{e}");
    assert!(e.message.contains("cancelled by the test"), "{e}");
    console_log!("cancel after 300 ms: every device released after {elapsed:.1} ms");
    assert!(elapsed < 300.0 + 150.0, "released after {elapsed} ms");
    psum_still_works(&pool);
}

#[wasm_bindgen_test]
async fn a_device_time_out_names_the_missing_device() {
    let pool = pool().await;
    let start = now_ms();
    let e = pool
        .probe(&Probe {
            devices: 4,
            iters: 20,
            stall: Some(3),
            at: 2,
            timeout: Duration::from_millis(300),
            ..Probe::default()
        })
        .expect_err("device 3 never arrived");
    let elapsed = now_ms() - start;
    assert_eq!(e.kind, ErrorKind::RuntimeError, "{e}");
    assert!(e.message.contains("timed out after 0.300 s"), "{e}");
    assert!(e.message.contains("device(s) [3]"), "{e}");
    assert!(elapsed < 300.0 + 500.0, "gave up after {elapsed} ms");
    psum_still_works(&pool);
}

#[wasm_bindgen_test]
async fn a_mesh_larger_than_the_pool_is_refused() {
    let pool = pool().await;
    install(&pool);
    let mesh = Mesh::new(&["x"], &[16]).unwrap();
    let e = shard_run(
        Mode::Parallel,
        &mesh,
        Op::Psum,
        &names(&["x"]),
        &input(&[128, 8]),
    )
    .expect_err("16 devices on 9 workers");
    assert!(e.message.contains("16 devices"), "{e}");
}

/// Many short runs back to back, where devices finish and leave while
/// others are still being woken from the last barrier: no device may take
/// one that arrived and left for one that never came.
#[wasm_bindgen_test]
async fn many_short_runs_in_a_row_agree_with_lockstep() {
    let pool = pool().await;
    install(&pool);
    let mesh = Mesh::new(&["x", "y"], &[2, 4]).unwrap();
    let x = input(&[16, 64]);
    let axes = names(&["x"]);
    let want: Vec<Array> = OPS[..4]
        .iter()
        .map(|&op| shard_run(Mode::Lockstep, &mesh, op, &axes, &x).unwrap())
        .collect();
    for i in 0..1000 {
        let op = OPS[i % 4];
        match shard_run(Mode::Parallel, &mesh, op, &axes, &x) {
            Ok(got) => assert!(got.bitwise_eq(&want[i % 4]), "run {i} {op:?} differs"),
            Err(e) => panic!("run {i} {op:?}: {e}"),
        }
    }
}
