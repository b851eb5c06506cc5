//! Any bytes, as a program, must end in a result or a Python exception:
//! never a panic in the parser, the tracer or the interpreter.
//!
//! Run with `cargo fuzz run run_program -- -max_total_time=600` from the
//! repository root (cargo-fuzz needs a nightly toolchain for its
//! instrumentation; the product itself builds on stable). Seed the corpus
//! with `tests/programs/*.py`. The stable harness that runs the command
//! line as a process on hostile programs (so stack overflows, aborts, hangs
//! and memory blow-ups are caught too) is `tests/hostile.rs`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use shardlab::program::{run, Options};

fuzz_target!(|data: &[u8]| {
    if let Ok(source) = std::str::from_utf8(data) {
        let options = Options {
            mode: shardlab::exec::Mode::Lockstep,
            max_steps: 100_000,
            ..Options::default()
        };
        let _ = run(source, &options);
    }
});
