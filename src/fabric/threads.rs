//! The fabric over OS threads: one thread per device, slots in shared memory.
//!
//! Slots are arrays of `AtomicU64`, each holding two `u32` words (the even
//! word in the low half), accessed with relaxed loads and stores, which
//! compile to plain 8-byte moves: no `unsafe` is needed, and a caller that
//! broke the exchange protocol would read stale words rather than cause
//! undefined behaviour. Moving two words per access copies at close to
//! `memcpy` speed where one `AtomicU32` per word ran at about half of it
//! (atomic accesses are never merged into vector moves). A write that starts
//! or ends in the middle of a cell loads the cell, replaces its half and
//! stores it back: only the slot's owner writes it, so nothing is lost, and
//! readers of the other word see its unchanged value. The barrier supplies
//! the ordering (release on arrival, acquire on departure) that makes one
//! epoch's writes visible in the next.
//!
//! The barrier spins briefly, then yields, then sleeps on a condition variable:
//! with more device threads than cores, a waiter that kept spinning would take
//! the core from the very device it is waiting for.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::thread;
use std::time::{Duration, Instant};

use super::{Fabric, Lending, Lent};
use crate::err;
use crate::error::{Error, Result};

/// How long a barrier waits for the other devices unless told otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// Longest a sleeping waiter goes without re-checking the abort flag, the
/// departed devices and its deadline; condition-variable notifications make
/// the common wake-ups immediate, this only bounds missed ones.
const SLEEP_SLICE: Duration = Duration::from_millis(20);

/// How a waiting device passes time before it sleeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WaitPolicy {
    /// Iterations of a spin-loop hint while polling the barrier.
    pub spins: u32,
    /// Calls to `thread::yield_now` while polling, after the spins.
    pub yields: u32,
}

impl Default for WaitPolicy {
    /// For as many devices as cores or fewer: a short spin catches arrivals
    /// that are already under way (a 2-device round trip in 0.2-0.4 us on a
    /// 2-core machine, against 0.7 us without), then yielding, then sleep.
    fn default() -> Self {
        WaitPolicy {
            spins: 200,
            yields: 50,
        }
    }
}

impl WaitPolicy {
    /// The policy for `devices` device threads on this machine: the default
    /// while each can have a core, and no spinning when they outnumber the
    /// cores, where a spinning waiter only delays the device it waits for by
    /// holding its core (4 devices on 2 cores: a round trip in 5.5 us
    /// without spinning, 13-20 us with it).
    pub fn for_devices(devices: usize) -> WaitPolicy {
        let cores = thread::available_parallelism().map_or(1, |n| n.get());
        if devices <= cores {
            WaitPolicy::default()
        } else {
            WaitPolicy {
                spins: 0,
                ..WaitPolicy::default()
            }
        }
    }
}

/// Per-device barrier bookkeeping, each field written only by its device.
struct DeviceState {
    /// Barriers this device has entered.
    arrived: AtomicU64,
    /// Hash of the `what` of the barrier it entered last, to detect devices
    /// that reached different collectives.
    what_hash: AtomicU64,
    /// The `what` itself, read only to word an error.
    what: Mutex<String>,
    /// Set when the device's program has returned: it will arrive nowhere.
    departed: AtomicBool,
}

/// A lending lane: the epoch its value was lent in, and the value.
type Lane = Mutex<Option<(u64, Lent)>>;

/// A [`Fabric`] for devices running as OS threads of one process.
pub struct ThreadFabric {
    /// Each device's slot, two words per cell, allocated on first use: a
    /// fabric that lends exchanges without them, and a run that never
    /// touches them should not pay for zeroing megabytes.
    slots: Vec<OnceLock<Box<[AtomicU64]>>>,
    slot_words: usize,
    timeout: Duration,
    policy: WaitPolicy,
    states: Vec<DeviceState>,
    /// Total barrier arrivals over the fabric's life; barrier `k` (1-based)
    /// is complete when it reaches `k * devices`.
    arrivals: AtomicU64,
    /// Number of completed barriers.
    generation: AtomicU64,
    aborted: AtomicBool,
    reason: Mutex<Option<String>>,
    sleepers: AtomicUsize,
    sleep_lock: Mutex<()>,
    wake: Condvar,
    /// Each device's two lending lanes: the epoch a value was lent in, and
    /// the value.
    lanes: Vec<[Lane; 2]>,
    /// Whether [`Fabric::lending`] offers the lanes (the default) or the
    /// collectives are to use the slots alone.
    lends: bool,
}

impl ThreadFabric {
    /// A fabric of `devices` devices whose slots hold `slot_words` words each,
    /// with barriers that give up after `timeout` and wait as
    /// [`WaitPolicy::for_devices`] says.
    pub fn new(devices: usize, slot_words: usize, timeout: Duration) -> Result<ThreadFabric> {
        Self::with_policy(
            devices,
            slot_words,
            timeout,
            WaitPolicy::for_devices(devices),
        )
    }

