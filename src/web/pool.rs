//! The coordinator side: a pool of device workers and the [`Devices`] that
//! runs shard_map and pmap bodies on them.
//!
//! The coordinator must itself run in a worker (or in Node), because it
//! blocks in `Atomics.wait` until the devices are done: a blocked thread
//! cannot receive messages, so every result comes back through shared
//! memory. Starting the workers is asynchronous (each loads its wasm
//! instance and says it is ready); running on them is not.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

use js_sys::{Array as JsArray, Promise, SharedArrayBuffer, Uint32Array, Uint8Array};
use wasm_bindgen::prelude::*;

use super::clock::now_ms;
use super::fabric::{SabFabric, Status};
use super::job::{log_at, log_buffer_bytes, message, Program};
use super::memory::DeviceMemory;
use super::wire::{array_from_words, push_words};
use crate::array::{numel, Array};
use crate::error::{Error, ErrorKind, Result};
use crate::exec::log::DeviceLog;
use crate::exec::{config, Devices};
use crate::fabric::phases::Totals;
use crate::fabric::Fabric;
use crate::ir::{Aval, Jaxpr};
use crate::mesh::Mesh;
use crate::{bail, err};

#[wasm_bindgen(module = "/src/web/worker.js")]
extern "C" {
    #[wasm_bindgen(js_name = spawnDevices)]
    fn spawn_devices(n: u32, glue: &str, module: &JsValue) -> Promise;
    #[wasm_bindgen(js_name = postJob)]
    fn post_job(worker: &JsValue, job: &JsValue);
    #[wasm_bindgen(js_name = terminateWorker)]
    fn terminate_worker(worker: &JsValue);
}

/// Starts `n` device workers, each importing the wasm-bindgen glue at
/// `glue_url` (the URL of the JS module that loads this crate's wasm: an ES
/// module for browsers, or for Node an ES module or CommonJS file URL). In
/// browsers each worker initialises the glue with `module`: the compiled
/// `WebAssembly.Module` (`wasm_bindgen::module()` with the web target) or the
/// URL of the `.wasm` file; Node workers load the file the glue names.
/// Resolves to the workers once all are ready; hand them to
/// [`WorkerPool::new`].
pub fn start_workers(n: usize, glue_url: &str, module: &JsValue) -> Promise {
    spawn_devices(n as u32, glue_url, module)
}

/// How long the coordinator keeps waiting, after the run was stopped, for
/// devices that have not reported: one that has not by then lost its worker.
const STRAGGLER_GRACE_MS: f64 = 2000.0;

/// How long the coordinator sleeps between looks at a stop request from
/// outside ([`crate::exec::stop_requested`]); devices see the abort it then
/// sets before their next equation.
const STOP_POLL_MS: f64 = 20.0;

/// Bytes per device of the first log buffer; it grows to the longest log.
const FIRST_LOG_CAP: usize = 64 << 10;

/// Parameters of [`WorkerPool::probe`], the fabric exercise used by the tests
/// and the measurements in `docs/web.md`.
#[derive(Debug, Clone)]
pub struct Probe {
    /// Devices taking part (the first ones of the pool).
    pub devices: usize,
    /// Barriers each device passes.
    pub iters: usize,
    /// A device that stops at barrier `at` and waits until the run is stopped.
    pub stall: Option<usize>,
    /// A device that panics at barrier `at`.
    pub panic: Option<usize>,
    /// Where `stall` or `panic` strike.
    pub at: usize,
    /// Words copied per timed copy into and out of the slot (0: none).
    pub copy_words: usize,
    /// Timed copies each way.
    pub reps: usize,
    /// Slot size of the fabric.
    pub slot_words: usize,
    /// Barrier timeout.
    pub timeout: Duration,
    /// Polls before a waiter sleeps; None for the fabric's default.
    pub spins: Option<u32>,
}

