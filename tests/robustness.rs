//! Property: random and mutated programs never make the parser, the tracer or
//! the interpreter panic. Every run ends with an outcome (a result or a Python
//! exception), whatever the input.
//!
//! The mutations start from the program suite (tests/programs/*.py), so they
//! reach deep into the jax, numpy, flax and optax modules rather than failing
//! at the first token.

use std::panic::{catch_unwind, AssertUnwindSafe};

use proptest::prelude::*;
use shardlab::program::{run, Options};

#[path = "common/mutate.rs"]
mod mutate;
use mutate::{corpus, edit_strategy, mutated};

/// Runs `source` and fails if anything panicked.
fn runs_without_panic(source: &str, lockstep: bool) -> Result<(), TestCaseError> {
    let options = Options {
        mode: if lockstep {
            shardlab::exec::Mode::Lockstep
        } else {
            shardlab::exec::Mode::Parallel
        },
        max_steps: 200_000,
        ..Options::default()
    };
    // On a thread with the stack the command line gives programs: the
    // interpreter's recursion bound assumes it (a test thread's 2 MB would
    // overflow before a deep but legal program reaches RecursionError).
    let owned = source.to_string();
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .stack_size(shardlab::python::depth::STACK_BYTES)
        .spawn(move || {
            let ok = catch_unwind(AssertUnwindSafe(|| run(&owned, &options))).is_ok();
            let _ = done.send(ok);
        })
        .map_err(|e| TestCaseError::fail(format!("no thread: {e}")))?;
    // `max_steps` bounds statements, not the size of one array operation:
    // a mutation that asks for a huge array is left running, not waited
    // for, since the property is about panics. A panic drops the sender.
    let outcome = match finished.recv_timeout(std::time::Duration::from_secs(30)) {
        Ok(ok) => ok,
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => true,
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => false,
    };
    prop_assert!(outcome, "panicked on:\n{source}");
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn mutated_programs_never_panic(
        pick in any::<usize>(),
        edits in prop::collection::vec(edit_strategy(), 1..4),
        lockstep in any::<bool>(),
    ) {
        let source = mutated(&corpus(), pick, &edits);
        runs_without_panic(&source, lockstep)?;
    }

    #[test]
    fn arbitrary_text_never_panics(source in "\\PC{0,200}") {
        runs_without_panic(&source, true)?;
    }
}
