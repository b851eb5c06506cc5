//! The fabric over a `SharedArrayBuffer`: one device per Web Worker (or Node
//! worker_thread), each with its own wasm instance and memory, all sharing
//! one buffer for the exchange slots, the barrier and the abort word.
//!
//! It follows the protocol of [`crate::fabric`] exactly as the thread fabric
//! does: slot halves alternate by epoch, the last device to arrive at a
//! barrier checks that everyone is in the same collective and opens the next
//! generation, a waiter spins briefly and then sleeps with `Atomics.wait`, and
//! a barrier that waits longer than the timeout fails naming the devices that
//! never arrived. Data moves between a device's wasm memory and the buffer by
//! copying through typed-array views; every control word is accessed with
//! `Atomics`, whose sequentially consistent operations order those copies.
//!
//! # Layout (32-bit words)
//!
//! | words | what |
//! | --- | --- |
//! | [`header`] | barrier counters, wake sequence, abort state and reason, run bookkeeping |
//! | `DEVICES_AT + d * DEVICE_WORDS ..` | device `d`: barriers entered, collective it is in, departed, status, why it failed, memory held |
//! | `slots_at + d * slot_words ..` | device `d`'s exchange slot |

use std::time::Duration;

use js_sys::{Atomics, Float32Array, Int32Array, SharedArrayBuffer, Uint32Array};
use wasm_bindgen::{JsCast, JsValue};

use super::clock::now_ms;
use super::wire::{kind_code, kind_from_code};
use crate::err;
use crate::error::{Error, ErrorKind, Result};
use crate::fabric::phases::{self, timed, Phase, PHASES};
use crate::fabric::{Elems, ElemsMut, Fabric};

/// Indices of the header words.
pub mod header {
    /// Total barrier arrivals over the fabric's life (wrapping): barrier `k`
    /// is complete when it reaches `k * devices`.
    pub const ARRIVALS: u32 = 0;
    /// Number of completed barriers (wrapping).
    pub const GENERATION: u32 = 1;
    /// Bumped, then notified, whenever a sleeper may have something to see:
    /// a barrier completed, the fabric was aborted, a device departed or
    /// finished. Sleepers wait on it, so none of these wake-ups can be lost.
    pub const WAKE: u32 = 2;
    /// 0 while running; 1 while the first abort writes its reason; 2 once
    /// the reason is readable.
    pub const ABORT: u32 = 3;
    /// The [`super::kind_code`] of the first failure's error kind.
    pub const FAIL_KIND: u32 = 4;
    /// Length in bytes of the abort reason.
    pub const REASON_LEN: u32 = 5;
    /// Devices that have finished the current run (successfully or not).
    pub const DONE: u32 = 6;
    /// First word of the abort reason (UTF-8, truncated to fit).
    pub const REASON: u32 = 8;
    /// Room for the reason, in words.
    pub const REASON_WORDS: u32 = 256;
}

/// First word of the per-device records.
const DEVICES_AT: u32 = header::REASON + header::REASON_WORDS;
/// Barriers the device has entered: its epoch.
const ARRIVED: u32 = 0;
/// Hash of the collective named at its last barrier.
const WHAT_HASH: u32 = 1;
/// 1 once the device's program has returned.
const DEPARTED: u32 = 2;
/// [`Status`] of the device in the current run.
const STATUS: u32 = 3;
/// Length in bytes of the name of the collective it is in.
const WHAT_LEN: u32 = 4;
/// That name (UTF-8, truncated to fit).
const WHAT: u32 = 5;
/// Room for the name, in words.
const WHAT_WORDS: u32 = 64;
/// Length in bytes of the device's note: why it stopped, when it failed.
const NOTE_LEN: u32 = WHAT + WHAT_WORDS;
/// The note (UTF-8, truncated to fit).
const NOTE: u32 = NOTE_LEN + 1;
/// Room for the note, in words.
const NOTE_WORDS: u32 = 64;
/// The device's wasm memory in 64 KiB pages, as it last published it: the
/// run's memory limit is a total over every worker's memory.
const HELD_PAGES: u32 = NOTE + NOTE_WORDS;
/// The device's [`phases::Totals`] from its last timed run: milliseconds
/// (f32 bits) then counts, one word each per phase.
const PHASE_TOTALS: u32 = HELD_PAGES + 1;
/// Words of one device's record.
const DEVICE_WORDS: u32 = PHASE_TOTALS + 2 * PHASES as u32;

