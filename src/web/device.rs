//! The device side: what a device worker runs for each job.
//!
//! A job names the shared fabric buffer and this worker's position; the
//! worker attaches a [`SabFabric`] to it, runs its part, and reports through
//! the buffer: outputs into the job's output buffer, then its status and the
//! done count, which the coordinator waits on. A failure aborts the fabric
//! with the device's error, so every other device is released at once and
//! the coordinator gets the first failure with its kind.
//!
//! wasm32 has no unwinding: a panic runs the panic hook and then traps. The
//! hook reports the panic through the fabric of the job in progress before
//! the trap, and the worker script then loads a fresh wasm instance.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Once;
use std::time::Duration;

use js_sys::{Atomics, Int32Array, Uint32Array, Uint8Array};
use wasm_bindgen::prelude::*;

use super::clock::now_ms;
use super::fabric::{header, SabFabric, Status};
use super::job::{
    f64_field, log_at, log_buffer_bytes, opt_field, sab_field, str_field, usize_field, words_field,
    Program,
};
use super::wire::{array_from_words, push_words};
use crate::array::{numel, Array};
use crate::collectives::DeviceCtx;
use crate::error::{Error, ErrorKind, Result};
use crate::exec::comm::OnFabric;
use crate::exec::{eval_lanes, logged};
use crate::fabric::{half_offset, half_words, phases, Fabric};
use crate::{bail, err};

thread_local! {
    /// The fabric and position of the job in progress, for the panic hook.
    static CURRENT: RefCell<Option<(Rc<SabFabric>, usize)>> = const { RefCell::new(None) };
    /// The log of this device's last recorded run, as written back, kept
    /// until the next run in case the coordinator asks for it again.
    static LAST_LOG: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

static HOOK: Once = Once::new();

/// Installs (once) a panic hook that reports a device's panic through its
/// fabric before the trap, then logs it to the console.
fn install_panic_hook() {
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let message = info
                .payload()
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| info.payload().downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic without a message".into());
            let current = CURRENT
                .try_with(|c| c.try_borrow().ok().and_then(|c| c.clone()))
                .ok()
                .flatten();
            if let Some((fabric, position)) = current {
                fail(
                    &fabric,
                    position,
                    &err!(RuntimeError, "panicked: {message}"),
                );
            }
            previous(info);
            console_error_panic_hook::hook(info);
        }));
    });
}

/// Reports `device`'s failure: aborts the fabric (only the first reason is
/// kept) and counts the device as done.
fn fail(fabric: &SabFabric, device: usize, e: &Error) {
    fabric.abort_with(e.kind, &format!("device {device}: {}", e.message));
    fabric.set_note(device, &e.message);
    fabric.finish(device, Status::Failed);
}

/// The fabric a job names, attached with the job's shape and timeout.
fn attach(job: &JsValue) -> Result<(Rc<SabFabric>, usize)> {
    let buffer = sab_field(job, "fabric")?;
    let devices = usize_field(job, "devices")?;
    let slot_words = usize_field(job, "slotWords")?;
    let timeout_ms = f64_field(job, "timeoutMs", 30_000.0).max(0.0);
    let position = usize_field(job, "position")?;
    let fabric = SabFabric::attach(
        buffer,
        devices,
        slot_words,
        Duration::from_secs_f64(timeout_ms / 1000.0),
    )?;
    if position >= devices {
        bail!(
            RuntimeError,
            "device position {position} is outside the fabric of {devices} devices"
        );
    }
    Ok((Rc::new(fabric), position))
}

