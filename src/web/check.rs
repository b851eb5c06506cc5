//! What a page calls to grade a learner's solution of an exercise: every
//! case of the problem runs as `run_program` runs a program (on the device
//! pool when it is large enough, else in lockstep), and the verdict comes
//! back as one JavaScript object.

use serde::Serialize;
use wasm_bindgen::prelude::*;

use super::program::{
    clear_cancel, name_memory_stop, past_time_limit, run_options, set_time_limit,
};
use crate::check::Verdict;
use crate::error::{Error, ErrorKind};

/// What [`check_program`] returns.
#[derive(Serialize)]
struct CheckOutcome {
    /// Why the problem cannot be read, or null.
    problem_error: Option<String>,
    /// The verdict (null when the problem cannot be read).
    verdict: Option<Verdict>,
}

/// Grades `source` against `problem` (the problem's JSON text, see
/// `docs/exercises.md`) and returns `{problem_error, verdict}`: the verdict
/// is `{title, passed, cases}`, each case `{name, devices, mesh, passed,
/// error, mismatches, max_abs_error, max_rel_error, got, expected, checks,
/// stdout, report}` (the report only for a failing case, its arrays as
/// typed arrays). `lockstep` runs every case in this thread. A learner's
/// error is a failed case, never an exception of this function.
#[wasm_bindgen]
pub fn check_program(source: &str, problem: &str, lockstep: bool) -> Result<JsValue, JsValue> {
    console_error_panic_hook::set_once();
    let out = match crate::check::parse(problem) {
        Err(e) => CheckOutcome {
            problem_error: Some(e),
            verdict: None,
        },
        Ok(problem) => {
            // A cancel stops the case in progress and every later one.
            clear_cancel();
            let verdict = crate::check::check(&problem, source, |program, asked, limit| {
                let (options, _) = run_options(asked.devices, lockstep);
                set_time_limit(Some(limit.as_secs_f64() * 1000.0));
                let (mut outcome, report) = crate::program::run_recorded(program, &options);
                name_memory_stop(&mut outcome);
                if let Some(e) = outcome
                    .error
                    .as_mut()
                    .filter(|e| e.error.kind == ErrorKind::Cancelled)
                {
                    if past_time_limit() {
                        e.error =
                            Error::new(ErrorKind::TimeoutError, "the run passed its time limit");
                    }
                }
                set_time_limit(None);
                (outcome, report)
            });
            CheckOutcome {
                problem_error: None,
                verdict: Some(verdict),
            }
        }
    };
    crate::report::js::to_js(&out).map_err(Into::into)
}