impl Default for Probe {
    fn default() -> Self {
        Probe {
            devices: 2,
            iters: 100,
            stall: None,
            panic: None,
            at: 0,
            copy_words: 0,
            reps: 0,
            slot_words: 1 << 10,
            timeout: Duration::from_secs(10),
            spins: None,
        }
    }
}

/// What one device measured in a [`Probe`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProbeStats {
    /// Mean time per barrier, in microseconds.
    pub barrier_us: f32,
    /// Copy bandwidth from wasm memory into the shared buffer, GB/s.
    pub write_gbps: f32,
    /// Copy bandwidth from the shared buffer into wasm memory, GB/s.
    pub read_gbps: f32,
}

struct Inner {
    workers: Vec<JsValue>,
    fabric: RefCell<Option<SabFabric>>,
    out: RefCell<Option<SharedArrayBuffer>>,
    /// Where devices write their collective logs back, with the room per
    /// device in bytes.
    logs: RefCell<Option<(SharedArrayBuffer, usize)>>,
    /// Set when a device never reported back: its worker cannot be trusted
    /// with another run.
    lost: Cell<bool>,
    /// Set when a device ran past its memory limit: its wasm memory stays
    /// that large until its worker ends.
    grown: Cell<bool>,
    /// What each worker's wasm memory held after its last map.
    memory: DeviceMemory,
    /// Whether devices time the phases of their collectives.
    phases: Cell<bool>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        for w in &self.workers {
            terminate_worker(w);
        }
    }
}

/// Device workers that run one program at a time over a shared fabric.
/// Cheap to clone (clones share the workers).
#[derive(Clone)]
pub struct WorkerPool {
    inner: Rc<Inner>,
}

impl WorkerPool {
    /// A pool over workers started by [`start_workers`] (the array its
    /// promise resolved to).
    pub fn new(workers: JsArray) -> Result<WorkerPool> {
        let workers: Vec<JsValue> = workers.iter().collect();
        if workers.is_empty() {
            bail!(ValueError, "a worker pool needs at least one worker");
        }
        Ok(WorkerPool {
            inner: Rc::new(Inner {
                workers,
                fabric: RefCell::new(None),
                out: RefCell::new(None),
                logs: RefCell::new(None),
                lost: Cell::new(false),
                grown: Cell::new(false),
                memory: DeviceMemory::default(),
                phases: Cell::new(false),
            }),
        })
    }

    /// True once a device ran past its memory limit, or the workers
    /// together hold more than half of it (see
    /// [`crate::web::program::device_pool_grown`]): a wasm memory never
    /// shrinks, so only new workers give it back.
    pub fn grown(&self) -> bool {
        let large = crate::python::budget::max_memory()
            .is_some_and(|max| self.inner.memory.total() > max / 2);
        self.inner.grown.get() || large
    }

    /// Makes the devices of later runs time the phases of their
    /// collectives (see [`crate::fabric::phases`]), or stop.
    pub fn time_phases(&self, on: bool) {
        self.inner.phases.set(on);
    }

    /// The phase totals of each of the first `devices` devices in the last
    /// run made with [`Self::time_phases`] on.
    pub fn phase_totals(&self, devices: usize) -> Vec<Totals> {
        let fabric = self.inner.fabric.borrow();
        (0..devices)
            .map(|d| {
                fabric
                    .as_ref()
                    .map(|f| f.phase_totals(d))
                    .unwrap_or_default()
            })
            .collect()
    }

    /// Number of device workers.
    pub fn size(&self) -> usize {
        self.inner.workers.len()
    }

    /// This pool as the devices of a run's parallel maps (the run's
    /// [`crate::exec::Config::devices_backend`]).
    pub fn devices(&self) -> Arc<dyn Devices> {
        Arc::new(WorkerDevices { pool: self.clone() })
    }

