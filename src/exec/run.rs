//! The run context: what one run of a program is, made when the run starts
//! and gone when it ends.
//!
//! A [`Run`] holds the run's settings ([`Config`]: mode, device count, the
//! backend that runs devices in parallel), how to learn that it was stopped
//! from outside ([`StopCheck`]), the [`Observer`] that watches it (the run
//! report implements one; `exec` knows only the trait), and what its devices
//! printed on the way. Whoever starts a run (the CLI, the web entry points,
//! the exercise checker, a test) builds one and [`enter`]s it for the run's
//! duration; the guard puts back whatever was there before, so nothing of a
//! run outlives it and a reused thread starts clean.
//!
//! The entered run sits in one per-thread slot rather than being passed to
//! every function: the evaluator is reached from Python operators on arrays
//! (`x + y` binds a primitive, which evaluates it), and those carry no
//! handle to pass. Device threads get what they need (the stop check)
//! explicitly when they start.

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

use super::log::DeviceLog;
use super::{Devices, Mode, ThreadDevices};
use crate::array::format::PrintOptions;
use crate::array::Array;
use crate::error::Result;
use crate::ir::Jaxpr;
use crate::mesh::Mesh;
use crate::primitives::debug::Printed;
use crate::sharding::PartitionSpec;

/// The settings of a run.
#[derive(Clone)]
pub struct Config {
    /// Parallel or lockstep.
    pub mode: Mode,
    /// How many devices `jax.devices()` reports (pmap may use at most this many).
    pub devices: usize,
    /// How long a device waits at a collective for the others before failing.
    pub timeout: Duration,
    /// Capacity of each device's exchange slot, in 4-byte words.
    pub slot_words: usize,
    /// What runs the devices in parallel mode.
    pub devices_backend: Arc<dyn Devices>,
}

impl std::fmt::Debug for dyn Devices {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Devices")
    }
}

impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Config")
            .field("mode", &self.mode)
            .field("devices", &self.devices)
            .field("timeout", &self.timeout)
            .field("slot_words", &self.slot_words)
            .finish()
    }
}

impl Default for Config {
    fn default() -> Config {
        Config {
            // In the browser, parallel devices need a worker pool, which the
            // web layer puts in the run's config; without one everything
            // runs in lockstep.
            mode: if cfg!(target_arch = "wasm32") {
                Mode::Lockstep
            } else {
                Mode::Parallel
            },
            devices: 8,
            timeout: Duration::from_secs(30),
            // The browser's devices exchange everything through their slots
            // (they cannot lend), and each piece costs a barrier and a few
            // calls out to JavaScript: 4 MiB slots carry a 4 MiB all-reduce
            // in 3 pieces where 1 MiB ones took 12. Natively the slots only
            // carry what lending does not, so they stay small.
            slot_words: if cfg!(target_arch = "wasm32") {
                1 << 20
            } else {
                1 << 18
            },
            devices_backend: Arc::new(ThreadDevices),
        }
    }
}

/// Says why the run in progress was stopped, once it was.
pub type StopCheck = fn() -> Option<String>;

/// Which arrays a map's devices held: `globals[i]` split into
/// `blocks[i][position]`, as `layout` says.
pub struct Placed<'a> {
    /// The global arrays.
    pub globals: &'a [Array],
    /// Each array's block on every device, by position.
    pub blocks: &'a [Vec<Array>],
    /// How the blocks tile the globals.
    pub layout: Layout<'a>,
}

/// How a map's blocks tile its global arrays.
pub enum Layout<'a> {
    /// shard_map: one spec per array.
    Specs(&'a [PartitionSpec]),
    /// pmap: the mapped axis of each array (None: every device holds all of it).
    Axes(&'a [Option<usize>]),
}

/// One shard_map or pmap that ran at top level, as its observer sees it.
pub struct MapRan<'a> {
    /// `shard_map`, `pmap`, or the name the partitioner gives its programs.
    pub kind: &'static str,
    /// The devices.
    pub mesh: &'a Mesh,
    /// The program every device ran.
    pub body: &'a Jaxpr,
    /// Whether it ran in lockstep (else one thread or worker per device).
    pub lockstep: bool,
    /// Whether it is the transposed map of a grad.
    pub backward: bool,
    /// Its inputs.
    pub inputs: Placed<'a>,
    /// Its outputs.
    pub outputs: Placed<'a>,
    /// Every device's log of collectives and time.
    pub logs: Vec<DeviceLog>,
    /// The program line whose evaluation ran it (the call of the map or
    /// of the jitted function).
    pub line: Option<u32>,
}

