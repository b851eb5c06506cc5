//! Whole programs through the browser runtime's `run_program` on a pool of
//! four device workers: a seed program's output against the committed JAX
//! fixture in parallel and in lockstep mode, the report's arrays as typed
//! arrays, the parallel report's collectives equal to the lockstep one's,
//! and a cancel from another thread stopping a long computation.
//!
//! Runs in Node and in headless Chromium (the test itself in a dedicated
//! worker, so that it may block); see scripts/test-web.sh.

#![cfg(target_arch = "wasm32")]

// Keeps the library's exports (the device workers' entry points) in the
// test's wasm module.
extern crate shardlab;

use js_sys::{
    Float32Array, Float64Array, Int32Array, Reflect, SharedArrayBuffer, Uint32Array, Uint8Array,
};
use serde_json::Value as Json;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

use shardlab::web::now_ms;
use shardlab::web::program::{cancel_handle, install_pool, run_program, set_progress_listener};

#[path = "web/support.rs"]
mod support;

const DEVICES: u32 = 4;

/// A program on a 4-device mesh `mesh` with axis `x`: the imports and the
/// mesh, then `$body`.
macro_rules! program {
    ($body:literal) => {
        concat!(
            "import jax, jax.numpy as jnp, numpy as np\n",
            "from jax.sharding import Mesh, PartitionSpec as P\n",
            "from jax.experimental.shard_map import shard_map\n",
            "mesh = Mesh(np.array(jax.devices()[:4]), ('x',))\n",
            $body
        )
    };
}

/// A seed program on a 4-device mesh with pmeans of gradients and loss.
const SEED: &str = include_str!("programs/seed004_production_corrected_pmean.py");
/// What JAX 0.10.2 printed and returned for it.
const SEED_JAX: &str = include_str!("fixtures/programs/seed004_production_corrected_pmean.json");

/// int32, bool and float32 arrays (one NaN) through a shard_map with a psum.
/// By hand: each device holds two of 0..8, so the psum is [0+2+4+6,
/// 1+3+5+7] = [12, 16]; `b` is i % 3 == 0; `x / x` is NaN at 0, 1 elsewhere.
const DTYPES: &str = program!(
    r#"
def body(i, b, x):
    return jax.lax.psum(i, 'x'), b, (x / x) * 2.0

f = shard_map(body, mesh=mesh, in_specs=(P('x'), P('x'), P('x')),
              out_specs=(P(), P('x'), P('x')))
i = jnp.arange(8, dtype=jnp.int32)
s, b, y = f(i, i % 3 == 0, jnp.arange(8.0))
print(s)
"#
);

/// A thousand 256x256 matmuls on every device and no collective: seconds of
/// work even with simd128, which only a check between equations can
/// interrupt, in few enough equations to be traced quickly.
const LONG: &str = program!(
    r#"
def body(x, w):
    for k in range(1000):
        x = jnp.tanh(x @ w)
    return x

f = shard_map(body, mesh=mesh, in_specs=(P('x'), P()), out_specs=P('x'))
y = f(jnp.ones((4 * 256, 256)), jnp.eye(256) * 0.5)
print(y[0, 0])
"#
);

/// Twenty shard_maps in a row, each of ten 128x128 matmuls per device.
const MANY_MAPS: &str = program!(
    r#"
def body(x, w):
    for k in range(10):
        x = jnp.tanh(x @ w)
    return x

f = shard_map(body, mesh=mesh, in_specs=(P('x'), P()), out_specs=P('x'))
x = jnp.ones((4 * 128, 128))
for i in range(20):
    x = f(x, jnp.eye(128) * 0.5)
print(x.shape)
"#
);

#[wasm_bindgen(inline_js = r#"
// A progress listener that keeps [maps, elapsed_ms] of every call in its
// `calls`.
export function collector() {
  const calls = [];
  const f = (p) => calls.push([p.maps, p.elapsed_ms]);
  f.calls = calls;
  return f;
}

// Milliseconds on a clock that threads of one process share.
export function wallMs() {
  return performance.timeOrigin + performance.now();
}

