//! The library function a collective was called as, when its equation does
//! not say so: `jax.lax.pmean` binds a `psum` (or `psum_invariant`) and a
//! division, as in JAX, so its jaxpr has no `pmean`; the equation keeps the
//! name so the run report can show the reduction the program asked for.

use std::cell::Cell;

use crate::primitives::{CollectiveKind, Prim};

thread_local! {
    /// Set while a library function binds the collectives it is made of.
    /// Per thread like the trace stack: the bind that records the equation
    /// is several calls below the function that knows its name.
    static CALLED_AS: Cell<Option<&'static str>> = const { Cell::new(None) };
}

/// Runs `f` with the sums it binds named `name`.
pub fn called_as<T>(name: &'static str, f: impl FnOnce() -> T) -> T {
    let saved = CALLED_AS.with(|c| c.replace(Some(name)));
    let out = f();
    CALLED_AS.with(|c| c.set(saved));
    out
}

/// The name an equation of `prim` made now keeps: only the sums are named
/// (pmean's `pvary`, which marks its operand as varying, stays `pvary`).
pub fn current(prim: &Prim) -> Option<String> {
    let sum = matches!(
        prim,
        Prim::Collective(CollectiveKind::Psum { .. } | CollectiveKind::PsumInvariant { .. })
    );
    CALLED_AS
        .with(Cell::get)
        .filter(|_| sum)
        .map(str::to_string)
}

/// Runs `f`, which binds an equation again (inlining a jaxpr), under the
/// name that equation was called as, so the new equation keeps it.
pub fn again<T>(name: Option<&str>, f: impl FnOnce() -> T) -> T {
    match NAMES.iter().find(|n| Some(**n) == name) {
        Some(n) => called_as(n, f),
        None => f(),
    }
}

/// Every name [`called_as`] is given.
const NAMES: [&str; 1] = ["pmean"];