    /// As [`ThreadFabric::new`], with an explicit way of waiting.
    pub fn with_policy(
        devices: usize,
        slot_words: usize,
        timeout: Duration,
        policy: WaitPolicy,
    ) -> Result<ThreadFabric> {
        super::check_shape(devices, slot_words)?;
        let slots = (0..devices).map(|_| OnceLock::new()).collect();
        let states = (0..devices)
            .map(|_| DeviceState {
                arrived: AtomicU64::new(0),
                what_hash: AtomicU64::new(0),
                what: Mutex::new(String::new()),
                departed: AtomicBool::new(false),
            })
            .collect();
        Ok(ThreadFabric {
            slots,
            slot_words,
            timeout,
            policy,
            states,
            arrivals: AtomicU64::new(0),
            generation: AtomicU64::new(0),
            aborted: AtomicBool::new(false),
            reason: Mutex::new(None),
            sleepers: AtomicUsize::new(0),
            sleep_lock: Mutex::new(()),
            wake: Condvar::new(),
            lanes: (0..devices)
                .map(|_| [Mutex::new(None), Mutex::new(None)])
                .collect(),
            lends: true,
        })
    }

    /// The same fabric with lending on (the default) or off. Off, the
    /// collectives exchange through the slots only, as over a fabric that
    /// cannot lend (the browser's): for comparisons and tests of that path.
    pub fn lending_enabled(mut self, on: bool) -> ThreadFabric {
        self.lends = on;
        self
    }

    /// Records that `device`'s program has returned, so that devices waiting
    /// for it in a barrier fail at once instead of timing out.
    pub fn depart(&self, device: usize) {
        if let Some(s) = self.states.get(device) {
            s.departed.store(true, Ordering::SeqCst);
            self.wake_all();
        }
    }

    /// Clears the departures of a previous run so the fabric can be reused.
    /// Only meaningful between runs that all completed.
    fn rejoin_all(&self) {
        for s in &self.states {
            s.departed.store(false, Ordering::SeqCst);
        }
    }

    /// The cells of `device`'s slot, allocated (zeroed) by whichever device
    /// touches it first.
    fn slot(&self, device: usize) -> &[AtomicU64] {
        self.slots[device].get_or_init(|| {
            (0..self.slot_words.div_ceil(2))
                .map(|_| AtomicU64::new(0))
                .collect()
        })
    }

    fn wake_all(&self) {
        let _guard = lock(&self.sleep_lock);
        self.wake.notify_all();
    }

    fn abort_error(&self, what: &str) -> Error {
        let reason = self.aborted().unwrap_or_default();
        err!(RuntimeError, "{what}: the run was stopped: {reason}")
    }

    /// Devices that have not entered barrier `target`.
    fn missing(&self, target: u64) -> Vec<usize> {
        (0..self.states.len())
            .filter(|&d| self.states[d].arrived.load(Ordering::SeqCst) < target)
            .collect()
    }

    /// Called by the last device to arrive: checks that everyone is in the
    /// same collective. Returns the error message if not.
    fn check_same_collective(&self, device: usize, hash: u64) -> Option<String> {
        let other = (0..self.states.len())
            .find(|&d| self.states[d].what_hash.load(Ordering::Acquire) != hash)?;
        let mine = lock(&self.states[device].what).clone();
        let theirs = lock(&self.states[other].what).clone();
        Some(format!(
            "devices reached different collectives: device {device} is in {mine} \
             but device {other} is in {theirs}; every device must run the same \
             collectives in the same order"
        ))
    }

    /// The slow part of waiting: sleep until barrier `target` completes, the
    /// fabric is aborted, a device it waits for has departed, or time is up.
    fn sleep_until(&self, device: usize, target: u64, what: &str, start: Instant) -> Result<()> {
        let deadline = start + self.timeout;
        self.sleepers.fetch_add(1, Ordering::SeqCst);
        let mut guard = lock(&self.sleep_lock);
        let outcome = loop {
            if self.generation.load(Ordering::SeqCst) >= target {
                break Ok(());
            }
            if self.aborted.load(Ordering::SeqCst) {
                break Err(self.abort_error(what));
            }
            // Read who has departed before who is missing: a departed device's
            // arrivals never change, so one that is both really skipped this
            // collective. (The other order blames a device that arrived and
            // departed between the two reads.)
            let departed: Vec<bool> = self
                .states
                .iter()
                .map(|s| s.departed.load(Ordering::SeqCst))
                .collect();
            let missing = self.missing(target);
            if let Some(&gone) = missing.iter().find(|&&d| departed[d]) {
                break Err(err!(
                    RuntimeError,
                    "{what}: device {gone} finished its program without reaching this \
                     collective (device {device} waited for it); every device must run \
                     the same collectives in the same order"
                ));
            }
            let now = Instant::now();
            if now >= deadline {
                break Err(err!(
                    RuntimeError,
                    "{what}: timed out after {:.3} s waiting for device(s) {:?}, which \
                     never reached this collective (device {device} waited)",
                    self.timeout.as_secs_f64(),
                    missing
                ));
            }
            let slice = SLEEP_SLICE.min(deadline - now);
            guard = match self.wake.wait_timeout(guard, slice) {
                Ok((g, _)) => g,
                Err(poisoned) => poisoned.into_inner().0,
            };
        };
        drop(guard);
        self.sleepers.fetch_sub(1, Ordering::SeqCst);
        outcome
    }
}