/// Polls of the generation word before a waiter goes to sleep. None by
/// default: each poll is a call out to JavaScript, and measured on 2 cores
/// (docs/web.md) a waiter that polls takes the core from the very device it
/// waits for, so sleeping at once gave the fastest barriers (2 workers: 12-14
/// us against 18-23 us with 100 polls and 100-350 us with 2000).
const DEFAULT_SPINS: u32 = 0;

/// Longest a sleeper goes without re-checking its deadline and the other
/// devices; the wake sequence makes ordinary wake-ups immediate.
const SLEEP_SLICE_MS: f64 = 20.0;

/// How a device finished a run, as recorded in its status word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Still running (or never started).
    Running,
    /// Returned its outputs.
    Done,
    /// Failed; the fabric's abort reason says why.
    Failed,
}

/// A [`Fabric`] whose slots and barrier live in a `SharedArrayBuffer`.
///
/// Every worker builds its own `SabFabric` over the same buffer
/// ([`SabFabric::attach`]); `Atomics.wait` is not allowed on a page's main
/// thread, so barriers must be entered from workers.
pub struct SabFabric {
    buffer: SharedArrayBuffer,
    /// The whole buffer as `i32`, for `Atomics`.
    control: Int32Array,
    /// The whole buffer as `u32`, for copying slot contents.
    data: Uint32Array,
    /// The whole buffer as `f32`, for copying float32 elements straight
    /// between an array and a slot (`control` serves int32 ones).
    floats: Float32Array,
    devices: usize,
    slot_words: usize,
    slots_at: u32,
    timeout: Duration,
    spins: u32,
}

// SAFETY: shardlab is built for wasm32 without the `atomics` target feature,
// so each wasm instance runs on exactly one thread and the JavaScript handles
// inside never cross threads: other workers reach the same buffer through
// their own instances, not through this value. The `Send + Sync` bounds of
// `Fabric` exist for the native thread fabric. A build with shared wasm
// memory (`+atomics`) gets no such impls and so fails to compile instead of
// racing.
#[cfg(not(target_feature = "atomics"))]
unsafe impl Send for SabFabric {}
#[cfg(not(target_feature = "atomics"))]
unsafe impl Sync for SabFabric {}

/// Words of the buffer for `devices` devices with slots of `slot_words`, or
/// None if that does not fit a 32-bit byte length.
fn total_words(devices: usize, slot_words: usize) -> Option<u32> {
    let records = u32::try_from(devices).ok()?.checked_mul(DEVICE_WORDS)?;
    let slots = u32::try_from(devices.checked_mul(slot_words)?).ok()?;
    let words = DEVICES_AT.checked_add(records)?.checked_add(slots)?;
    words.checked_mul(4)?;
    Some(words)
}

/// True when this JavaScript realm has `SharedArrayBuffer` (a browser page
/// needs cross-origin isolation for it).
pub fn shared_memory_available() -> bool {
    js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("SharedArrayBuffer"))
        .map(|v| v.is_function())
        .unwrap_or(false)
}

/// FNV-1a, 32 bits: a fixed hash so that every device hashes `what` alike.
fn hash_str(s: &str) -> i32 {
    s.bytes().fold(0x811c_9dc5u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    }) as i32
}

/// True when generation counter `gen` has reached `target`, allowing for
/// wrap-around (the two are never more than one barrier apart in practice).
fn reached(gen: i32, target: i32) -> bool {
    gen.wrapping_sub(target) >= 0
}