/// Runs one job sent by the coordinator. Everything it has to say goes
/// through shared memory; the returned error only covers jobs too malformed
/// to name a fabric to report to.
#[wasm_bindgen(js_name = shardlabDeviceJob)]
pub fn device_job(job: JsValue) -> std::result::Result<(), JsValue> {
    install_panic_hook();
    let kind = str_field(&job, "kind").map_err(|e| JsValue::from_str(&e.to_string()))?;
    if kind == "cancel" {
        return cancel_job(&job).map_err(|e| JsValue::from_str(&e.to_string()));
    }
    let (fabric, position) = attach(&job).map_err(|e| JsValue::from_str(&e.to_string()))?;
    CURRENT.with(|c| *c.borrow_mut() = Some((Rc::clone(&fabric), position)));
    let outcome = match kind.as_str() {
        "run" => run_program(&job, &fabric, position),
        "probe" => run_probe(&job, &fabric, position),
        "log" => LAST_LOG.with(|l| write_log(&job, position, &l.borrow())),
        other => Err(err!(RuntimeError, "unknown device job kind {other:?}")),
    };
    CURRENT.with(|c| *c.borrow_mut() = None);
    super::memory::device_end();
    match outcome {
        Ok(()) => {
            fabric.depart(position);
            fabric.finish(position, Status::Done);
        }
        Err(e) => fail(&fabric, position, &e),
    }
    Ok(())
}

/// Reports a device whose wasm trapped without the panic hook having
/// reported it (a stack overflow, say). Harmless when it was reported.
#[wasm_bindgen(js_name = shardlabDeviceLost)]
pub fn device_lost(job: JsValue, message: String) {
    CURRENT.with(|c| {
        if let Ok(mut c) = c.try_borrow_mut() {
            *c = None;
        }
    });
    if let Ok((fabric, position)) = attach(&job) {
        fail(
            &fabric,
            position,
            &err!(RuntimeError, "its wasm instance trapped: {message}"),
        );
    }
}

/// Stops the run on the fabric in `sab` (as shared with the page or another
/// worker) with a Cancelled error. Does not block, so a page's main thread
/// may call it.
#[wasm_bindgen(js_name = shardlabCancel)]
pub fn cancel(
    sab: js_sys::SharedArrayBuffer,
    devices: usize,
    slot_words: usize,
    reason: &str,
) -> std::result::Result<(), JsValue> {
    let fabric = SabFabric::attach(sab, devices, slot_words, Duration::ZERO)
        .map_err(|e| JsValue::from_str(&e.to_string()))?;
    fabric.abort_with(ErrorKind::Cancelled, reason);
    Ok(())
}

/// A job that waits `afterMs` and then cancels the run on its fabric.
fn cancel_job(job: &JsValue) -> Result<()> {
    let buffer = sab_field(job, "fabric")?;
    let devices = usize_field(job, "devices")?;
    let slot_words = usize_field(job, "slotWords")?;
    let after = f64_field(job, "afterMs", 0.0).max(0.0);
    let reason = str_field(job, "reason").unwrap_or_else(|_| "cancelled".into());
    // Blocking on a private word is this worker's way to sleep.
    let idle = Int32Array::new(&js_sys::SharedArrayBuffer::new(4));
    let _ = Atomics::wait_with_timeout(&idle, 0, 0, after);
    let fabric = SabFabric::attach(buffer, devices, slot_words, Duration::ZERO)?;
    fabric.abort_with(ErrorKind::Cancelled, &reason);
    Ok(())
}