/// Replaces word `half` (0: low, 1: high) of a slot cell. Only the slot's
/// owner writes its cells, so the load and store need not be one atomic step.
fn set_word(cell: &AtomicU64, half: u32, w: u32) {
    let shift = 32 * half;
    let old = cell.load(Ordering::Relaxed);
    let new = (old & !(0xffff_ffff_u64 << shift)) | (w as u64) << shift;
    cell.store(new, Ordering::Relaxed);
}

/// Locks a mutex, ignoring poisoning: the data behind these locks (a reason
/// string, nothing at all) stays valid whatever a panicking holder did.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// FNV-1a: a fixed, cheap hash so that every device hashes `what` alike.
fn hash_str(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

impl Fabric for ThreadFabric {
    fn devices(&self) -> usize {
        self.slots.len()
    }

    fn slot_words(&self) -> usize {
        self.slot_words
    }

    fn write(&self, device: usize, offset: usize, data: &[u32]) {
        let end = offset + data.len();
        assert!(
            end <= self.slot_words,
            "write of words {offset}..{end} past a slot of {} words",
            self.slot_words
        );
        let cells = self.slot(device);
        let (mut at, mut data) = (offset, data);
        if at % 2 == 1 {
            if let Some((&w, rest)) = data.split_first() {
                set_word(&cells[at / 2], 1, w);
                at += 1;
                data = rest;
            }
        }
        let pairs = data.chunks_exact(2);
        let last = pairs.remainder().first().copied();
        let full = data.len() / 2;
        for (cell, pair) in cells[at / 2..at / 2 + full].iter().zip(pairs) {
            cell.store(pair[0] as u64 | (pair[1] as u64) << 32, Ordering::Relaxed);
        }
        if let Some(w) = last {
            set_word(&cells[at / 2 + full], 0, w);
        }
    }

    fn read(&self, from: usize, offset: usize, out: &mut [u32]) {
        let end = offset + out.len();
        assert!(
            end <= self.slot_words,
            "read of words {offset}..{end} past a slot of {} words",
            self.slot_words
        );
        let cells = self.slot(from);
        let mut at = offset;
        let mut out = out;
        if at % 2 == 1 && !out.is_empty() {
            out[0] = (cells[at / 2].load(Ordering::Relaxed) >> 32) as u32;
            at += 1;
            out = &mut out[1..];
        }
        let full = out.len() / 2;
        let mut pairs = out.chunks_exact_mut(2);
        for (pair, cell) in (&mut pairs).zip(&cells[at / 2..at / 2 + full]) {
            let v = cell.load(Ordering::Relaxed);
            pair[0] = v as u32;
            pair[1] = (v >> 32) as u32;
        }
        if let Some(w) = pairs.into_remainder().first_mut() {
            *w = cells[at / 2 + full].load(Ordering::Relaxed) as u32;
        }
    }

    fn barrier(&self, device: usize, what: &str) -> Result<()> {
        let n = self.slots.len();
        if device >= n {
            return Err(err!(
                RuntimeError,
                "{what}: device {device} does not exist (the fabric has {n} devices)"
            ));
        }
        if self.aborted.load(Ordering::SeqCst) {
            return Err(self.abort_error(what));
        }
        let state = &self.states[device];
        let target = state.arrived.load(Ordering::Relaxed) + 1;
        let hash = hash_str(what);
        state.what_hash.store(hash, Ordering::Relaxed);
        {
            let mut w = lock(&state.what);
            w.clear();
            w.push_str(what);
        }
        state.arrived.store(target, Ordering::SeqCst);

        // The arrivals counter is one chain of read-modify-writes, so the last
        // device to arrive acquires every earlier arrival's writes; storing the
        // generation then releases them all to the waiters.
        let before = self.arrivals.fetch_add(1, Ordering::AcqRel);
        if before + 1 == target * n as u64 {
            if let Some(message) = self.check_same_collective(device, hash) {
                self.abort(&message);
                return Err(err!(RuntimeError, "{message}"));
            }
            self.generation.store(target, Ordering::SeqCst);
            if self.sleepers.load(Ordering::SeqCst) > 0 {
                self.wake_all();
            }
            return Ok(());
        }

        let start = Instant::now();
        for _ in 0..self.policy.spins {
            if self.generation.load(Ordering::Acquire) >= target {
                return Ok(());
            }
            std::hint::spin_loop();
        }
        for _ in 0..self.policy.yields {
            if self.generation.load(Ordering::Acquire) >= target {
                return Ok(());
            }
            if self.aborted.load(Ordering::Relaxed) {
                return Err(self.abort_error(what));
            }
            thread::yield_now();
        }
        self.sleep_until(device, target, what, start)
    }

    fn epoch(&self, device: usize) -> u64 {
        self.states[device].arrived.load(Ordering::Relaxed)
    }

    fn abort(&self, reason: &str) {
        {
            let mut r = lock(&self.reason);
            if r.is_none() {
                *r = Some(reason.to_string());
            }
        }
        self.aborted.store(true, Ordering::SeqCst);
        self.wake_all();
    }

    fn aborted(&self) -> Option<String> {
        if !self.aborted.load(Ordering::SeqCst) {
            return None;
        }
        lock(&self.reason).clone()
    }

    fn lending(&self) -> Option<&dyn Lending> {
        self.lends.then_some(self as &dyn Lending)
    }
}

impl ThreadFabric {
    fn lane(&self, device: usize, epoch: u64) -> MutexGuard<'_, Option<(u64, Lent)>> {
        lock(&self.lanes[device][(epoch % 2) as usize])
    }
}

