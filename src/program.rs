//! Running a JAX program: the interpreter core (`crate::python`) with the
//! importable modules (`crate::modules`) installed.

use std::rc::Rc;

pub use crate::python::{Options, Outcome, PyError};

/// Runs `source` as a Python program whose imports are shardlab's modules.
pub fn run(source: &str, options: &Options) -> Outcome {
    crate::python::run(source, options, Rc::new(crate::modules::Modules), None)
}

/// [`run`], recording the run report.
pub fn run_recorded(source: &str, options: &Options) -> (Outcome, crate::report::Report) {
    let recorder = Rc::new(crate::report::Recorder::default());
    let observer: Rc<dyn crate::exec::run::Observer> = recorder.clone();
    let outcome = crate::python::run(
        source,
        options,
        Rc::new(crate::modules::Modules),
        Some(observer),
    );
    (outcome, recorder.take())
}