/// Runs the job's program for this device's position and writes its outputs.
fn run_program(job: &JsValue, fabric: &Rc<SabFabric>, position: usize) -> Result<()> {
    let program: Program = serde_json::from_str(&str_field(job, "program")?).map_err(|e| {
        err!(
            RuntimeError,
            "cannot read the program sent to the device: {e}"
        )
    })?;
    crate::python::budget::set_max_memory(match f64_field(job, "maxMemory", -1.0) {
        m if m > 0.0 => m as u64,
        _ => u64::MAX,
    });
    let outside = f64_field(job, "heldElsewhere", 0.0).max(0.0) as u64;
    super::memory::device_start(fabric, position, outside);
    let words = words_field(job, "inputs")?;
    let mut args = Vec::with_capacity(program.inputs.len());
    let mut at = 0;
    for (shape, dtype) in &program.inputs {
        let n = numel(shape);
        let chunk = words
            .get(at..at + n)
            .ok_or_else(|| err!(RuntimeError, "the device's input words are too few"))?;
        args.push(vec![array_from_words(shape, *dtype, chunk)?]);
        at += n;
    }
    let comm = OnFabric {
        ctx: DeviceCtx {
            fabric: &**fabric,
            mesh: &program.mesh,
            position,
        },
        stop: Some(past_memory_limit),
    };
    let record = f64_field(job, "record", 0.0) > 0.0;
    LAST_LOG.with(|l| l.borrow_mut().clear());
    let timing = f64_field(job, "phases", 0.0) > 0.0;
    phases::enable(timing.then_some(now_ms as fn() -> f64));
    let evaluated = logged(record, position, || eval_lanes(&program.body, args, &comm));
    if timing {
        fabric.set_phase_totals(position, &phases::take());
        phases::enable(None);
    }
    let (outs, log) = evaluated.map_err(name_memory_stop)?;
    // A device that grew past its limit in the last step fails too: its
    // memory stays that large, and the run must say so.
    super::memory::device_refresh();
    if crate::python::budget::over_limit() {
        return Err(name_memory_stop(err!(Cancelled, "")));
    }
    let avals = program.body.out_avals();
    let mut out_words = Vec::new();
    for (lanes, aval) in outs.iter().zip(&avals) {
        let a: &Array = lanes
            .first()
            .ok_or_else(|| err!(RuntimeError, "the program returned no value"))?;
        if a.shape() != aval.shape.as_slice() || a.dtype() != aval.dtype {
            bail!(
                RuntimeError,
                "the program returned {:?} {:?} where its type says {}",
                a.dtype(),
                a.shape(),
                aval
            );
        }
        push_words(a, &mut out_words);
    }
    write_out(job, &out_words)?;
    if let Some(log) = log {
        let bytes = super::log::encode(&log)?;
        write_log(job, position, &bytes)?;
        LAST_LOG.with(|l| *l.borrow_mut() = bytes);
    }
    Ok(())
}

/// The device's stop check: the run's memory (this device's, the other
/// devices' and the coordinator's) against its limit.
fn past_memory_limit() -> Option<String> {
    super::memory::device_refresh();
    crate::python::budget::over_limit().then(|| "the run passed its memory limit".into())
}

/// A device's error stopped by [`past_memory_limit`] as the `MemoryError`
/// the run ends with; any other error as it is.
fn name_memory_stop(e: Error) -> Error {
    match crate::python::budget::max_memory() {
        Some(max) if e.kind == ErrorKind::Cancelled && crate::python::budget::over_limit() => {
            Error::new(
                ErrorKind::MemoryError,
                crate::python::budget::limit_message(
                    max,
                    "maxMemory, a total over the coordinator and every device worker",
                ),
            )
        }
        _ => e,
    }
}

/// Writes this device's log into the job's log buffer: its length always,
/// its bytes when they fit the room the coordinator gave each device.
fn write_log(job: &JsValue, position: usize, bytes: &[u8]) -> Result<()> {
    let buffer = sab_field(job, "logs")?;
    let devices = usize_field(job, "devices")?;
    let cap = usize_field(job, "logCap")?;
    if log_buffer_bytes(devices, cap) > buffer.byte_length() as usize {
        bail!(
            RuntimeError,
            "the log buffer is smaller than its layout says"
        );
    }
    let len = u32::try_from(bytes.len())
        .map_err(|_| err!(RuntimeError, "the device's log is too large to write back"))?;
    Uint32Array::new(&buffer).set_index(position as u32, len);
    if bytes.len() <= cap {
        let at = log_at(devices, cap, position) as u32;
        Uint8Array::new(&buffer)
            .subarray(at, at + len)
            .copy_from(bytes);
    }
    Ok(())
}