// A worker that, once armed, sleeps `ms` and then cancels through `sab` as
// a page's main thread would: a store and a notify on word 0. It writes
// when it did so (wallMs) into the Float64Array over `stamp`.
export function armCancel(sab, ms, stamp) {
  const code = `
    const go = (d, post) => {
      post('armed');
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, d.ms);
      const word = new Int32Array(d.sab);
      new Float64Array(d.stamp)[0] = performance.timeOrigin + performance.now();
      Atomics.store(word, 0, 1);
      Atomics.notify(word, 0);
    };
    if (typeof self === 'undefined') {
      const { parentPort } = require('node:worker_threads');
      parentPort.once('message', (d) => go(d, (m) => parentPort.postMessage(m)));
    } else {
      self.onmessage = (e) => go(e.data, (m) => self.postMessage(m));
    }`;
  return (async () => {
    const node = typeof process === 'object' && process.versions && process.versions.node;
    let w;
    if (node) {
      const { Worker } = await import('node:worker_threads');
      w = new Worker(code, { eval: true });
    } else {
      w = new Worker(URL.createObjectURL(new Blob([code], { type: 'text/javascript' })));
    }
    await new Promise((resolve) => {
      const on = (m) => resolve(m);
      if (node) w.once('message', on);
      else w.onmessage = on;
      w.postMessage({ sab, ms, stamp });
    });
    if (node) w.unref();
    return w;
  })();
}

export function endWorker(w) {
  w.terminate();
}

// JSON text of a value, typed arrays as lists (NaN as "nan"), without the
// measured times (`elapsed_us`), which differ from run to run.
export function canon(v) {
  return JSON.stringify(v, (k, x) =>
    k === 'elapsed_us' ? undefined
      : ArrayBuffer.isView(x) ? Array.from(x, (e) => (Number.isNaN(e) ? 'nan' : e)) : x,
  );
}
"#)]
extern "C" {
    #[wasm_bindgen(js_name = wallMs)]
    fn wall_ms() -> f64;
    #[wasm_bindgen(js_name = armCancel)]
    fn arm_cancel(sab: &SharedArrayBuffer, ms: f64, stamp: &SharedArrayBuffer) -> js_sys::Promise;
    #[wasm_bindgen(js_name = endWorker)]
    fn end_worker(w: &JsValue);
    fn canon(v: &JsValue) -> String;
    fn collector() -> js_sys::Function;
}

async fn install() {
    install_pool(support::pool(DEVICES as usize).await);
}