/// Lending between threads: each lane is a mutex around a reference-counted
/// value, so lending and borrowing are safe from any thread at any time; the
/// epoch tags make a borrow outside the protocol fail rather than return a
/// value of another epoch.
impl Lending for ThreadFabric {
    fn lend(&self, device: usize, value: Lent) {
        let epoch = self.epoch(device);
        // The old value is dropped after the lock is released.
        let old = self.lane(device, epoch).replace((epoch, value));
        drop(old);
    }

    fn reclaim(&self, device: usize) -> Option<Lent> {
        let epoch = self.epoch(device);
        let old = self.lane(device, epoch).take();
        old.map(|(_, v)| v)
    }

    fn borrow(&self, from: usize, epoch: u64) -> Option<Lent> {
        match &*self.lane(from, epoch) {
            Some((tag, v)) if *tag == epoch => Some(Arc::clone(v)),
            _ => None,
        }
    }
}

/// Turns a panic payload into an error message.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_string()
    }
}

/// Runs `f(device)` for every device of `fabric`, each on its own OS thread,
/// and returns the results in device order.
///
/// When a device fails (returns `Err` or panics) the fabric is aborted so that
/// the devices waiting for it are released, and the caller gets that first
/// failure, its message prefixed with the device; the errors the abort causes
/// on the other devices are dropped. A fabric that has run a failed program
/// stays aborted: build a new one for the next run.
pub fn run_on_threads<T: Send>(
    fabric: Arc<ThreadFabric>,
    f: impl Fn(usize) -> Result<T> + Sync,
) -> Result<Vec<T>> {
    let n = fabric.devices();
    fabric.rejoin_all();
    let first: Mutex<Option<Error>> = Mutex::new(None);
    let fail = |device: usize, e: Error| {
        let mut first = lock(&first);
        if first.is_none() {
            let e = Error::new(e.kind, format!("device {device}: {}", e.message));
            fabric.abort(&e.to_string());
            *first = Some(e);
        }
    };
    let results: Vec<Option<T>> = thread::scope(|s| {
        let mut handles = Vec::with_capacity(n);
        for device in 0..n {
            let (fabric, f, fail) = (&fabric, &f, &fail);
            let spawned = thread::Builder::new()
                .name(format!("device {device}"))
                .spawn_scoped(s, move || {
                    let r = catch_unwind(AssertUnwindSafe(|| f(device))).unwrap_or_else(|p| {
                        Err(err!(RuntimeError, "panicked: {}", panic_message(&*p)))
                    });
                    match r {
                        Ok(v) => {
                            fabric.depart(device);
                            Some(v)
                        }
                        Err(e) => {
                            fail(device, e);
                            None
                        }
                    }
                });
            match spawned {
                Ok(h) => handles.push(h),
                Err(e) => {
                    fail(
                        device,
                        err!(RuntimeError, "could not start its thread: {e}"),
                    );
                    break;
                }
            }
        }
        handles
            .into_iter()
            .map(|h| h.join().ok().flatten())
            .collect()
    });
    if let Some(e) = lock(&first).take() {
        return Err(e);
    }
    results
        .into_iter()
        .enumerate()
        .map(|(d, r)| r.ok_or_else(|| err!(RuntimeError, "device {d} produced no result")))
        .collect()
}
