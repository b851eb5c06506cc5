//! Per-device logs of collectives, kept while a run is observed.
//!
//! A device (an OS thread, a worker, or the lockstep evaluator standing for all
//! devices) calls [`begin`], the evaluator calls [`log`] at each collective, and
//! [`end`] returns the device's log. The device backend returns every
//! device's log with the map's results, and `exec` hands them to the run's
//! observer (see [`super::run::Observer`]).

use std::cell::RefCell;

use crate::array::Array;
use crate::primitives::CollectiveKind;

/// One collective on one device (or on every lane of a lockstep evaluator).
#[derive(Debug, Clone)]
pub struct Event {
    /// The collective.
    pub kind: CollectiveKind,
    /// The library function it was called as, when not its own name
    /// (`pmean` for the psum it binds).
    pub called_as: Option<String>,
    /// The program line of the operation that made it: the collective's own
    /// call in a shard_map, or the operation a jit's partitioner inserted it
    /// for.
    pub line: Option<u32>,
    /// The positions of the lanes that ran it, in lane order.
    pub positions: Vec<usize>,
    /// Each lane's operand.
    pub before: Vec<Array>,
    /// Each lane's result.
    pub after: Vec<Array>,
    /// Microseconds spent inside the collective.
    pub elapsed_us: f64,
}

/// Everything one device logged during one run.
#[derive(Debug, Clone, Default)]
pub struct DeviceLog {
    /// The device's position (for lockstep: the first lane's).
    pub position: usize,
    /// Its collectives, in program order.
    pub events: Vec<Event>,
    /// Wall time of its whole program, in microseconds.
    pub total_us: f64,
}

thread_local! {
    /// The events of the device this thread is running. Per thread because a
    /// device is a thread (or the lockstep evaluator standing for all of
    /// them): the collective that logs is many calls below the code that
    /// started the device, on that device's own thread.
    static LOG: RefCell<Option<Vec<Event>>> = const { RefCell::new(None) };
}

/// Starts logging collectives on this thread.
pub fn begin() {
    LOG.with(|l| *l.borrow_mut() = Some(Vec::new()));
}

/// True while this thread logs collectives.
pub fn logging() -> bool {
    LOG.with(|l| l.borrow().is_some())
}

/// Records one collective, if logging.
pub fn log(event: Event) {
    LOG.with(|l| {
        if let Some(events) = l.borrow_mut().as_mut() {
            events.push(event);
        }
    });
}

/// Stops logging and returns this thread's events.
pub fn end() -> Vec<Event> {
    LOG.with(|l| l.borrow_mut().take()).unwrap_or_default()
}

/// Microseconds on a monotonic clock (`Instant` natively, JavaScript's
/// `performance.now()` in the web build, where `Instant` does not exist).
pub fn now_us() -> f64 {
    #[cfg(not(target_arch = "wasm32"))]
    {
        use std::sync::OnceLock;
        use std::time::Instant;
        static EPOCH: OnceLock<Instant> = OnceLock::new();
        EPOCH.get_or_init(Instant::now).elapsed().as_secs_f64() * 1e6
    }
    #[cfg(target_arch = "wasm32")]
    {
        crate::web::now_ms() * 1e3
    }
}
