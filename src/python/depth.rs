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

/// Most nested levels at once, over every kind of recursion: room for
/// CPython's default of 1000 Python calls several expression levels deep
/// each. A WebAssembly build's levels also take the browser's stack (see
/// [`STACK_CALLS`]), so its bound is smaller: in Chromium a pytree walk 900
/// levels deep overflowed that stack, and one 800 deep must not.
#[cfg(not(target_arch = "wasm32"))]
pub const LIMIT: usize = 20_000;
#[cfg(target_arch = "wasm32")]
pub const LIMIT: usize = 800;

/// Most Python calls one inside another that the native stack holds,
/// whatever `sys.setrecursionlimit` says. A browser runs WebAssembly on
/// the engine's own stack, about 1 MB in Chromium's workers, which held
/// 330 simple recursive calls and not 360 when measured; the bounds leave
/// room for deeper expressions inside each call, and for frames that are
/// larger before the engine's optimising compiler has run (at 250 a Node
/// worker once overflowed at 249 calls). Natively the program's
/// thread has [`STACK_BYTES`], and [`LIMIT`] binds first.
#[cfg(target_arch = "wasm32")]
pub const STACK_CALLS: Option<usize> = Some(200);
#[cfg(not(target_arch = "wasm32"))]
pub const STACK_CALLS: Option<usize> = None;

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

/// Fails with `RecursionError` where a call would make `running` frames
/// (the module's included): past `sys.getrecursionlimit()` as in CPython,
/// or past what the native stack holds ([`STACK_CALLS`]), saying so.
pub fn check_calls(running: usize) -> Result<()> {
    if running > python_limit() {
        return Err(recursion_error(""));
    }
    match STACK_CALLS {
        Some(most) if running > most => Err(recursion_error(&format!(
            " (this build's stack holds {most} nested Python calls; \
             CPython's default limit is {PYTHON_LIMIT})"
        ))),
        _ => Ok(()),
    }
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

/// Python's default recursion limit (`sys.getrecursionlimit()`).
pub const PYTHON_LIMIT: usize = 1000;

thread_local! {
    /// The run's recursion limit (`sys.setrecursionlimit`), published for
    /// the reprs, which count against it without the interpreter at hand.
    static PY_LIMIT: Cell<usize> = const { Cell::new(PYTHON_LIMIT) };
    /// The Python functions running now (the interpreter's call depth).
    static FRAMES: Cell<usize> = const { Cell::new(0) };
    /// The containers whose repr is being built, one inside the other.
    static REPRS: Cell<usize> = const { Cell::new(0) };
}

/// Publishes the interpreter's call depth, which a repr counts against
/// Python's recursion limit.
pub fn set_frames(n: usize) {
    FRAMES.with(|f| f.set(n));
}

/// Publishes the run's recursion limit (`sys.setrecursionlimit`).
pub fn set_python_limit(n: usize) {
    PY_LIMIT.with(|l| l.set(n));
}

/// The recursion limit the running program set, or Python's default.
pub fn python_limit() -> usize {
    PY_LIMIT.with(|l| l.get())
}

/// One level of a container's repr, released when dropped.
pub struct ReprLevel {
    _native: Level,
}

impl Drop for ReprLevel {
    fn drop(&mut self) {
        REPRS.with(|r| r.set(r.get().saturating_sub(1)));
    }
}

/// Enters the repr of one more nested container, or `None` (noted for
/// [`take_overflow`]) where CPython's repr would pass its recursion limit:
/// it counts each nested container together with the running frames, so
/// at module level 997 nested lists print and 998 raise `RecursionError`,
/// one fewer from inside a function called by a function.
pub fn enter_repr() -> Option<ReprLevel> {
    let level = repr_level();
    if level.is_err() {
        OVERFLOWED.with(|o| o.set(Some(DURING_REPR)));
    }
    level.ok()
}

/// What a repr past the limit was doing, in the error's message.
const DURING_REPR: &str = " while getting the repr of an object";

/// [`enter_repr`] where the error can be returned.
pub fn repr_level() -> Result<ReprLevel> {
    let level = REPRS.with(|r| r.get()) + 1;
    let frames = FRAMES.with(|f| f.get());
    if level + 2 + frames.saturating_sub(1) >= python_limit() {
        return Err(recursion_error(DURING_REPR));
    }
    let native = enter().map_err(|_| recursion_error(DURING_REPR))?;
    REPRS.with(|r| r.set(level));
    Ok(ReprLevel { _native: native })
}

/// Resets the count at the start of a run (a run that failed midway leaves
/// no levels behind, as every guard is dropped, but a noted overflow may).
pub fn reset() {
    DEPTH.with(|d| d.set(0));
    OVERFLOWED.with(|o| o.set(None));
    FRAMES.with(|f| f.set(0));
    REPRS.with(|r| r.set(0));
    PY_LIMIT.with(|l| l.set(PYTHON_LIMIT));
}