/// Watches a run: told of every map and every eager grad as it finishes.
/// The run report is one ([`crate::report::Recorder`]).
pub trait Observer {
    /// A map ran.
    fn map_ran(&self, map: MapRan<'_>) -> Result<()>;
    /// An eager `grad` / `value_and_grad` ran: its scalar loss, its
    /// gradients, and `[start, end)` of the maps it ran (counted by
    /// [`Observer::maps_seen`]).
    fn grad_ran(&self, loss: f64, grads: &[Array], maps: [usize; 2]);
    /// How many maps this observer has been told of.
    fn maps_seen(&self) -> usize;
    /// The program ended with these top-level names bound to arrays laid
    /// out over a mesh (placed with `device_put`, resharded, or made by a
    /// computation with a known sharding), in the order the program first
    /// names them.
    fn arrays_named(&self, _arrays: &[(String, Array)]) {}
}

/// One run: its settings, its stop check, its observer, and what its devices
/// printed until the front end shows it.
pub struct Run {
    config: RefCell<Config>,
    stop: Option<StopCheck>,
    observer: Option<Rc<dyn Observer>>,
    /// Lines printed by eagerly applied primitives (a vmap evaluated at top
    /// level prints its body's lines here).
    eager_prints: RefCell<Vec<Printed>>,
    /// Lines printed by the devices of a map running in lockstep, until the
    /// equation that started the map hands them to its own comm.
    map_prints: RefCell<Vec<Printed>>,
    /// Set while the transposed maps of a grad run.
    backward: Cell<bool>,
    /// Text printed on the way that the front end has yet to show (what a
    /// custom_vjp's backward rule prints, when the rule is applied).
    deferred_text: RefCell<String>,
    /// NumPy's print options as the program set them.
    print_options: Cell<PrintOptions>,
    /// What libraries keep for the length of the run, one value per type
    /// (see [`local`]).
    locals: RefCell<Vec<Rc<dyn Any>>>,
}

impl Run {
    /// A run with `config`, no stop check and no observer.
    pub fn new(config: Config) -> Run {
        Run {
            config: RefCell::new(config),
            stop: None,
            observer: None,
            eager_prints: RefCell::default(),
            map_prints: RefCell::default(),
            backward: Cell::new(false),
            deferred_text: RefCell::default(),
            print_options: Cell::new(PrintOptions::default()),
            locals: RefCell::default(),
        }
    }

    /// This run, polling `check` to learn it was stopped.
    pub fn stopped_by(mut self, check: Option<StopCheck>) -> Run {
        self.stop = check;
        self
    }