fn get(v: &JsValue, key: &str) -> JsValue {
    Reflect::get(v, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

fn at(v: &JsValue, i: u32) -> JsValue {
    Reflect::get_u32(v, i).unwrap_or(JsValue::UNDEFINED)
}

fn len(v: &JsValue) -> u32 {
    get(v, "length").as_f64().unwrap_or(0.0) as u32
}

fn items(v: &JsValue) -> Vec<JsValue> {
    (0..len(v)).map(|i| at(v, i)).collect()
}

fn text(v: &JsValue, key: &str) -> String {
    get(v, key).as_string().unwrap_or_default()
}

fn run(source: &str, lockstep: bool) -> JsValue {
    run_program(source, DEVICES, lockstep).expect("run_program returns an object")
}

/// Fails the test with the program's error, if it raised one.
fn assert_no_error(out: &JsValue, what: &str) {
    let e = get(out, "error");
    assert!(
        e.is_null(),
        "{what}: {}: {} (line {:?})",
        text(&e, "type"),
        text(&e, "message"),
        get(&e, "line").as_f64()
    );
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 + 1e-5 * b.abs()
}

/// The printout's words, brackets and separators dropped.
fn words(s: &str) -> Vec<&str> {
    s.split_whitespace()
        .map(|w| w.trim_matches(|c| matches!(c, '[' | ']' | '(' | ')' | ',')))
        .filter(|w| !w.is_empty())
        .collect()
}

/// Same printout as JAX's, up to float32 rounding of the last digits (as
/// tests/programs.rs allows for XLA's kernels).
fn same_stdout(ours: &str, jax: &str) -> bool {
    let (a, b) = (words(ours), words(jax));
    ours.lines().count() == jax.lines().count()
        && a.len() == b.len()
        && a.iter().zip(&b).all(|(x, y)| {
            x == y || matches!((x.parse::<f64>(), y.parse::<f64>()), (Ok(p), Ok(q)) if close(p, q))
        })
}

/// Checks one array of the report: its data is the typed array of its
/// dtype, as long as its shape says.
fn check_typed(a: &JsValue, what: &str) {
    let dtype = text(a, "dtype");
    let data = get(a, "data");
    let typed = match dtype.as_str() {
        "float32" => data.is_instance_of::<Float32Array>(),
        "int32" => data.is_instance_of::<Int32Array>(),
        "uint32" => data.is_instance_of::<Uint32Array>(),
        "bool" => data.is_instance_of::<Uint8Array>(),
        other => panic!("{what}: unknown dtype {other:?}"),
    };
    assert!(typed, "{what}: {dtype} data is {}", canon(&data));
    let numel: f64 = items(&get(a, "shape"))
        .iter()
        .map(|d| d.as_f64().unwrap())
        .product();
    assert_eq!(len(&data) as f64, numel, "{what}: data length");
}

/// Every array of every map of a report, with where it is.
fn report_arrays(out: &JsValue) -> Vec<(String, JsValue)> {
    let mut all = vec![];
    for (m, map) in items(&get(&get(out, "report"), "maps")).iter().enumerate() {
        for side in ["inputs", "outputs"] {
            for (i, arr) in items(&get(map, side)).iter().enumerate() {
                all.push((format!("map {m} {side}[{i}].global"), get(arr, "global")));
                for (s, shard) in items(&get(arr, "shards")).iter().enumerate() {
                    all.push((
                        format!("map {m} {side}[{i}] shard {s}"),
                        get(shard, "value"),
                    ));
                }
            }
        }
        for (c, coll) in items(&get(map, "collectives")).iter().enumerate() {
            for side in ["before", "after"] {
                for (p, v) in items(&get(coll, side)).iter().enumerate() {
                    all.push((format!("map {m} collective {c} {side}[{p}]"), v.clone()));
                }
            }
        }
    }
    all
}

/// A report's collectives, map by map, as comparable text.
fn collectives(out: &JsValue) -> Vec<String> {
    items(&get(&get(out, "report"), "maps"))
        .iter()
        .map(|m| canon(&get(m, "collectives")))
        .collect()
}

fn check_seed_run(out: &JsValue, mode: &str, jax: &Json) {
    assert_eq!(text(out, "mode"), mode);
    assert_eq!(get(out, "devices").as_f64(), Some(f64::from(DEVICES)));
    assert_no_error(out, mode);
    let stdout = text(out, "stdout");
    let want = jax["stdout"].as_str().unwrap();
    assert!(
        same_stdout(&stdout, want),
        "[{mode}] stdout differs\n--- shardlab\n{stdout}--- JAX\n{want}"
    );
    let result = get(out, "result").as_f64().expect("a numeric result");
    let want = jax["result"].as_f64().unwrap();
    assert!(
        close(result, want),
        "[{mode}] result {result} vs JAX {want}"
    );
    let arrays = report_arrays(out);
    assert!(!arrays.is_empty(), "[{mode}] the report has no arrays");
    for (what, a) in &arrays {
        check_typed(a, &format!("[{mode}] {what}"));
    }
}

#[wasm_bindgen_test]
async fn a_seed_program_matches_jax_in_both_modes_with_the_same_collectives() {
    install().await;
    let jax: Json = serde_json::from_str(SEED_JAX).unwrap();
    let par = run(SEED, false);
    check_seed_run(&par, "parallel", &jax);
    let lock = run(SEED, true);
    check_seed_run(&lock, "lockstep", &jax);

    let (p, l) = (collectives(&par), collectives(&lock));
    assert_eq!(p.len(), 1, "one shard_map");
    assert!(
        p[0].len() > 10 && p[0].contains("psum"),
        "collectives {}",
        p[0]
    );
    assert_eq!(p, l, "parallel and lockstep collectives differ");

    // A psum's result on every device is the sum of the group's operands.
    let map = at(&get(&get(&par, "report"), "maps"), 0);
    let psums: Vec<JsValue> = items(&get(&map, "collectives"))
        .into_iter()
        .filter(|c| text(c, "name").starts_with("psum"))
        .collect();
    assert!(!psums.is_empty());
    for c in &psums {
        let before: Vec<Vec<f32>> = items(&get(c, "before"))
            .iter()
            .map(|a| get(a, "data").unchecked_into::<Float32Array>().to_vec())
            .collect();
        assert_eq!(before.len(), DEVICES as usize);
        let sum: Vec<f64> = (0..before[0].len())
            .map(|k| before.iter().map(|b| f64::from(b[k])).sum())
            .collect();
        for a in items(&get(c, "after")) {
            let after = get(&a, "data").unchecked_into::<Float32Array>().to_vec();
            for (x, s) in after.iter().zip(&sum) {
                assert!(
                    close(f64::from(*x), *s),
                    "psum gave {x}, operands sum to {s}"
                );
            }
        }
    }

    // Real per-device timings in parallel mode, none in lockstep.
    let timings = items(&get(&map, "timings"));
    assert_eq!(timings.len(), DEVICES as usize);
    for (d, t) in timings.iter().enumerate() {
        assert_eq!(get(t, "position").as_f64(), Some(d as f64));
        let total = get(t, "total_us").as_f64().unwrap();
        let coll = get(t, "collective_us").as_f64().unwrap();
        assert!(
            total > 0.0 && coll >= 0.0 && coll <= total,
            "device {d}: {total} us, {coll} us in collectives"
        );
    }
    let lock_map = at(&get(&get(&lock, "report"), "maps"), 0);
    assert_eq!(len(&get(&lock_map, "timings")), 0);
}

#[wasm_bindgen_test]
async fn report_arrays_are_typed_by_dtype_in_both_modes() {
    install().await;
    for lockstep in [false, true] {
        let out = run(DTYPES, lockstep);
        let mode = text(&out, "mode");
        assert_no_error(&out, &mode);
        assert_eq!(text(&out, "stdout"), "[12 16]\n", "[{mode}]");
        let map = at(&get(&get(&out, "report"), "maps"), 0);
        let global = |side: &str, i: u32| get(&at(&get(&map, side), i), "global");

        let i = get(&global("inputs", 0), "data");
        assert_eq!(
            i.unchecked_into::<Int32Array>().to_vec(),
            (0..8).collect::<Vec<i32>>()
        );
        let b = get(&global("inputs", 1), "data");
        assert_eq!(
            b.unchecked_into::<Uint8Array>().to_vec(),
            [1, 0, 0, 1, 0, 0, 1, 0]
        );
        let s = get(&global("outputs", 0), "data");
        assert_eq!(s.unchecked_into::<Int32Array>().to_vec(), [12, 16]);
        let y = get(&global("outputs", 2), "data")
            .unchecked_into::<Float32Array>()
            .to_vec();
        assert!(y[0].is_nan(), "[{mode}] 0 / 0 is NaN, got {}", y[0]);
        assert_eq!(&y[1..], &[2.0; 7], "[{mode}]");

        let colls: Vec<JsValue> = items(&get(&map, "collectives"))
            .into_iter()
            .filter(|c| text(c, "name").starts_with("psum"))
            .collect();
        assert_eq!(
            colls.len(),
            1,
            "[{mode}] one psum in {}",
            canon(&get(&map, "collectives"))
        );
        let before = items(&get(&colls[0], "before"));
        for (d, a) in before.iter().enumerate() {
            let got = get(a, "data").unchecked_into::<Int32Array>().to_vec();
            assert_eq!(
                got,
                [2 * d as i32, 2 * d as i32 + 1],
                "[{mode}] device {d}'s operand"
            );
        }
        for a in items(&get(&colls[0], "after")) {
            assert_eq!(
                get(&a, "data").unchecked_into::<Int32Array>().to_vec(),
                [12, 16]
            );
        }
        for (what, a) in report_arrays(&out) {
            check_typed(&a, &format!("[{mode}] {what}"));
        }
    }
}

#[wasm_bindgen_test]
async fn a_cancel_stops_a_long_computation_and_the_pool_runs_again() {
    install().await;
    let handle = cancel_handle().expect("shared memory");
    let jax: Json = serde_json::from_str(SEED_JAX).unwrap();
    const AFTER_MS: f64 = 1500.0;
    let stamp = SharedArrayBuffer::new(8);
    for lockstep in [false, true] {
        let canceller = JsFuture::from(arm_cancel(&handle, AFTER_MS, &stamp))
            .await
            .expect("the cancelling worker starts");
        let start = now_ms();
        let out = run(LONG, lockstep);
        let elapsed = now_ms() - start;
        let latency = wall_ms() - Float64Array::new(&stamp).get_index(0);
        end_worker(&canceller);
        let mode = text(&out, "mode");
        let e = get(&out, "error");
        assert!(
            !e.is_null(),
            "[{mode}] the run finished after {elapsed:.0} ms"
        );
        let message = text(&e, "message");
        console_log!(
            "[{mode}] cancelled {AFTER_MS} ms in: returned {latency:.1} ms after the cancel, \
             {elapsed:.0} ms after the start ({message})"
        );
        assert_eq!(text(&e, "type"), "Cancelled", "[{mode}] {message}");
        assert!(
            message.contains("the run was cancelled"),
            "[{mode}] {message}"
        );
        // Stopped inside the computation, not before it began.
        assert!(!message.contains("(equation 1 of"), "[{mode}] {message}");
        if lockstep {
            assert!(message.contains("stopped before"), "{message}");
        } else {
            for d in 0..DEVICES {
                assert!(
                    message.contains(&format!("device {d}: stopped before")),
                    "{message}"
                );
            }
        }
        assert!(
            latency < 100.0,
            "[{mode}] returned {latency:.0} ms after the cancel"
        );
        check_seed_run(&run(SEED, false), "parallel", &jax);
    }
}

#[wasm_bindgen_test]
async fn progress_reports_finished_maps_at_most_every_100_ms() {
    install().await;
    for lockstep in [false, true] {
        let listener = collector();
        set_progress_listener(Some(listener.clone()));
        let out = run(MANY_MAPS, lockstep);
        set_progress_listener(None);
        let mode = text(&out, "mode");
        assert_no_error(&out, &mode);
        assert_eq!(text(&out, "stdout"), "(512, 128)\n");
        let total = get(&out, "elapsed_ms").as_f64().unwrap();
        let calls: Vec<(f64, f64)> = items(&get(&listener, "calls"))
            .iter()
            .map(|c| (at(c, 0).as_f64().unwrap(), at(c, 1).as_f64().unwrap()))
            .collect();
        console_log!("[{mode}] {total:.0} ms, progress {calls:?}");
        // At most one call per 100 ms, and some during a run of seconds.
        assert!(
            calls.len() as f64 <= total / 100.0 + 1.0,
            "[{mode}] {calls:?}"
        );
        assert!(
            total < 400.0 || calls.len() >= 2,
            "[{mode}] {calls:?} in {total} ms"
        );
        for w in calls.windows(2) {
            assert!(
                w[1].1 - w[0].1 >= 99.0,
                "[{mode}] calls too close: {calls:?}"
            );
            assert!(w[1].0 >= w[0].0, "[{mode}] maps went back: {calls:?}");
        }
        for &(maps, elapsed) in &calls {
            assert!(
                maps <= 20.0 && elapsed >= 100.0 && elapsed <= total,
                "[{mode}] {calls:?}"
            );
        }
        assert!(
            calls.last().is_some_and(|c| c.0 >= 1.0),
            "[{mode}] finished maps never reported: {calls:?}"
        );
    }
}

/// The browser engine is built without Unicode character names (they would
/// be about 0.3 MB of its download): a `"\N{...}"` escape is refused by name
/// where it is written, before anything runs.
#[wasm_bindgen_test]
async fn unicode_name_escapes_are_refused_by_name() {
    install().await;
    let out = run("print(1)\nx = 'a\\N{GREEK SMALL LETTER ALPHA}'\n", true);
    let e = get(&out, "error");
    assert_eq!(text(&e, "type"), "NotImplementedError");
    let message = text(&e, "message");
    assert!(
        message.starts_with("not supported by shardlab yet: \\N{...} escapes"),
        "{message}"
    );
    assert_eq!(
        (get(&e, "line").as_f64(), get(&e, "col").as_f64()),
        (Some(2.0), Some(7.0))
    );
    assert_eq!(text(&out, "stdout"), "");
}

/// This build has every Cargo feature, so it holds what the playground's
/// core engine leaves out (`re`, jnp's compositions, SciPy) and never asks
/// the page for another engine: `left_out` is null.
#[wasm_bindgen_test]
async fn the_whole_engine_leaves_nothing_out() {
    install().await;
    let source = "import re\nimport jax.numpy as jnp\nfrom jax.scipy.special import logsumexp\n\
                  result = [len(re.findall('a', 'banana')), float(jnp.quantile(jnp.arange(5.0), 0.75)),\n\
                  float(logsumexp(jnp.zeros(1)))]\n";
    let out = run(source, true);
    assert!(get(&out, "error").is_null(), "{:?}", get(&out, "error"));
    assert!(get(&out, "left_out").is_null());
    let result = get(&out, "result");
    let values: Vec<f64> = (0..3)
        .map(|i| at(&result, i).as_f64().unwrap_or(f64::NAN))
        .collect();
    // JAX: [3, 3.0, 0.0].
    assert_eq!(values, vec![3.0, 3.0, 0.0]);
}
