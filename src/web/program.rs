//! What the playground page calls: run a whole Python program and get back
//! its output and a report of what every device did, as one JavaScript
//! object.
//!
//! The page calls these from a coordinator worker, never from its main
//! thread: a run blocks until it is done, and in parallel mode it waits in
//! `Atomics.wait` for the device workers.

use std::cell::RefCell;

use js_sys::{Array as JsArray, Atomics, Int32Array, Promise, SharedArrayBuffer};
use serde::Serialize;
use wasm_bindgen::prelude::*;

use super::clock::now_ms;
use super::fabric::shared_memory_available;
use super::pool::{start_workers, WorkerPool};
use crate::program::{run_recorded, Options};
use crate::report::Report;

thread_local! {
    /// The device workers parallel runs use, once installed.
    static POOL: RefCell<Option<WorkerPool>> = const { RefCell::new(None) };
    /// Word 0 of [`cancel_handle`]'s buffer, once made.
    static CANCEL: RefCell<Option<Int32Array>> = const { RefCell::new(None) };
    /// What [`set_progress_listener`] set, with when the run in progress
    /// started and when the listener was last called.
    static PROGRESS: RefCell<Option<Progress>> = const { RefCell::new(None) };
    /// When the run in progress must stop (`now_ms` time), if it has a time
    /// limit: an exercise's case has one.
    static DEADLINE: std::cell::Cell<Option<f64>> = const { std::cell::Cell::new(None) };
    /// Set when the run in progress was stopped for passing its memory
    /// limit (see [`set_memory_limit`]).
    static OVER_MEMORY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Makes later runs of this thread stop with `MemoryError` once this wasm
/// instance's memory passes `bytes` (0, a negative number or NaN: no limit).
/// The memory is checked at every step, as the time limit is, and strings
/// and lists that would pass the limit are refused before they are built.
#[wasm_bindgen]
pub fn set_memory_limit(bytes: f64) {
    let limit = if bytes.is_finite() && bytes > 0.0 {
        bytes as u64
    } else {
        u64::MAX
    };
    crate::python::budget::set_max_memory(limit);
}

/// The size of this wasm instance's memory in bytes. It never shrinks: a
/// worker that grew large is replaced to give the memory back.
#[wasm_bindgen]
pub fn memory_bytes() -> f64 {
    crate::python::budget::resident_bytes().unwrap_or(0) as f64
}

/// Names the stop of a run that passed its memory limit: a `Cancelled`
/// error becomes `MemoryError` with the limit, keeping where the run was.
pub(super) fn name_memory_stop(outcome: &mut crate::python::Outcome) {
    if !OVER_MEMORY.with(|o| o.replace(false)) {
        return;
    }
    let (Some(e), Some(max)) = (&mut outcome.error, crate::python::budget::max_memory()) else {
        return;
    };
    if e.error.kind == crate::error::ErrorKind::Cancelled {
        e.error = crate::error::Error::new(
            crate::error::ErrorKind::MemoryError,
            crate::python::budget::limit_message(max, "maxMemory"),
        );
    }
}

/// Gives the runs of this thread a deadline `ms` from now (None: no limit).
#[cfg_attr(not(feature = "check"), allow(dead_code))]
pub(super) fn set_time_limit(ms: Option<f64>) {
    DEADLINE.with(|d| d.set(ms.map(|ms| now_ms() + ms)));
}

/// True once the deadline of [`set_time_limit`] has passed.
pub(super) fn past_time_limit() -> bool {
    DEADLINE.with(|d| d.get()).is_some_and(|end| now_ms() > end)
}

/// A progress listener and its clock.
struct Progress {
    listener: js_sys::Function,
    start_ms: f64,
    last_ms: f64,
}

/// Least time between two calls of the progress listener.
const PROGRESS_EVERY_MS: f64 = 100.0;

/// What [`run_program`] returns, as a JavaScript object.
#[derive(Serialize)]
struct RunOutcome {
    /// The program's global `result` as a JSON value (null when unset).
    result: serde_json::Value,
    stdout: String,
    error: Option<RunError>,
    report: Report,
    mode: &'static str,
    devices: usize,
    elapsed_ms: f64,
    /// The Cargo feature this engine was built without that the program
    /// reached (its refusal may have been caught), or null: the whole
    /// engine would run it differently.
    left_out: Option<&'static str>,
}

/// The exception that stopped a program.
#[derive(Serialize)]
struct RunError {
    #[serde(rename = "type")]
    kind: String,
    message: String,
    line: usize,
    col: usize,
}

/// Runs `source` as a JAX program on `devices` simulated devices and returns
/// `{result, stdout, error, report, mode, devices, elapsed_ms, left_out}` as a
/// JavaScript object (built with serde-wasm-bindgen): `result` is the
/// program's global `result` (null when unset), `error` is null or `{type,
/// message, line, col}`, and every array of the report (`{shape, dtype,
/// data}`) has its `data` as a typed array: `Float32Array` for float32,
/// `Int32Array` for int32, `Uint8Array` (0/1) for bool.
///
/// With `lockstep` every device runs in this thread, equation by equation;
/// otherwise shard_map and pmap bodies run on the installed device pool
/// (see [`install_device_pool`]), or in lockstep when there is none or it is
/// smaller than `devices`. A run can be stopped from another thread through
/// [`cancel_handle`]; it then fails with an error of type `Cancelled`.
#[wasm_bindgen]
pub fn run_program(source: &str, devices: u32, lockstep: bool) -> Result<JsValue, JsValue> {
    console_error_panic_hook::set_once();
    let (options, lockstep) = run_options(devices as usize, lockstep);
    let devices = options.devices;
    clear_cancel();
    let start = now_ms();
    PROGRESS.with(|p| {
        if let Some(p) = p.borrow_mut().as_mut() {
            (p.start_ms, p.last_ms) = (start, start);
        }
    });
    OVER_MEMORY.with(|o| o.set(false));
    crate::modules::take_left_out();
    let (mut outcome, report) = run_recorded(source, &options);
    name_memory_stop(&mut outcome);
    let elapsed_ms = now_ms() - start;
    let error = outcome.error.map(|e| RunError {
        kind: e.error.type_name().to_string(),
        message: e.error.message,
        line: e.line,
        col: e.col,
    });
    let out = RunOutcome {
        result: outcome.result.unwrap_or(serde_json::Value::Null),
        stdout: outcome.stdout,
        error,
        report,
        mode: if lockstep { "lockstep" } else { "parallel" },
        devices,
        elapsed_ms,
        left_out: crate::modules::take_left_out(),
    };
    crate::report::js::to_js(&out).map_err(Into::into)
}

/// The options of a run on `devices` devices, and whether it runs in
/// lockstep: asked to, or because the installed pool is smaller than
/// `devices`.
pub(super) fn run_options(devices: usize, lockstep: bool) -> (Options, bool) {
    let devices = devices.max(1);
    let pool = POOL.with(|p| p.borrow().clone());
    let lockstep = lockstep || pool.as_ref().map_or(0, WorkerPool::size) < devices;
    // The page shows every device's own timeline, which needs threads:
    // parallel means parallel for every map here.
    let options = Options {
        devices,
        mode: if lockstep {
            crate::exec::Mode::Lockstep
        } else {
            crate::exec::Mode::Parallel
        },
        // A run polls for a cancel and calls the progress listener.
        stop: Some(poll),
        devices_backend: pool.filter(|_| !lockstep).map(|p| p.devices()),
        ..Options::default()
    };
    (options, lockstep)
}

/// Clears a cancel stored between runs: a cancel stops the run in
/// progress only.
pub(super) fn clear_cancel() {
    CANCEL.with(|c| {
        if let Some(word) = c.borrow().as_ref() {
            let _ = Atomics::store(word, 0, 0);
        }
    });
}

/// What the evaluators of this thread poll between equations (and the
/// coordinator while it waits for devices): calls the progress listener when
/// it is due, and says whether the run was cancelled.
fn poll() -> Option<String> {
    report_progress();
    if past_time_limit() {
        return Some("the run passed its time limit".into());
    }
    if crate::python::budget::over_limit() {
        OVER_MEMORY.with(|o| o.set(true));
        return Some("the run passed its memory limit".into());
    }
    cancel_requested()
}

/// Calls the progress listener with `{ maps, elapsed_ms }` if one is set and
/// it was last called at least [`PROGRESS_EVERY_MS`] ago.
fn report_progress() {
    PROGRESS.with(|p| {
        let Ok(mut p) = p.try_borrow_mut() else {
            return;
        };
        let Some(p) = p.as_mut() else { return };
        let now = now_ms();
        if now - p.last_ms < PROGRESS_EVERY_MS {
            return;
        }
        p.last_ms = now;
        let update = super::job::message(&[
            ("maps", (crate::exec::run::maps_seen() as f64).into()),
            ("elapsed_ms", (now - p.start_ms).into()),
        ]);
        // A listener that throws is not the run's concern.
        let _ = p.listener.call1(&JsValue::NULL, &update);
    });
}

/// Makes `listener` be called during later runs of this thread, at most
/// every 100 ms, with `{ maps, elapsed_ms }`: the shard_maps and pmaps
/// finished so far and the time since the run started. It is called from
/// the running thread between equations (lockstep) or while the devices
/// compute (parallel), so it must be quick; `postMessage` from a worker is.
/// `null` removes it.
#[wasm_bindgen]
pub fn set_progress_listener(listener: Option<js_sys::Function>) {
    let now = now_ms();
    PROGRESS.with(|p| {
        *p.borrow_mut() = listener.map(|listener| Progress {
            listener,
            start_ms: now,
            last_ms: now,
        })
    });
}

/// The reason a run on this thread was cancelled through [`cancel_handle`],
/// once it was.
fn cancel_requested() -> Option<String> {
    CANCEL.with(|c| {
        let c = c.borrow();
        let word = c.as_ref()?;
        (Atomics::load(word, 0).unwrap_or(0) != 0).then(|| "the run was cancelled".to_string())
    })
}

/// A `SharedArrayBuffer` through which another thread (the page's main
/// thread, say) cancels the run in progress on this one:
/// `Atomics.store(new Int32Array(handle), 0, 1)` (and `Atomics.notify` on
/// the same word). The run's devices stop before their next equation and
/// `run_program` returns an error of type `Cancelled` naming where each
/// device stopped. The same buffer serves every later run of this thread;
/// `run_program` clears the word when it starts. Needs shared memory (a
/// cross-origin isolated page, or Node).
#[wasm_bindgen]
pub fn cancel_handle() -> Result<SharedArrayBuffer, JsValue> {
    if !shared_memory_available() {
        return Err(JsValue::from_str(
            "SharedArrayBuffer is not available here: a browser page must be cross-origin \
             isolated (COOP: same-origin, COEP: require-corp)",
        ));
    }
    let word = CANCEL.with(|c| {
        c.borrow_mut()
            .get_or_insert_with(|| Int32Array::new(&SharedArrayBuffer::new(4)))
            .clone()
    });
    Ok(word.buffer().unchecked_into())
}

/// Starts `n` device workers that load the wasm-bindgen glue at `glue_url`
/// with this very module; resolves to the workers, to be handed to
/// [`install_device_pool`].
#[wasm_bindgen]
pub fn start_device_workers(n: u32, glue_url: &str) -> Promise {
    start_workers(n as usize, glue_url, &wasm_bindgen::module())
}

/// Makes `workers` (what [`start_device_workers`] resolved to) the devices
/// of later parallel runs in this thread, dropping (and terminating) any
/// previous pool. Returns the pool's size.
#[wasm_bindgen]
pub fn install_device_pool(workers: JsArray) -> Result<u32, JsValue> {
    let pool = WorkerPool::new(workers).map_err(|e| JsValue::from_str(&e.to_string()))?;
    Ok(install_pool(pool))
}

/// [`install_device_pool`] for a pool made in Rust: `pool` runs the devices
/// of later parallel runs of [`run_program`] in this thread. Returns its
/// size.
pub fn install_pool(pool: WorkerPool) -> u32 {
    let size = pool.size() as u32;
    POOL.with(|p| *p.borrow_mut() = Some(pool));
    // The old workers' memory went with them.
    crate::python::budget::set_held_elsewhere(0);
    size
}

/// True when a device of the installed pool ran past the memory limit, or
/// its workers together hold more than half of it: a wasm memory stays that
/// large, so the pool is to be replaced (installing a new one ends its
/// workers) before the next parallel run. Call after [`set_memory_limit`].
#[wasm_bindgen]
pub fn device_pool_grown() -> bool {
    POOL.with(|p| p.borrow().as_ref().is_some_and(WorkerPool::grown))
}

/// Size of the installed device pool (0 when there is none).
#[wasm_bindgen]
pub fn device_pool_size() -> u32 {
    POOL.with(|p| p.borrow().as_ref().map_or(0, |p| p.size() as u32))
}