    /// The fabric for `devices` devices with slots of `slot_words` words,
    /// made now if the pool has none of that shape. Its buffer is what a
    /// canceller needs ([`crate::web::device::cancel`]); it stays the same
    /// for every run of that shape.
    pub fn fabric_buffer(&self, devices: usize, slot_words: usize) -> Result<SharedArrayBuffer> {
        self.ensure_fabric(devices, slot_words, Duration::from_secs(30))?;
        let fabric = self.inner.fabric.borrow();
        let f = fabric
            .as_ref()
            .ok_or_else(|| err!(RuntimeError, "the pool has no fabric"))?;
        Ok(f.buffer().clone())
    }

    fn ensure_fabric(&self, devices: usize, slot_words: usize, timeout: Duration) -> Result<()> {
        if self.inner.lost.get() {
            bail!(
                RuntimeError,
                "a device worker of this pool stopped answering in an earlier run; start a \
                 new pool"
            );
        }
        if devices > self.size() {
            bail!(
                ValueError,
                "the mesh has {devices} devices but the worker pool has {} workers",
                self.size()
            );
        }
        let mut slot = self.inner.fabric.borrow_mut();
        let same = slot
            .as_ref()
            .is_some_and(|f| f.devices() == devices && f.slot_words() == slot_words);
        if !same {
            *slot = Some(SabFabric::new(devices, slot_words, timeout)?);
        }
        Ok(())
    }

    /// An output buffer of at least `words` words.
    fn out_buffer(&self, words: usize) -> Result<SharedArrayBuffer> {
        let bytes = u32::try_from(words.max(1) * 4)
            .map_err(|_| err!(ValueError, "the outputs ({words} words) are too large"))?;
        let mut out = self.inner.out.borrow_mut();
        match out.as_ref() {
            Some(b) if b.byte_length() >= bytes => Ok(b.clone()),
            _ => {
                let b = SharedArrayBuffer::new(bytes);
                *out = Some(b.clone());
                Ok(b)
            }
        }
    }

    /// A log buffer for `devices` devices with at least `cap` bytes each;
    /// returns it with its room per device.
    fn log_buffer(&self, devices: usize, cap: usize) -> Result<(SharedArrayBuffer, usize)> {
        let mut logs = self.inner.logs.borrow_mut();
        if let Some((b, have)) = logs.as_ref() {
            if *have >= cap && b.byte_length() as usize >= log_buffer_bytes(devices, *have) {
                return Ok((b.clone(), *have));
            }
        }
        let cap = cap.max(FIRST_LOG_CAP);
        let bytes = u32::try_from(log_buffer_bytes(devices, cap)).map_err(|_| {
            err!(
                ValueError,
                "the devices' logs ({cap} bytes each) are too large"
            )
        })?;
        let b = SharedArrayBuffer::new(bytes);
        *logs = Some((b.clone(), cap));
        Ok((b, cap))
    }

    /// Reads the logs the devices of the last run wrote back; asks them again,
    /// in a buffer large enough, for logs that did not fit.
    fn read_logs(
        &self,
        devices: usize,
        slot_words: usize,
        timeout: Duration,
    ) -> Result<Vec<DeviceLog>> {
        let (mut buffer, mut cap) = self.log_buffer(devices, 0)?;
        let lens = |b: &SharedArrayBuffer| -> Vec<usize> {
            Uint32Array::new(b)
                .subarray(0, devices as u32)
                .to_vec()
                .into_iter()
                .map(|w| w as usize)
                .collect()
        };
        let mut len = lens(&buffer);
        let longest = len.iter().copied().max().unwrap_or(0);
        if longest > cap {
            (buffer, cap) = self.log_buffer(devices, longest)?;
            let sab = self.fabric_buffer(devices, slot_words)?;
            self.dispatch(devices, |p| {
                job(
                    "log",
                    (&sab, devices, slot_words, timeout, p),
                    &[
                        ("logs", buffer.clone().into()),
                        ("logCap", (cap as f64).into()),
                    ],
                )
            })?;
            len = lens(&buffer);
        }
        let bytes = Uint8Array::new(&buffer);
        (0..devices)
            .map(|d| {
                let at = log_at(devices, cap, d) as u32;
                let text = bytes.subarray(at, at + len[d].min(cap) as u32).to_vec();
                super::log::decode(&text)
                    .map_err(|e| err!(RuntimeError, "device {d}: {}", e.message))
            })
            .collect()
    }