/// Writes `words` at this device's place in the job's output buffer.
fn write_out(job: &JsValue, words: &[u32]) -> Result<()> {
    let out = sab_field(job, "out")?;
    let at = usize_field(job, "outAt")?;
    let room = usize_field(job, "outWords")?;
    if words.len() > room || (at + room) * 4 > out.byte_length() as usize {
        bail!(
            RuntimeError,
            "the device's outputs ({} words) do not fit the output buffer",
            words.len()
        );
    }
    if !words.is_empty() {
        Uint32Array::new(&out)
            .subarray(at as u32, (at + words.len()) as u32)
            .copy_from(words);
    }
    Ok(())
}

/// A fabric exercise for tests and measurements: `iters` barriers, one
/// device optionally stalling (until the run is stopped) or panicking at
/// barrier `at`, then `reps` timed copies of `copyWords` words into its slot
/// and, after a barrier, `reps` out of the next device's slot (which holds
/// the same words). Writes `[microseconds per barrier, write GB/s, read GB/s]`
/// as f32 words.
fn run_probe(job: &JsValue, fabric: &Rc<SabFabric>, position: usize) -> Result<()> {
    let iters = usize_field(job, "iters")?;
    let stall = opt_field(job, "stall");
    let panic_at = opt_field(job, "panic");
    let at = opt_field(job, "at").unwrap_or(0);
    let spins = f64_field(job, "spins", -1.0);
    let mut fab = SabFabric::attach(
        fabric.buffer().clone(),
        fabric.devices(),
        fabric.slot_words(),
        fabric.timeout(),
    )?;
    if spins >= 0.0 {
        fab.set_spins(spins as u32);
    }
    let start = now_ms();
    for i in 0..iters {
        if i == at && panic_at == Some(position) {
            panic!("a deliberate panic in the fabric probe at barrier {i}");
        }
        if i == at && stall == Some(position) {
            return Err(stall_until_stopped(&fab));
        }
        fab.barrier(position, "probe barrier")?;
    }
    let barrier_us = if iters > 0 {
        (now_ms() - start) * 1000.0 / iters as f64
    } else {
        0.0
    };

    let copy_words = usize_field(job, "copyWords")
        .unwrap_or(0)
        .min(half_words(&fab));
    let reps = usize_field(job, "reps").unwrap_or(0);
    let (mut write_gbps, mut read_gbps) = (0.0, 0.0);
    if copy_words > 0 && reps > 0 {
        let data: Vec<u32> = (0..copy_words as u32).collect();
        let mut back = vec![0u32; copy_words];
        // The reads take what the next device wrote, across cores, as a
        // collective's reads do.
        let offset = half_offset(&fab, fab.epoch(position));
        let bytes = (copy_words * 4 * reps) as f64;
        let t = now_ms();
        for _ in 0..reps {
            fab.write(position, offset, &data);
        }
        write_gbps = bytes / ((now_ms() - t).max(1e-3) * 1e6);
        fab.barrier(position, "probe copies")?;
        let next = (position + 1) % fab.devices();
        let t = now_ms();
        for _ in 0..reps {
            fab.read(next, offset, &mut back);
        }
        read_gbps = bytes / ((now_ms() - t).max(1e-3) * 1e6);
        if back != data {
            bail!(
                RuntimeError,
                "the probe read back other words than it wrote"
            );
        }
    }
    let stats = [barrier_us as f32, write_gbps as f32, read_gbps as f32];
    write_out(job, &stats.map(f32::to_bits))
}

/// Blocks until the fabric is aborted, and returns the error that says so.
fn stall_until_stopped(fabric: &SabFabric) -> Error {
    let control = Int32Array::new(fabric.buffer());
    loop {
        if let Some(reason) = fabric.aborted() {
            return err!(RuntimeError, "stalled until the run was stopped: {reason}");
        }
        let wake = Atomics::load(&control, header::WAKE).unwrap_or(0);
        if fabric.aborted().is_some() {
            continue;
        }
        if Atomics::wait_with_timeout(&control, header::WAKE, wake, 50.0).is_err() {
            return err!(RuntimeError, "cannot block on this thread");
        }
    }
}