/// `s` cut to at most `max` bytes on a character boundary.
fn truncate_utf8(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// A JavaScript exception as text.
fn js_text(e: &JsValue) -> String {
    e.as_string()
        .or_else(|| {
            e.dyn_ref::<js_sys::Error>()
                .map(|e| String::from(e.message()))
        })
        .unwrap_or_else(|| format!("{e:?}"))
}

impl SabFabric {
    /// A new buffer for `devices` devices with slots of `slot_words` words,
    /// whose barriers give up after `timeout`.
    pub fn new(devices: usize, slot_words: usize, timeout: Duration) -> Result<SabFabric> {
        crate::fabric::check_shape(devices, slot_words)?;
        if !shared_memory_available() {
            return Err(err!(
                RuntimeError,
                "SharedArrayBuffer is not available here: a browser page must be \
                 cross-origin isolated (COOP: same-origin, COEP: require-corp)"
            ));
        }
        let words = total_words(devices, slot_words).ok_or_else(|| {
            err!(
                ValueError,
                "a fabric of {devices} devices with slots of {slot_words} words does not fit \
                 in a SharedArrayBuffer"
            )
        })?;
        let buffer = SharedArrayBuffer::new(words * 4);
        Self::attach(buffer, devices, slot_words, timeout)
    }

    /// The fabric over an existing buffer (made by [`SabFabric::new`] in
    /// another worker). Fails if the buffer is too small for the shape.
    pub fn attach(
        buffer: SharedArrayBuffer,
        devices: usize,
        slot_words: usize,
        timeout: Duration,
    ) -> Result<SabFabric> {
        crate::fabric::check_shape(devices, slot_words)?;
        let words = total_words(devices, slot_words).ok_or_else(|| {
            err!(
                ValueError,
                "fabric of {devices} x {slot_words} words too large"
            )
        })?;
        let have = buffer.byte_length();
        if have < words * 4 {
            return Err(err!(
                ValueError,
                "a fabric of {devices} devices with slots of {slot_words} words needs {} \
                 bytes, the shared buffer has {have}",
                words * 4
            ));
        }
        let control = Int32Array::new(&buffer);
        let data = Uint32Array::new(&buffer);
        let floats = Float32Array::new(&buffer);
        Ok(SabFabric {
            buffer,
            control,
            data,
            floats,
            devices,
            slot_words,
            slots_at: DEVICES_AT + devices as u32 * DEVICE_WORDS,
            timeout,
            spins: DEFAULT_SPINS,
        })
    }

    /// The shared buffer, to hand to other workers.
    pub fn buffer(&self) -> &SharedArrayBuffer {
        &self.buffer
    }

    /// How long a barrier waits for the others.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Sets how many times a waiter polls before it sleeps (0: sleep at once).
    pub fn set_spins(&mut self, spins: u32) {
        self.spins = spins;
    }

    fn load(&self, index: u32) -> i32 {
        Atomics::load(&self.control, index).unwrap_or(0)
    }

    fn store(&self, index: u32, value: i32) {
        let _ = Atomics::store(&self.control, index, value);
    }

    fn add(&self, index: u32, value: i32) -> i32 {
        Atomics::add(&self.control, index, value).unwrap_or(0)
    }

    fn device_word(&self, device: usize, field: u32) -> u32 {
        DEVICES_AT + device as u32 * DEVICE_WORDS + field
    }

    /// Wakes every sleeper: bumps the wake sequence they wait on.
    fn wake_all(&self) {
        self.add(header::WAKE, 1);
        let _ = Atomics::notify(&self.control, header::WAKE);
    }

    /// Writes `text` (truncated to `max_words * 4` bytes) at word `at`,
    /// its byte length at word `len_at`. The words are published by a later
    /// atomic store of the caller.
    fn write_text(&self, at: u32, max_words: u32, len_at: u32, text: &str) {
        let text = truncate_utf8(text, max_words as usize * 4);
        let mut bytes = text.as_bytes().to_vec();
        bytes.resize(bytes.len().div_ceil(4) * 4, 0);
        let words: Vec<u32> = bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        self.data
            .subarray(at, at + words.len() as u32)
            .copy_from(&words);
        self.store(len_at, text.len() as i32);
    }

    fn read_text(&self, at: u32, max_words: u32, len_at: u32) -> String {
        let len = (self.load(len_at).max(0) as u32).min(max_words * 4);
        let mut words = vec![0u32; len.div_ceil(4) as usize];
        self.data
            .subarray(at, at + words.len() as u32)
            .copy_to(&mut words);
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        String::from_utf8_lossy(&bytes[..len as usize]).into_owned()
    }

    /// Clears every control word for a new run. Only the coordinator calls
    /// this, and only while no device is running on the buffer.
    pub fn reset(&self) {
        let zeros = vec![0u32; self.slots_at as usize];
        self.data.subarray(0, self.slots_at).copy_from(&zeros);
        // A sequentially consistent store orders the plain copy above before
        // whatever the coordinator publishes next (the job messages).
        self.store(header::DONE, 0);
    }

    /// Stops the run with an error of `kind`: the first failure's kind and
    /// reason are kept, every waiter is woken.
    pub fn abort_with(&self, kind: ErrorKind, reason: &str) {
        if Atomics::compare_exchange(&self.control, header::ABORT, 0, 1).unwrap_or(1) == 0 {
            self.store(header::FAIL_KIND, kind_code(kind));
            self.write_text(
                header::REASON,
                header::REASON_WORDS,
                header::REASON_LEN,
                reason,
            );
            self.store(header::ABORT, 2);
        }
        self.wake_all();
    }

    /// The first failure as an error of its own kind, if the fabric was
    /// aborted.
    pub fn failure(&self) -> Option<Error> {
        let reason = self.aborted()?;
        Some(Error::new(
            kind_from_code(self.load(header::FAIL_KIND)),
            reason,
        ))
    }

    /// Records that `device`'s program has returned, so that devices waiting
    /// for it in a barrier fail at once instead of timing out.
    pub fn depart(&self, device: usize) {
        if device < self.devices {
            self.store(self.device_word(device, DEPARTED), 1);
            self.wake_all();
        }
    }

    /// Records how `device` finished the run and counts it as done. Only the
    /// first call per device and run counts, so a device that reported its
    /// failure while dying is not counted twice.
    pub fn finish(&self, device: usize, status: Status) {
        if device >= self.devices {
            return;
        }
        let code = match status {
            Status::Running => return,
            Status::Done => 1,
            Status::Failed => 2,
        };
        let at = self.device_word(device, STATUS);
        if Atomics::compare_exchange(&self.control, at, 0, code).unwrap_or(-1) == 0 {
            self.add(header::DONE, 1);
            let _ = Atomics::notify(&self.control, header::DONE);
            self.wake_all();
        }
    }

    /// Records why `device` failed (its own error, which may differ from the
    /// first failure that stopped the run). Call before [`Self::finish`].
    pub fn set_note(&self, device: usize, note: &str) {
        if device < self.devices {
            self.write_text(
                self.device_word(device, NOTE),
                NOTE_WORDS,
                self.device_word(device, NOTE_LEN),
                note,
            );
        }
    }

    /// What [`Self::set_note`] recorded for `device` in the current run
    /// (empty when nothing was).
    pub fn note(&self, device: usize) -> String {
        if device >= self.devices {
            return String::new();
        }
        self.read_text(
            self.device_word(device, NOTE),
            NOTE_WORDS,
            self.device_word(device, NOTE_LEN),
        )
    }

    /// Publishes `device`'s wasm memory, in 64 KiB pages.
    pub fn set_held_pages(&self, device: usize, pages: u32) {
        if device < self.devices {
            self.store(
                self.device_word(device, HELD_PAGES),
                i32::try_from(pages).unwrap_or(i32::MAX),
            );
        }
    }

    /// The memory `device` last published in the current run, in bytes.
    pub fn held_bytes(&self, device: usize) -> u64 {
        if device >= self.devices {
            return 0;
        }
        let pages = self.load(self.device_word(device, HELD_PAGES)).max(0) as u64;
        pages * 65536
    }

    /// Publishes `device`'s phase totals (see [`phases`]).
    pub fn set_phase_totals(&self, device: usize, totals: &phases::Totals) {
        if device >= self.devices {
            return;
        }
        for i in 0..PHASES {
            let at = self.device_word(device, PHASE_TOTALS + 2 * i as u32);
            self.store(at, (totals.ms[i] as f32).to_bits() as i32);
            self.store(at + 1, totals.count[i] as i32);
        }
    }

    /// The phase totals `device` last published.
    pub fn phase_totals(&self, device: usize) -> phases::Totals {
        let mut totals = phases::Totals::default();
        if device < self.devices {
            for i in 0..PHASES {
                let at = self.device_word(device, PHASE_TOTALS + 2 * i as u32);
                totals.ms[i] = f64::from(f32::from_bits(self.load(at) as u32));
                totals.count[i] = self.load(at + 1) as u32;
            }
        }
        totals
    }

    /// How `device` has finished the current run so far.
    pub fn status(&self, device: usize) -> Status {
        if device >= self.devices {
            return Status::Running;
        }
        match self.load(self.device_word(device, STATUS)) {
            1 => Status::Done,
            2 => Status::Failed,
            _ => Status::Running,
        }
    }

    /// Devices that have finished the current run.
    pub fn done_count(&self) -> usize {
        self.load(header::DONE).max(0) as usize
    }

    /// Sleeps until the done count differs from `seen` or `ms` pass. Needs a
    /// thread that may block (a worker).
    pub fn wait_done(&self, seen: usize, ms: f64) -> Result<()> {
        Atomics::wait_with_timeout(&self.control, header::DONE, seen as i32, ms.max(0.0))
            .map(|_| ())
            .map_err(|e| err!(RuntimeError, "cannot block here: {}", js_text(&e)))
    }

    fn abort_error(&self, what: &str) -> Error {
        let reason = self.aborted().unwrap_or_default();
        err!(RuntimeError, "{what}: the run was stopped: {reason}")
    }

    /// Devices that have not entered barrier `target`.
    fn missing(&self, target: i32) -> Vec<usize> {
        (0..self.devices)
            .filter(|&d| !reached(self.load(self.device_word(d, ARRIVED)), target))
            .collect()
    }

    /// The last arrival's check that everyone is in the same collective.
    fn check_same_collective(&self, device: usize, hash: i32) -> Option<String> {
        let other =
            (0..self.devices).find(|&d| self.load(self.device_word(d, WHAT_HASH)) != hash)?;
        let name = |d: usize| {
            self.read_text(
                self.device_word(d, WHAT),
                WHAT_WORDS,
                self.device_word(d, WHAT_LEN),
            )
        };
        Some(format!(
            "devices reached different collectives: device {device} is in {} but device \
             {other} is in {}; every device must run the same collectives in the same order",
            name(device),
            name(other)
        ))
    }

    /// The buffer words of `len` words at `offset` in `device`'s slot.
    /// Panics outside the slot, as [`Fabric::write`] and [`Fabric::read`] do.
    fn slot_range(&self, device: usize, offset: usize, len: usize, op: &str) -> (u32, u32) {
        assert!(
            device < self.devices && offset + len <= self.slot_words,
            "fabric {op} outside slot: device {device}, words {offset}..{}",
            offset + len
        );
        let at = self.slots_at + (device * self.slot_words + offset) as u32;
        (at, at + len as u32)
    }

    /// [`Fabric::barrier`]: arrives, and waits for everyone else.
    fn meet(&self, device: usize, what: &str) -> Result<()> {
        let n = self.devices;
        if device >= n {
            return Err(err!(
                RuntimeError,
                "{what}: device {device} does not exist (the fabric has {n} devices)"
            ));
        }
        if self.load(header::ABORT) != 0 {
            return Err(self.abort_error(what));
        }
        let target = self.load(self.device_word(device, ARRIVED)).wrapping_add(1);
        let hash = hash_str(what);
        self.store(self.device_word(device, WHAT_HASH), hash);
        self.write_text(
            self.device_word(device, WHAT),
            WHAT_WORDS,
            self.device_word(device, WHAT_LEN),
            what,
        );
        self.store(self.device_word(device, ARRIVED), target);

        // Arrivals are one chain of atomic read-modify-writes, so the last
        // device to arrive sees every earlier arrival's writes; its store of
        // the generation then publishes them to the waiters.
        let before = self.add(header::ARRIVALS, 1);
        if before.wrapping_add(1) == target.wrapping_mul(n as i32) {
            if let Some(message) = self.check_same_collective(device, hash) {
                self.abort_with(ErrorKind::RuntimeError, &message);
                return Err(err!(RuntimeError, "{message}"));
            }
            self.store(header::GENERATION, target);
            self.wake_all();
            return Ok(());
        }

        let start = now_ms();
        for _ in 0..self.spins {
            if reached(self.load(header::GENERATION), target) {
                return Ok(());
            }
        }
        self.sleep_until(device, target, what, start)
    }

    /// Sleeps until barrier `target` completes, the fabric is aborted, a
    /// device it waits for departs, or time is up.
    fn sleep_until(&self, device: usize, target: i32, what: &str, start: f64) -> Result<()> {
        let timeout_ms = self.timeout.as_secs_f64() * 1000.0;
        let deadline = start + timeout_ms;
        loop {
            // Read the wake sequence before checking: anything that changes
            // the answer bumps it afterwards, so the wait below returns at once.
            let wake = self.load(header::WAKE);
            if reached(self.load(header::GENERATION), target) {
                return Ok(());
            }
            if self.load(header::ABORT) != 0 {
                return Err(self.abort_error(what));
            }
            // Departed first, arrived second: a device's arrival count is
            // final once it has departed, so this cannot mistake a device
            // that arrived and left in between for one that never came.
            let gone = (0..self.devices).find(|&d| {
                self.load(self.device_word(d, DEPARTED)) != 0
                    && !reached(self.load(self.device_word(d, ARRIVED)), target)
            });
            if let Some(gone) = gone {
                return Err(err!(
                    RuntimeError,
                    "{what}: device {gone} finished its program without reaching this \
                     collective (device {device} waited for it); every device must run the \
                     same collectives in the same order"
                ));
            }
            let now = now_ms();
            if now >= deadline {
                let missing = self.missing(target);
                if missing.is_empty() {
                    // Everyone arrived while the clock was read: the
                    // generation is about to open, so look again.
                    continue;
                }
                return Err(err!(
                    RuntimeError,
                    "{what}: timed out after {:.3} s waiting for device(s) {:?}, which never \
                     reached this collective (device {device} waited)",
                    self.timeout.as_secs_f64(),
                    missing
                ));
            }
            let slice = SLEEP_SLICE_MS.min(deadline - now);
            if let Err(e) = Atomics::wait_with_timeout(&self.control, header::WAKE, wake, slice) {
                return Err(err!(
                    RuntimeError,
                    "{what}: device {device} cannot wait here ({}); run devices in workers, \
                     not on a page's main thread",
                    js_text(&e)
                ));
            }
        }
    }
}

impl Fabric for SabFabric {
    fn devices(&self) -> usize {
        self.devices
    }

    fn slot_words(&self) -> usize {
        self.slot_words
    }

    fn write(&self, device: usize, offset: usize, data: &[u32]) {
        assert!(
            device < self.devices && offset + data.len() <= self.slot_words,
            "fabric write outside slot: device {device}, words {offset}..{}",
            offset + data.len()
        );
        if data.is_empty() {
            return;
        }
        let at = self.slots_at + (device * self.slot_words + offset) as u32;
        timed(Phase::CopyIn, || {
            self.data
                .subarray(at, at + data.len() as u32)
                .copy_from(data)
        });
    }

    /// One typed-array copy whatever the length: each call out to
    /// JavaScript costs about as much as copying a few KiB.
    fn write_elems(&self, device: usize, offset: usize, data: Elems) {
        let at = self.slot_range(device, offset, data.len(), "write");
        timed(Phase::CopyIn, || match data {
            Elems::F32(d) => self.floats.subarray(at.0, at.1).copy_from(d),
            Elems::I32(d) => self.control.subarray(at.0, at.1).copy_from(d),
            Elems::U32(d) => self.data.subarray(at.0, at.1).copy_from(d),
        });
    }

    fn read_elems(&self, from: usize, offset: usize, out: ElemsMut) {
        let at = self.slot_range(from, offset, out.len(), "read");
        timed(Phase::CopyOut, || match out {
            ElemsMut::F32(d) => self.floats.subarray(at.0, at.1).copy_to(d),
            ElemsMut::I32(d) => self.control.subarray(at.0, at.1).copy_to(d),
            ElemsMut::U32(d) => self.data.subarray(at.0, at.1).copy_to(d),
        });
    }

    fn read(&self, from: usize, offset: usize, out: &mut [u32]) {
        assert!(
            from < self.devices && offset + out.len() <= self.slot_words,
            "fabric read outside slot: device {from}, words {offset}..{}",
            offset + out.len()
        );
        if out.is_empty() {
            return;
        }
        let at = self.slots_at + (from * self.slot_words + offset) as u32;
        timed(Phase::CopyOut, || {
            self.data.subarray(at, at + out.len() as u32).copy_to(out)
        });
    }

    fn barrier(&self, device: usize, what: &str) -> Result<()> {
        timed(Phase::Barrier, || self.meet(device, what))
    }

    fn epoch(&self, device: usize) -> u64 {
        if device >= self.devices {
            return 0;
        }
        self.load(self.device_word(device, ARRIVED)) as u32 as u64
    }

    fn abort(&self, reason: &str) {
        self.abort_with(ErrorKind::RuntimeError, reason);
    }

    fn aborted(&self) -> Option<String> {
        // A reader that sees the claim before the reason is written waits
        // the few microseconds that writing takes.
        let mut state = self.load(header::ABORT);
        if state == 0 {
            return None;
        }
        let start = now_ms();
        while state == 1 && now_ms() - start < 100.0 {
            state = self.load(header::ABORT);
        }
        Some(self.read_text(header::REASON, header::REASON_WORDS, header::REASON_LEN))
    }
}
