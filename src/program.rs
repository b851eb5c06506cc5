//! Running a JAX program: the interpreter core (`crate::python`) with the
//! importable modules (`crate::modules`) installed.

use std::rc::Rc;

pub use crate::python::{Options, Outcome, PyError};

/// Runs `source` as a Python program whose imports are shardlab's modules.
pub fn run(source: &str, options: &Options) -> Outcome {
    crate::python::run(source, options, Rc::new(crate::modules::Modules))
}