    /// Sends one job per device (built by `job(position)`) and blocks until
    /// every device has reported. Returns the first failure, if any.
    fn dispatch(&self, devices: usize, job: impl Fn(usize) -> JsValue) -> Result<()> {
        let fabric = self.inner.fabric.borrow();
        let fabric = fabric
            .as_ref()
            .ok_or_else(|| err!(RuntimeError, "the pool has no fabric"))?;
        fabric.reset();
        for (p, w) in self.inner.workers.iter().take(devices).enumerate() {
            post_job(w, &job(p));
        }
        let mut stopped_at: Option<f64> = None;
        loop {
            let done = fabric.done_count();
            if done >= devices {
                break;
            }
            if fabric.aborted().is_none() {
                if let Some(reason) = crate::exec::stop_requested() {
                    fabric.abort_with(ErrorKind::Cancelled, &reason);
                }
            }
            if fabric.aborted().is_some() {
                let since = *stopped_at.get_or_insert_with(now_ms);
                if now_ms() - since > STRAGGLER_GRACE_MS {
                    self.inner.lost.set(true);
                    let silent: Vec<usize> = (0..devices)
                        .filter(|&d| fabric.status(d) == Status::Running)
                        .collect();
                    let cause = fabric.failure().map(|e| e.to_string()).unwrap_or_default();
                    bail!(
                        RuntimeError,
                        "device(s) {silent:?} did not stop within {:.1} s after the run was \
                         stopped ({cause}); the pool cannot be used again",
                        STRAGGLER_GRACE_MS / 1000.0
                    );
                }
            }
            fabric.wait_done(done, STOP_POLL_MS)?;
        }
        self.inner.memory.update(fabric, devices);
        match fabric.failure() {
            Some(e) if e.kind == ErrorKind::Cancelled => Err(where_stopped(fabric, devices, e)),
            Some(e) if e.kind == ErrorKind::MemoryError => {
                self.inner.grown.set(true);
                Err(e)
            }
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Runs `body` on the first `mesh.size()` workers: `args[i][p]` is input
    /// `i` of the device at position `p`; returns `[output][position]`, and
    /// the devices' logs when `record` is set. Blocks until every device is
    /// done.
    pub fn run(
        &self,
        body: &Jaxpr,
        mesh: &Mesh,
        args: Vec<Vec<Array>>,
        (slot_words, timeout): (usize, Duration),
        record: bool,
    ) -> Result<(Vec<Vec<Array>>, Vec<DeviceLog>)> {
        let n = mesh.size();
        check_inputs(body, &args, n)?;
        self.ensure_fabric(n, slot_words, timeout)?;
        let (logs, log_cap) = self.log_buffer(n, 0)?;
        let program = Program {
            body: body.clone(),
            mesh: mesh.clone(),
            inputs: args
                .iter()
                .map(|a| (a[0].shape().to_vec(), a[0].dtype()))
                .collect(),
        };
        let json = serde_json::to_string(&program)
            .map_err(|e| err!(RuntimeError, "cannot serialise the program: {e}"))?;
        let avals = body.out_avals();
        let per_device: usize = avals.iter().map(|a| numel(&a.shape)).sum();
        let out = self.out_buffer(per_device * n)?;
        let sab = self.fabric_buffer(n, slot_words)?;
        let json = JsValue::from_str(&json);
        // Each device holds to the coordinator's memory limit (-1: none),
        // counting what the coordinator and the idle workers hold.
        let max_memory = crate::python::budget::max_memory().map_or(-1.0, |m| m as f64);
        let outside = self.inner.memory.outside(n) as f64;
        self.dispatch(n, |p| {
            let mut words = Vec::new();
            for a in &args {
                push_words(&a[p], &mut words);
            }
            job(
                "run",
                (&sab, n, slot_words, timeout, p),
                &[
                    ("program", json.clone()),
                    ("inputs", Uint32Array::from(&words[..]).into()),
                    ("out", out.clone().into()),
                    ("outAt", ((p * per_device) as f64).into()),
                    ("outWords", (per_device as f64).into()),
                    ("record", f64::from(u8::from(record)).into()),
                    ("logs", logs.clone().into()),
                    ("logCap", (log_cap as f64).into()),
                    ("maxMemory", max_memory.into()),
                    ("heldElsewhere", outside.into()),
                    (
                        "phases",
                        f64::from(u8::from(self.inner.phases.get())).into(),
                    ),
                ],
            )
        })?;
        let logs = if record {
            self.read_logs(n, slot_words, timeout)?
        } else {
            vec![]
        };
        Ok((read_outputs(&out, &avals, n, per_device)?, logs))
    }

    /// Runs the fabric exercise described by `probe` and returns what each
    /// device measured.
    pub fn probe(&self, probe: &Probe) -> Result<Vec<ProbeStats>> {
        let n = probe.devices;
        if n == 0 {
            bail!(ValueError, "a probe needs at least one device");
        }
        self.ensure_fabric(n, probe.slot_words, probe.timeout)?;
        let sab = self.fabric_buffer(n, probe.slot_words)?;
        let out = self.out_buffer(3 * n)?;
        let opt = |v: Option<usize>| v.map_or(-1.0, |x| x as f64);
        self.dispatch(n, |p| {
            job(
                "probe",
                (&sab, n, probe.slot_words, probe.timeout, p),
                &[
                    ("iters", (probe.iters as f64).into()),
                    ("stall", opt(probe.stall).into()),
                    ("panic", opt(probe.panic).into()),
                    ("at", (probe.at as f64).into()),
                    ("copyWords", (probe.copy_words as f64).into()),
                    ("reps", (probe.reps as f64).into()),
                    ("spins", probe.spins.map_or(-1.0, f64::from).into()),
                    ("out", out.clone().into()),
                    ("outAt", ((3 * p) as f64).into()),
                    ("outWords", 3.0.into()),
                ],
            )
        })?;
        let words = Uint32Array::new(&out).subarray(0, (3 * n) as u32).to_vec();
        Ok(words
            .chunks_exact(3)
            .map(|c| ProbeStats {
                barrier_us: f32::from_bits(c[0]),
                write_gbps: f32::from_bits(c[1]),
                read_gbps: f32::from_bits(c[2]),
            })
            .collect())
    }

    /// Asks worker `worker` of this pool to cancel, after `after_ms`, the run
    /// on the fabric in `sab` (of `devices` devices with slots of
    /// `slot_words` words). The worker must not be one of that run's devices.
    pub fn cancel_later(
        &self,
        worker: usize,
        sab: &SharedArrayBuffer,
        devices: usize,
        slot_words: usize,
        after_ms: f64,
        reason: &str,
    ) -> Result<()> {
        let w = self
            .inner
            .workers
            .get(worker)
            .ok_or_else(|| err!(ValueError, "the pool has no worker {worker}"))?;
        post_job(
            w,
            &message(&[
                ("kind", "cancel".into()),
                ("fabric", sab.clone().into()),
                ("devices", (devices as f64).into()),
                ("slotWords", (slot_words as f64).into()),
                ("afterMs", after_ms.into()),
                ("reason", reason.into()),
            ]),
        );
        Ok(())
    }
}

/// A job for the device at `position` on the fabric in `sab` (of `devices`
/// devices with slots of `slot_words` words and barriers giving up after
/// `timeout`), with the fields of its kind after the common ones.
fn job(
    kind: &str,
    (sab, devices, slot_words, timeout, position): (
        &SharedArrayBuffer,
        usize,
        usize,
        Duration,
        usize,
    ),
    fields: &[(&str, JsValue)],
) -> JsValue {
    let mut all: Vec<(&str, JsValue)> = vec![
        ("kind", kind.into()),
        ("fabric", sab.clone().into()),
        ("devices", (devices as f64).into()),
        ("slotWords", (slot_words as f64).into()),
        ("timeoutMs", (timeout.as_secs_f64() * 1000.0).into()),
        ("position", (position as f64).into()),
    ];
    all.extend(fields.iter().cloned());
    message(&all)
}

/// A cancelled run's error, followed by where each device stopped (the
/// notes of the devices that failed, without the repeated reason).
fn where_stopped(fabric: &SabFabric, devices: usize, e: Error) -> Error {
    let suffix = format!(": {}", e.message);
    let places: Vec<String> = (0..devices)
        .filter(|&d| fabric.status(d) == Status::Failed)
        .filter_map(|d| {
            let note = fabric.note(d);
            let note = note.strip_suffix(&suffix).unwrap_or(&note);
            (!note.is_empty()).then(|| format!("device {d}: {note}"))
        })
        .collect();
    if places.is_empty() {
        return e;
    }
    Error::new(e.kind, format!("{}; {}", e.message, places.join("; ")))
}

/// [`Devices`] on a [`WorkerPool`], with the slot size and timeout of the
/// calling thread's [`crate::exec::Config`].
pub struct WorkerDevices {
    /// The workers.
    pub pool: WorkerPool,
}

// SAFETY: as for `SabFabric`: without the `atomics` target feature a wasm
// instance is single-threaded, so the JavaScript handles inside never cross
// threads; `Devices` is `Send + Sync` for the native thread backend.
#[cfg(not(target_feature = "atomics"))]
unsafe impl Send for WorkerDevices {}
#[cfg(not(target_feature = "atomics"))]
unsafe impl Sync for WorkerDevices {}

impl Devices for WorkerDevices {
    fn run(
        &self,
        body: &Jaxpr,
        mesh: &Mesh,
        args: Vec<Vec<Array>>,
        record: bool,
    ) -> Result<(Vec<Vec<Array>>, Vec<DeviceLog>)> {
        let cfg = config();
        let limits = (cfg.slot_words, cfg.timeout);
        self.pool.run(body, mesh, args, limits, record)
    }
}

/// A program's inputs: one per input variable, one shard per device.
fn check_inputs(body: &Jaxpr, args: &[Vec<Array>], n: usize) -> Result<()> {
    body.check_arity(args.len())?;
    if let Some(a) = args.iter().find(|a| a.len() != n) {
        bail!(
            RuntimeError,
            "an input has {} shards for a mesh of {n} devices",
            a.len()
        );
    }
    Ok(())
}

/// Each device's outputs, read from the shared output buffer where device
/// `p` wrote its `per_device` words at `p * per_device`.
fn read_outputs(
    out: &SharedArrayBuffer,
    avals: &[Aval],
    n: usize,
    per_device: usize,
) -> Result<Vec<Vec<Array>>> {
    let view = Uint32Array::new(out);
    let mut outs: Vec<Vec<Array>> = avals.iter().map(|_| Vec::with_capacity(n)).collect();
    for p in 0..n {
        let mut at = (p * per_device) as u32;
        for (o, aval) in outs.iter_mut().zip(avals) {
            let len = numel(&aval.shape) as u32;
            let words = view.subarray(at, at + len).to_vec();
            o.push(array_from_words(&aval.shape, aval.dtype, &words)?);
            at += len;
        }
    }
    Ok(outs)
}
