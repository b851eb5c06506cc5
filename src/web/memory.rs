//! `maxMemory` as a total over the run's workers.
//!
//! In a browser or Node every worker (the coordinator and each device) has a
//! wasm memory of its own, which grows and never shrinks. The limit a page
//! or a package user sets is for the tab or the process, so each check adds
//! the others' memory to its own ([`crate::python::budget::set_held_elsewhere`]):
//!
//! - a device publishes its memory (in 64 KiB pages) in its record of the
//!   fabric whenever it grew, and then counts the other devices' records and
//!   what the coordinator told it the rest holds (the coordinator's own
//!   memory and the idle device workers'). Memory only changes by growing, and
//!   the device that grew checks right after, so whichever device takes the
//!   total past the limit sees it: the fabric's atomics order the records;
//! - the coordinator, after each parallel map, keeps what every device
//!   published and counts their sum against its own later checks, in
//!   parallel and lockstep runs alike, until the pool is replaced.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use super::fabric::SabFabric;
use crate::fabric::Fabric;
use crate::python::budget;

/// Bytes of one wasm page.
const PAGE: u64 = 65536;

/// A device's share of the run in progress.
struct Share {
    fabric: Rc<SabFabric>,
    position: usize,
    /// What the coordinator and the workers outside this map hold.
    outside: u64,
}

thread_local! {
    static SHARE: RefCell<Option<Share>> = const { RefCell::new(None) };
    /// The pages this device last published (0: not yet in this run).
    static PUBLISHED: Cell<u64> = const { Cell::new(0) };
}

/// Starts a device's run: `outside` is what the rest of the run holds.
pub fn device_start(fabric: &Rc<SabFabric>, position: usize, outside: u64) {
    SHARE.with(|s| {
        *s.borrow_mut() = Some(Share {
            fabric: Rc::clone(fabric),
            position,
            outside,
        })
    });
    PUBLISHED.with(|p| p.set(0));
    device_refresh();
}

/// Ends a device's run: its budget counts itself alone again.
pub fn device_end() {
    SHARE.with(|s| *s.borrow_mut() = None);
    budget::set_held_elsewhere(0);
}

/// Publishes this device's memory if it grew since it last did, and counts
/// the rest of the run into its budget.
pub fn device_refresh() {
    let own = budget::resident_bytes().unwrap_or(0) / PAGE;
    if PUBLISHED.with(|p| p.replace(own)) == own {
        return;
    }
    SHARE.with(|s| {
        let Ok(s) = s.try_borrow() else { return };
        let Some(s) = s.as_ref() else { return };
        s.fabric
            .set_held_pages(s.position, u32::try_from(own).unwrap_or(u32::MAX));
        let others: u64 = (0..s.fabric.devices())
            .filter(|&d| d != s.position)
            .map(|d| s.fabric.held_bytes(d))
            .sum();
        budget::set_held_elsewhere(s.outside.saturating_add(others));
    });
}

/// The coordinator's count of what its device workers hold, by worker.
#[derive(Default)]
pub struct DeviceMemory {
    held: RefCell<Vec<u64>>,
}

impl DeviceMemory {
    /// What the coordinator and the workers from `first` on hold: the rest
    /// of the run for a map on the first `first` workers.
    pub fn outside(&self, first: usize) -> u64 {
        let own = budget::resident_bytes().unwrap_or(0);
        let idle: u64 = self.held.borrow().iter().skip(first).sum();
        own.saturating_add(idle)
    }

    /// Takes what the first `devices` workers published in the map that
    /// just ran, and counts the sum of every worker's against the
    /// coordinator's own checks.
    pub fn update(&self, fabric: &SabFabric, devices: usize) {
        let mut held = self.held.borrow_mut();
        if held.len() < devices {
            held.resize(devices, 0);
        }
        for (d, h) in held.iter_mut().enumerate().take(devices) {
            // A device that failed before publishing keeps its last count.
            let now = fabric.held_bytes(d);
            if now > 0 {
                *h = now;
            }
        }
        budget::set_held_elsewhere(held.iter().sum());
    }

    /// The sum over the workers.
    pub fn total(&self) -> u64 {
        self.held.borrow().iter().sum()
    }
}
