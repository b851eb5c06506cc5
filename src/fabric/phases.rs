//! Where a device's time goes inside its collectives, for measurements only.
//!
//! A collective's time is the sum of a few kinds of work (copies into and
//! out of the fabric, waits at barriers, folds, local copies, making the
//! result) and the device runtime's own cost around it. Timing them from
//! outside cannot tell them apart, so a device may switch on a clock of its
//! own ([`enable`]) and every phase adds its duration and its count to this
//! thread's totals ([`take`]). Off (the default), a phase costs one read of a
//! thread-local word, and nothing is timed.

use std::cell::Cell;

/// What a stretch of a collective does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// The whole collective, from its call to its result: what remains of
    /// it after the phases below is bookkeeping.
    Call,
    /// Copying words into this device's slot.
    CopyIn,
    /// Copying words out of a slot.
    CopyOut,
    /// Waiting at a barrier, including for the slowest device.
    Barrier,
    /// Folding one operand into an accumulator.
    Fold,
    /// Copying within this device's memory (its own share into the result,
    /// an accumulator into an array).
    Local,
    /// Allocating (and zeroing) the result and working space.
    Alloc,
}

/// Number of [`Phase`]s.
pub const PHASES: usize = 7;

impl Phase {
    /// Every phase, in the order of [`Totals`].
    pub const ALL: [Phase; PHASES] = [
        Phase::Call,
        Phase::CopyIn,
        Phase::CopyOut,
        Phase::Barrier,
        Phase::Fold,
        Phase::Local,
        Phase::Alloc,
    ];

    /// A short name for tables.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Call => "call",
            Phase::CopyIn => "copy in",
            Phase::CopyOut => "copy out",
            Phase::Barrier => "barrier",
            Phase::Fold => "fold",
            Phase::Local => "local copy",
            Phase::Alloc => "alloc",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// Milliseconds spent in each phase and how many times it ran, indexed as
/// [`Phase::ALL`].
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Totals {
    /// Milliseconds per phase.
    pub ms: [f64; PHASES],
    /// Times each phase ran.
    pub count: [u32; PHASES],
}

thread_local! {
    /// The clock while timing is on, in milliseconds.
    static CLOCK: Cell<Option<fn() -> f64>> = const { Cell::new(None) };
    static TOTALS: Cell<Totals> = const {
        Cell::new(Totals { ms: [0.0; PHASES], count: [0; PHASES] })
    };
}

/// Starts timing this thread's phases with `clock` (milliseconds), from zero;
/// `None` stops.
pub fn enable(clock: Option<fn() -> f64>) {
    CLOCK.with(|c| c.set(clock));
    TOTALS.with(|t| t.set(Totals::default()));
}

/// The totals since [`enable`], which keep counting.
pub fn take() -> Totals {
    TOTALS.with(Cell::get)
}

/// Runs `f`, adding its duration to `phase` when timing is on.
#[inline]
pub fn timed<R>(phase: Phase, f: impl FnOnce() -> R) -> R {
    let Some(now) = CLOCK.with(Cell::get) else {
        return f();
    };
    let start = now();
    let out = f();
    let ms = now() - start;
    TOTALS.with(|t| {
        let mut totals = t.get();
        totals.ms[phase.index()] += ms;
        totals.count[phase.index()] += 1;
        t.set(totals);
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        static TICKS: Cell<f64> = const { Cell::new(0.0) };
    }

    /// A clock that moves 1 ms each time it is read.
    fn ticking() -> f64 {
        TICKS.with(|t| {
            t.set(t.get() + 1.0);
            t.get()
        })
    }

    #[test]
    fn phases_count_only_while_enabled() {
        timed(Phase::Fold, || ());
        enable(Some(ticking));
        assert_eq!(timed(Phase::Fold, || 7), 7);
        timed(Phase::Barrier, || timed(Phase::Fold, || ()));
        let t = take();
        assert_eq!(t.count[Phase::Fold.index()], 2);
        assert_eq!(t.ms[Phase::Fold.index()], 2.0);
        // The barrier's stretch holds the fold's two readings.
        assert_eq!(t.ms[Phase::Barrier.index()], 3.0);
        enable(None);
        timed(Phase::Fold, || ());
        assert_eq!(take(), Totals::default());
    }
}
