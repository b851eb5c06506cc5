//! Measurements of the browser/Node fabric for docs/web.md: barrier round
//! trip and copy bandwidth between wasm memory and the SharedArrayBuffer,
//! on 2 and 4 device workers. Meant for a release build:
//! `scripts/test-web.sh --bench`.

#![cfg(target_arch = "wasm32")]

extern crate shardlab;

use wasm_bindgen_test::*;

use shardlab::web::{Probe, ProbeStats};

#[path = "web/support.rs"]
mod support;

fn median(mut v: Vec<f32>) -> f32 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

#[wasm_bindgen_test]
async fn measure_the_fabric() {
    let pool = support::pool(4).await;
    for n in [2usize, 4] {
        let barrier = |spins: Option<u32>| {
            let runs: Vec<f32> = (0..15)
                .map(|_| {
                    let stats = pool
                        .probe(&Probe {
                            devices: n,
                            iters: 2000,
                            spins,
                            ..Probe::default()
                        })
                        .expect("barrier probe");
                    stats.iter().map(|s| s.barrier_us).fold(0.0, f32::max)
                })
                .collect();
            median(runs)
        };
        let sleeping = barrier(None);
        let spinning = barrier(Some(100));
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
        let write = median(copies.iter().map(|s| s.write_gbps).collect());
        let read = median(copies.iter().map(|s| s.read_gbps).collect());
        console_log!(
            "fabric: {n} workers: barrier round trip median {sleeping:.1} us (Atomics.wait at once, \
             the default), {spinning:.1} us (100 polls first); copy 4 MiB wasm->SAB {write:.2} GB/s, \
             SAB->wasm {read:.2} GB/s"
        );
    }
}
