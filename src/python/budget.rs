//! The run's memory budget, checked where strings and containers grow.
//!
//! The command line watches the process's resident memory and stops a run
//! that passes `--max-memory` at its next step; but one step can allocate
//! gigabytes (`s = s + s` on a 4 GiB string, `''.join` of a huge list).
//! So before a string or container of many megabytes is built, its size is
//! added to the memory the process holds now and compared with the limit:
//! past it the program fails with `MemoryError` before allocating.
//!
//! In a browser or Node there is no process to watch: what a run holds is
//! its wasm instance's memory, which grows and never shrinks. The engine's
//! stop check compares it with the limit at every step (see
//! [`over_limit`]), and the package replaces a worker whose memory grew
//! large before its next run.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::Result;

/// The process's memory limit in bytes (no limit until one is set).
static MAX_MEMORY: AtomicU64 = AtomicU64::new(u64::MAX);

/// Memory held by other instances of the same run, counted against the
/// limit with this one's: in a browser or Node, the device workers' wasm
/// memories (see `src/web/memory.rs`). Always 0 on the command line, where
/// one process holds everything.
static HELD_ELSEWHERE: AtomicU64 = AtomicU64::new(0);

/// Growth below this is not checked: reading the process's memory costs
/// more than such an allocation.
const CHECKED_FROM: usize = 16 << 20;

/// Sets the limit for the whole process.
pub fn set_max_memory(bytes: u64) {
    MAX_MEMORY.store(bytes, Ordering::Relaxed);
}

/// The limit, if one was set.
pub fn max_memory() -> Option<u64> {
    Some(MAX_MEMORY.load(Ordering::Relaxed)).filter(|&m| m != u64::MAX)
}

/// Sets the memory other instances of the run hold (see [`HELD_ELSEWHERE`]).
pub fn set_held_elsewhere(bytes: u64) {
    HELD_ELSEWHERE.store(bytes, Ordering::Relaxed);
}

/// What the run holds in all: this instance's memory and the others'.
fn held_bytes() -> Option<u64> {
    resident_bytes().map(|own| own.saturating_add(HELD_ELSEWHERE.load(Ordering::Relaxed)))
}

/// The process's resident memory, where the system tells it (Linux).
#[cfg(not(target_arch = "wasm32"))]
pub fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

/// The memory of this wasm instance: all it holds, since a wasm memory
/// only grows.
#[cfg(target_arch = "wasm32")]
pub fn resident_bytes() -> Option<u64> {
    Some(core::arch::wasm32::memory_size(0) as u64 * 65536)
}

/// True when the memory held now (with other instances' share) is past the
/// limit.
pub fn over_limit() -> bool {
    max_memory().is_some_and(|max| held_bytes().is_some_and(|held| held > max))
}

/// The message of the `MemoryError` that ends a run past its limit, naming
/// the option that set it (`--max-memory`, `maxMemory`).
pub fn limit_message(max: u64, option: &str) -> String {
    format!(
        "the program used more than its memory limit of {} ({option})",
        size_text(max)
    )
}

/// A byte count for messages: `4 GiB`, `512 MiB`.
pub fn size_text(bytes: u64) -> String {
    let (value, unit) = match bytes {
        b if b >= 1 << 30 => (b as f64 / (1u64 << 30) as f64, "GiB"),
        b if b >= 1 << 20 => (b as f64 / (1u64 << 20) as f64, "MiB"),
        b => (b as f64 / 1024.0, "KiB"),
    };
    format!("{} {unit}", (value * 100.0).round() / 100.0)
}

/// Fails with `MemoryError` when building a value of `bytes` more would
/// take the process past its limit; `what` names the value.
pub fn check_grow(bytes: usize, what: &str) -> Result<()> {
    let Some(max) = max_memory() else {
        return Ok(());
    };
    if bytes < CHECKED_FROM {
        return Ok(());
    }
    let held = held_bytes().unwrap_or(0);
    if held.saturating_add(bytes as u64) > max {
        crate::bail!(
            MemoryError,
            "{what} of {} MiB would take the process past its memory limit of {} MiB",
            bytes >> 20,
            max >> 20
        );
    }
    Ok(())
}
