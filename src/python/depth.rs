//! A bound on the interpreter's native recursion.
//!
//! Evaluating nested expressions, calling functions, printing nested
//! containers, comparing them and walking pytrees all recurse on the
//! native stack. Each of those levels takes an [`enter`] guard; past
//! [`LIMIT`] levels in all, the work fails with Python's `RecursionError`
//! instead of overflowing the stack. The command line runs programs on a
//! thread whose stack holds [`LIMIT`] levels of the deepest of them
//! ([`STACK_BYTES`]).
//!
//! Printing and comparing return plain values, not results: when they hit
//! the limit they note it ([`try_enter`]), give up on the rest, and the
//! interpreter raises the error when the expression that started them ends
//! ([`take_overflow`]).

use std::cell::Cell;

use crate::error::{Error, ErrorKind, Result};

/// Most nested levels at once, over every kind of recursion.
pub const LIMIT: usize = 6000;

/// Stack size for a thread that runs programs: room for [`LIMIT`] levels
/// of the largest frames (an expression inside a call inside an
/// expression), with a wide margin, plus dropping deeply nested values,
/// which recurses without a guard.
pub const STACK_BYTES: usize = 2 << 30;

thread_local! {
    /// The interpreter's recursion depth on this thread: a limit on the
    /// thread's own stack, so it belongs to the thread, not to a run.
    static DEPTH: Cell<usize> = const { Cell::new(0) };
    static OVERFLOWED: Cell<Option<&'static str>> = const { Cell::new(None) };
}

/// One level of recursion, released when dropped.
pub struct Level(());

impl Drop for Level {
    fn drop(&mut self) {
        DEPTH.with(|d| d.set(d.get().saturating_sub(1)));
    }
}

/// The error Python raises when recursion goes too deep.
pub fn recursion_error(during: &str) -> Error {
    Error::new(
        ErrorKind::RecursionError,
        format!("maximum recursion depth exceeded{during}"),
    )
}

/// Enters one more level, or fails with `RecursionError` past [`LIMIT`].
pub fn enter() -> Result<Level> {
    DEPTH.with(|d| {
        if d.get() >= LIMIT {
            return Err(recursion_error(""));
        }
        d.set(d.get() + 1);
        Ok(Level(()))
    })
}

/// Enters one more level where no error can be returned: `None` past the
/// limit, which is noted for [`take_overflow`] with what was being done
/// (`" in comparison"`).
pub fn try_enter(during: &'static str) -> Option<Level> {
    match enter() {
        Ok(l) => Some(l),
        Err(_) => {
            OVERFLOWED.with(|o| o.set(Some(during)));
            None
        }
    }
}

/// The `RecursionError` a printer or comparison noted, once.
pub fn take_overflow() -> Option<Error> {
    OVERFLOWED.with(|o| o.take()).map(recursion_error)
}

/// Resets the count at the start of a run (a run that failed midway leaves
/// no levels behind, as every guard is dropped, but a noted overflow may).
pub fn reset() {
    DEPTH.with(|d| d.set(0));
    OVERFLOWED.with(|o| o.set(None));
}
