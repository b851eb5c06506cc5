//! What the playground page calls: run a whole Python program and get back
//! its output and a report of what every device did, as one JSON string.
//!
//! The page calls these from a coordinator worker, never from its main
//! thread: a run blocks until it is done, and in parallel mode it waits in
//! `Atomics.wait` for the device workers.

use std::cell::RefCell;

use js_sys::{Array as JsArray, Promise};
use serde_json::json;
use wasm_bindgen::prelude::*;

use super::clock::now_ms;
use super::pool::{start_workers, WorkerPool};
use crate::python::{run, Options};

thread_local! {
    /// The device workers parallel runs use, once installed.
    static POOL: RefCell<Option<WorkerPool>> = const { RefCell::new(None) };
}

/// Runs `source` as a JAX program on `devices` simulated devices and returns
/// `{"result", "stdout", "error"?, "report", "mode", "elapsed_ms"}` as JSON.
///
/// With `lockstep` every device runs in this thread, equation by equation;
/// otherwise shard_map and pmap bodies run on the installed device pool
/// (see [`install_device_pool`]), or in lockstep when there is none or it is
/// smaller than `devices`. `error` has `type`, `message`, `line` and `col`.
#[wasm_bindgen]
pub fn run_program(source: &str, devices: u32, lockstep: bool) -> String {
    console_error_panic_hook::set_once();
    let devices = devices.max(1) as usize;
    let pool_size = POOL.with(|p| p.borrow().as_ref().map_or(0, WorkerPool::size));
    let lockstep = lockstep || pool_size < devices;
    let options = Options {
        devices,
        lockstep,
        ..Options::default()
    };
    crate::report::start();
    let start = now_ms();
    let outcome = run(source, &options);
    let elapsed_ms = now_ms() - start;
    let report = crate::report::take();
    let error = outcome.error.map(|e| {
        json!({
            "type": e.error.kind.python_name(),
            "message": e.error.message,
            "line": e.line,
            "col": e.col,
        })
    });
    json!({
        "result": outcome.result,
        "stdout": outcome.stdout,
        "error": error,
        "report": report,
        "mode": if lockstep { "lockstep" } else { "parallel" },
        "devices": devices,
        "elapsed_ms": elapsed_ms,
    })
    .to_string()
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
    pool.install();
    let size = pool.size() as u32;
    POOL.with(|p| *p.borrow_mut() = Some(pool));
    Ok(size)
}

/// Size of the installed device pool (0 when there is none).
#[wasm_bindgen]
pub fn device_pool_size() -> u32 {
    POOL.with(|p| p.borrow().as_ref().map_or(0, |p| p.size() as u32))
}