    /// This run, watched by `observer`.
    pub fn observed_by(mut self, observer: Option<Rc<dyn Observer>>) -> Run {
        self.observer = observer;
        self
    }
}

thread_local! {
    /// The run entered on this thread (see the module docs for why a slot).
    static CURRENT: RefCell<Option<Rc<Run>>> = const { RefCell::new(None) };
}

/// Restores the run that was entered before, when dropped.
#[must_use = "the run ends when this guard is dropped"]
pub struct Entered {
    outer: Option<Rc<Run>>,
}

impl Drop for Entered {
    fn drop(&mut self) {
        let outer = self.outer.take();
        CURRENT.with(|c| *c.borrow_mut() = outer);
    }
}

/// Makes `run` this thread's run until the guard is dropped.
pub fn enter(run: Run) -> Entered {
    let outer = CURRENT.with(|c| c.borrow_mut().replace(Rc::new(run)));
    Entered { outer }
}

/// Runs `f` with the entered run, if there is one.
fn with<T>(f: impl FnOnce(&Run) -> T) -> Option<T> {
    let run = CURRENT.with(|c| c.borrow().clone())?;
    Some(f(&run))
}

/// The settings of the entered run (the defaults outside a run).
pub fn config() -> Config {
    with(|r| r.config.borrow().clone()).unwrap_or_default()
}

/// Changes how many devices the entered run has (a program that sets
/// `XLA_FLAGS` before its first device query).
pub fn set_devices(n: usize) {
    with(|r| r.config.borrow_mut().devices = n);
}

/// What the entered run polls to learn it was stopped, for the device
/// threads it starts.
pub fn stop_check() -> Option<StopCheck> {
    with(|r| r.stop).flatten()
}

/// The reason the entered run was stopped, if it was.
pub fn stop_requested() -> Option<String> {
    stop_check().and_then(|check| check())
}

/// The entered run's observer, if it has one.
pub fn observer() -> Option<Rc<dyn Observer>> {
    with(|r| r.observer.clone()).flatten()
}

/// Whether the entered run is observed (only then are device logs and
/// shards kept).
pub fn observed() -> bool {
    with(|r| r.observer.is_some()).unwrap_or(false)
}

/// How many maps the entered run's observer has seen (0 unobserved).
pub fn maps_seen() -> usize {
    observer().map_or(0, |o| o.maps_seen())
}

/// Runs `f`, marking the maps it runs as the backward maps of a grad.
pub fn backward<T>(f: impl FnOnce() -> T) -> T {
    let outer = with(|r| r.backward.replace(true));
    let result = f();
    if let Some(outer) = outer {
        with(|r| r.backward.set(outer));
    }
    result
}

/// Whether the maps running now are the backward maps of a grad.
pub fn in_backward() -> bool {
    with(|r| r.backward.get()).unwrap_or(false)
}

/// Keeps lines printed by eagerly applied primitives. Outside a run they
/// have nowhere to go and are dropped.
pub fn eager_prints(printed: Vec<Printed>) {
    with(|r| r.eager_prints.borrow_mut().extend(printed));
}

/// Takes what eagerly applied primitives printed since the last call.
pub fn take_eager_prints() -> Vec<Printed> {
    with(|r| std::mem::take(&mut *r.eager_prints.borrow_mut())).unwrap_or_default()
}

/// Keeps lines printed by the devices of a map running in lockstep.
pub fn map_prints(printed: Vec<Printed>) {
    with(|r| r.map_prints.borrow_mut().extend(printed));
}

/// Swaps the kept map lines for `lines`, returning those kept.
pub(super) fn replace_map_prints(lines: Vec<Printed>) -> Vec<Printed> {
    with(|r| std::mem::replace(&mut *r.map_prints.borrow_mut(), lines)).unwrap_or_default()
}

/// NumPy's print options in the entered run (the defaults outside a run).
pub fn print_options() -> PrintOptions {
    with(|r| r.print_options.get()).unwrap_or_default()
}

/// Sets NumPy's print options for the rest of the entered run.
pub fn set_print_options(o: PrintOptions) {
    with(|r| r.print_options.set(o));
}

/// Keeps text for the front end to show with the next eager prints.
pub fn defer_text(text: &str) {
    with(|r| r.deferred_text.borrow_mut().push_str(text));
}

/// Takes the text kept by [`defer_text`].
pub fn take_deferred_text() -> String {
    with(|r| std::mem::take(&mut *r.deferred_text.borrow_mut())).unwrap_or_default()
}

/// The entered run's value of type `T`, made on first use and dropped with
/// the run: where a library keeps what belongs to one run (a class it makes
/// once, a registry of the run's objects), so that a thread reused for the
/// next run starts without it. None outside a run.
pub fn local<T: Default + 'static>() -> Option<Rc<T>> {
    with(|r| {
        let mut locals = r.locals.borrow_mut();
        if let Some(found) = locals.iter().find_map(|l| l.clone().downcast::<T>().ok()) {
            return found;
        }
        let made = Rc::new(T::default());
        locals.push(made.clone());
        made
    })
}
